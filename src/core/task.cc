#include "parley/task.h"

namespace parley {

const char* answer_type_name(AnswerType type) {
  switch (type) {
    case AnswerType::kChoice: return "choice";
    case AnswerType::kNumber: return "number";
    case AnswerType::kText: return "text";
    case AnswerType::kForecast: return "forecast";
  }
  return "text";
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

}  // namespace parley
