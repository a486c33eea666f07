// Fuzz target: the dataset readers (parley JSONL, GSM8K, MMLU CSV) on any file text. The first
// byte picks the reader. Invariants: every task kept has a non-empty, unique id; a choice
// task's gold is a label of its options.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "data/readers.h"
#include "fuzz_check.h"
#include "parley/task.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  parley::data::DatasetBuilder builder(std::nullopt);
  switch (data[0] % 3) {
    case 0: parley::data::read_parley_jsonl(text, builder); break;
    case 1: parley::data::read_gsm8k(text, builder); break;
    default: parley::data::read_mmlu_csv(text, "fuzz", builder); break;
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
  }
  return 0;
}
