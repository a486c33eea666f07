// GSM8K's jsonl: {"question": ..., "answer": "<worked solution>\n#### 72"}. The gold is the
// number after the last "####", thousands commas removed; ids are "gsm8k-<line>".

#include <nlohmann/json.hpp>

#include "data/readers.h"
#include "parley/answer.h"
#include "parley/result.h"

namespace parley::data {
namespace {

using nlohmann::json;

Result<Task> gsm8k_task(const json& row) {
  if (!row.is_object()) return Error{"row is not a JSON object"};
  const auto question = row.find("question");
  if (question == row.end() || !question->is_string()) return Error{"missing question"};
  Task task;
  task.question = std::string(trim(question->get_ref<const std::string&>()));
  if (task.question.empty()) return Error{"question is empty"};
  const auto answer = row.find("answer");
  if (answer == row.end() || !answer->is_string()) return Error{"missing answer"};
  const std::string& solution = answer->get_ref<const std::string&>();
  const std::size_t marker = solution.rfind("####");
  if (marker == std::string::npos) return Error{"answer has no '#### <number>' line"};
  const auto gold = parse_plain_number(std::string_view(solution).substr(marker + 4));
  if (!gold) return Error{"the text after '####' is not a number"};
  task.answer = canonical_number(*gold);
  task.answer_type = AnswerType::kNumber;
  return task;
}

}  // namespace

void read_gsm8k(std::string_view text, DatasetBuilder& out) {
  read_json_rows(text, out, [](const json& row, int line) -> Result<Task> {
    auto task = gsm8k_task(row);
    if (task) task->id = "gsm8k-" + std::to_string(line);
    return task;
  });
}

}  // namespace parley::data
