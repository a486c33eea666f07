// MMLU-style CSV: question, A, B, C, D, answer letter; an optional header row
// "Question,A,B,C,D,Answer" (any case) is skipped. Ids are "<file stem>-<row>", rows counted
// from 1 over data rows (malformed ones included, so ids stay put when a row is fixed).

#include <algorithm>
#include <array>
#include <cctype>

#include "data/csv.h"
#include "data/readers.h"
#include "parley/result.h"

namespace parley::data {
namespace {

constexpr std::size_t kColumns = 6;

std::string upper(std::string_view text) {
  std::string out(trim(text));
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool is_header(const CsvRecord& record) {
  static constexpr std::array<std::string_view, kColumns> kHeader = {"QUESTION", "A", "B", "C", "D", "ANSWER"};
  if (record.fields.size() != kColumns) return false;
  for (std::size_t i = 0; i < kColumns; ++i) {
    if (upper(record.fields[i]) != kHeader[i]) return false;
  }
  return true;
}

Result<Task> mmlu_task(const CsvRecord& record) {
  if (!record.error.empty()) return Error{record.error};
  if (record.fields.size() != kColumns) {
    return Error{"expected 6 columns (question, A, B, C, D, answer), found " + std::to_string(record.fields.size())};
  }
  Task task;
  task.question = std::string(trim(record.fields[0]));
  if (task.question.empty()) return Error{"question is empty"};
  for (std::size_t i = 1; i <= 4; ++i) task.options.emplace_back(trim(record.fields[i]));
  task.answer_type = AnswerType::kChoice;
  task.answer = upper(record.fields[5]);
  if (task.answer.size() != 1 || task.answer[0] < 'A' || task.answer[0] > 'D') {
    return Error{"answer '" + std::string(trim(record.fields[5])) + "' is not a letter A-D"};
  }
  return task;
}

}  // namespace

void read_mmlu_csv(std::string_view text, std::string_view id_prefix, DatasetBuilder& out) {
  const std::vector<CsvRecord> records = parse_csv(text);
  int row = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (out.full()) return;
    if (i == 0 && is_header(records[i])) continue;
    ++row;
    auto task = mmlu_task(records[i]);
    if (!task) {
      out.issue(records[i].line, task.error().message);
      continue;
    }
    task->id = std::string(id_prefix) + "-" + std::to_string(row);
    out.add(std::move(*task), records[i].line);
  }
}

}  // namespace parley::data
