#pragma once
// Internal to parley_data. load_dataset (dataset.cc) reads the file and hands its text to one
// format reader; every reader fills a DatasetBuilder, which owns the rules shared by all
// formats: duplicate ids, the `limit`, and issues for skipped rows. Not thread-safe; one per load.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "parley/dataset.h"
#include "parley/result.h"

namespace parley::data {

class DatasetBuilder {
 public:
  explicit DatasetBuilder(std::optional<std::size_t> limit) : limit_(limit) {}

  // True once `limit` tasks are kept; readers stop reading then.
  bool full() const { return limit_ && dataset_.tasks.size() >= *limit_; }
  // Keeps the task unless its id was already used (then records an issue instead).
  void add(Task task, int line);
  void issue(int line, std::string message);
  Dataset take() { return std::move(dataset_); }

 private:
  std::optional<std::size_t> limit_;
  Dataset dataset_;
  std::unordered_map<std::string, int> line_of_id_;
};

// Label tasks (answer_type "label") take `labels` (may be null: labels compared as written).
void read_parley_jsonl(std::string_view text, const std::shared_ptr<const LabelSet>& labels, DatasetBuilder& out);
// One parley JSONL row whose answer may be absent (task_from_json, dataset.h); its id defaults to "line-1".
Result<Task> task_from_json_row(std::string_view text);
// The loop shared by the JSONL formats: each non-blank line is parsed as JSON and handed to
// `to_task` with its line number; invalid JSON and rejected rows become issues.
void read_json_rows(std::string_view text, DatasetBuilder& out,
                    const std::function<Result<Task>(const nlohmann::json& row, int line)>& to_task);
void read_gsm8k(std::string_view text, DatasetBuilder& out);
// Task ids are "<id_prefix>-<row>", row counting data rows from 1.
void read_mmlu_csv(std::string_view text, std::string_view id_prefix, DatasetBuilder& out);

// Text helpers shared by the readers.

struct NumberedLine {
  int line = 0;  // 1-based
  std::string_view text;
};

// Non-blank lines of a JSONL file, without a trailing '\r' or a leading UTF-8 BOM.
std::vector<NumberedLine> non_blank_lines(std::string_view text);

std::string_view trim(std::string_view text);

// A plain decimal number: optional sign, digits (commas allowed between digits), optional
// fraction and exponent, surrounding whitespace ignored. "1,234.5" → 1234.5; "5 apples" → none.
std::optional<double> parse_plain_number(std::string_view text);

}  // namespace parley::data
