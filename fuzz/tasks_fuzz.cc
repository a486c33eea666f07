// Fuzz target: the dataset readers (parley JSONL, GSM8K, MMLU CSV) on any file text. The first
// byte picks the reader (JSONL with or without a label set). Invariants: every task kept has a
// non-empty, unique id; a choice task's gold is a label of its options; a label task's gold is,
// with a set, one of its canonical labels.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "data/readers.h"
#include "fuzz_check.h"
#include "parley/labels.h"
#include "parley/task.h"

namespace {

std::shared_ptr<const parley::LabelSet> fuzz_labels() {
  static const auto labels = [] {
    auto set = parley::LabelSet::make({"Dengue fever", "Hepatitis C", "-1", "0", "+1"}, {{"HCV", "Hepatitis C"}}, false);
    return std::make_shared<const parley::LabelSet>(std::move(*set));
  }();
  return labels;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  parley::data::DatasetBuilder builder(std::nullopt);
  switch (data[0] % 4) {
    case 0: parley::data::read_parley_jsonl(text, nullptr, builder); break;
    case 1: parley::data::read_gsm8k(text, builder); break;
    case 2: parley::data::read_mmlu_csv(text, "fuzz", builder); break;
    default: parley::data::read_parley_jsonl(text, fuzz_labels(), builder); break;
  }
  const parley::Dataset dataset = builder.take();
  std::set<std::string> ids;
  for (const parley::Task& task : dataset.tasks) {
    FUZZ_CHECK(!task.id.empty());
    FUZZ_CHECK(ids.insert(task.id).second);
    if (task.answer_type == parley::AnswerType::kChoice) {
      const auto index = parley::option_index(task.answer);
      FUZZ_CHECK(index && *index < task.options.size());
    }
    if (task.answer_type == parley::AnswerType::kLabel && task.labels) {
      FUZZ_CHECK(task.labels->canonical(task.answer) == task.answer);
    }
  }
  return 0;
}
