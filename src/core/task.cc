#include "parley/task.h"

namespace parley {

const char* answer_type_name(AnswerType type) {
  switch (type) {
    case AnswerType::kChoice: return "choice";
    case AnswerType::kNumber: return "number";
    case AnswerType::kText: return "text";
    case AnswerType::kForecast: return "forecast";
    case AnswerType::kLabel: return "label";
  }
  return "text";
}

std::optional<AnswerType> parse_answer_type(std::string_view name) {
  for (AnswerType type : {AnswerType::kChoice, AnswerType::kNumber, AnswerType::kText, AnswerType::kForecast,
                          AnswerType::kLabel}) {
    if (name == answer_type_name(type)) return type;
  }
  return std::nullopt;
}

std::string option_letter(std::size_t index) {
  // A..Z, then AA, AB, ... for unusually long option lists.
  std::string out;
  std::size_t n = index + 1;
  while (n > 0) {
    --n;
    out.insert(out.begin(), static_cast<char>('A' + n % 26));
    n /= 26;
  }
  return out;
}

std::optional<std::size_t> option_index(std::string_view label) {
  // Bijective base 26: A = 1 ... Z = 26, AA = 27, ...; bounded so that it cannot overflow.
  if (label.empty() || label.size() > 8) return std::nullopt;
  std::size_t n = 0;
  for (char c : label) {
    if (c < 'A' || c > 'Z') return std::nullopt;
    n = n * 26 + static_cast<std::size_t>(c - 'A' + 1);
  }
  return n - 1;
}

}  // namespace parley
