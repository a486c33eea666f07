// Fuzz target: the answer parsers on any reply text. The first byte picks the option count of
// the choice task (4 or 30, so that labels beyond Z are exercised); the rest is the reply.
// Invariants: a parsed choice is a label of the task's options; a parsed number re-parses to
// itself; confidences and probabilities lie in [0, 1]; numbers and forecasts are finite.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "parley/answer.h"
#include "parley/self_critique.h"

namespace {

std::vector<std::string> options_of(std::size_t count) {
  std::vector<std::string> options;
  for (std::size_t i = 0; i < count; ++i) options.push_back("option text " + std::to_string(i));
  return options;
}

parley::Task task_of(parley::AnswerType type, std::size_t option_count) {
  parley::Task task;
  task.answer_type = type;
  if (type == parley::AnswerType::kChoice) task.options = options_of(option_count);
  task.answer = type == parley::AnswerType::kChoice ? "B" : type == parley::AnswerType::kText ? "Paris" : "0.5";
  return task;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t option_count = (data[0] & 1) ? 30 : 4;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  for (auto type : {parley::AnswerType::kChoice, parley::AnswerType::kNumber, parley::AnswerType::kText,
                    parley::AnswerType::kForecast}) {
    const parley::Task task = task_of(type, option_count);
    const parley::Answer answer = parley::parse_answer(text, task);
    if (answer.confidence) FUZZ_CHECK(*answer.confidence >= 0.0 && *answer.confidence <= 1.0);
    for (const auto& belief : answer.beliefs) {
      FUZZ_CHECK(!belief.label.empty());
      FUZZ_CHECK(belief.probability >= 0.0 && belief.probability <= 1.0);
    }
    if (answer.value && type == parley::AnswerType::kChoice) {
      const auto index = parley::option_index(*answer.value);
      FUZZ_CHECK(index && *index < option_count);
    }
    if (answer.value && type == parley::AnswerType::kNumber) {
      const auto reparsed = parley::parse_number(*answer.value);
      FUZZ_CHECK(reparsed && parley::canonical_number(*reparsed) == *answer.value);
    }
    const parley::SelfCritique critique = parley::parse_self_critique(text, task);
    (void)critique;
  }
  if (const auto choice = parley::parse_choice(text, options_of(option_count))) {
    const auto index = parley::option_index(*choice);
    FUZZ_CHECK(index && *index < option_count);
  }
  if (const auto forecast = parley::parse_forecast(text)) FUZZ_CHECK(std::isfinite(*forecast));
  if (const auto confidence = parley::parse_confidence(text)) FUZZ_CHECK(*confidence >= 0.0 && *confidence <= 1.0);
  if (const auto number = parley::parse_number(text)) FUZZ_CHECK(std::isfinite(*number));
  for (const auto& belief : parley::parse_beliefs(text)) FUZZ_CHECK(belief.probability >= 0.0 && belief.probability <= 1.0);
  return 0;
}
