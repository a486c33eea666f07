#pragma once
// Dataset readers: parley's own JSONL task format, GSM8K's jsonl ("#### n" answers) and
// MMLU-style CSV (question, options A-D, answer letter). A malformed row is reported with its
// line number and skipped; it never aborts the load. Called once per run by the runner.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parley/labels.h"
#include "parley/result.h"
#include "parley/task.h"

namespace parley {

enum class DatasetFormat { kAuto, kJsonl, kGsm8k, kMmluCsv };

struct DatasetIssue {
  int line = 0;          // 1-based line (row start line for CSV)
  std::string message;
};

struct Dataset {
  std::vector<Task> tasks;
  std::vector<DatasetIssue> issues;  // malformed rows, skipped
};

// kAuto picks by content: .csv → MMLU CSV; JSONL rows with "question"+"answer" containing
// "####" and no "answer_type" → GSM8K; otherwise parley JSONL. `limit` keeps the first n
// valid tasks. Label tasks take `labels` (their gold must name one of them; null: labels are
// compared as written). An unreadable file, or a file with no valid task, is an Error.
Result<Dataset> load_dataset(const std::filesystem::path& path, DatasetFormat format = DatasetFormat::kAuto,
                             std::optional<std::size_t> limit = std::nullopt,
                             std::shared_ptr<const LabelSet> labels = nullptr);

// A label set file (`dataset.labels`, docs/formats.md "Label sets"): YAML with `labels` (each a
// name, or a map {name, synonyms}), optional `synonyms` (a map synonym → label) and `ordered`.
// Errors name the file and the entry.
Result<std::shared_ptr<const LabelSet>> load_label_set(const std::filesystem::path& path);

// One task written as a parley JSONL row (docs/formats.md, "Task files"), checked and made
// canonical as a dataset's row is, except that `answer` may be absent: a task asked without a
// reference answer (parley serve's requests), whose Task::answer is then "". Label tasks have no
// label set here.
Result<Task> task_from_json(std::string_view row);

std::optional<DatasetFormat> parse_dataset_format(std::string_view name);  // auto|jsonl|gsm8k|mmlu_csv

}  // namespace parley
