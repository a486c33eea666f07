// load_dataset: reads the file, picks the format (explicitly given or guessed from the name
// and the first row) and hands the text to that format's reader.

#include <cctype>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "data/readers.h"
#include "parley/dataset.h"

namespace parley {
namespace {

Result<std::string> read_file(const std::filesystem::path& path) {
  Result<std::string> text = read_input_file(path);
  if (!text) return Error{path.string() + ": " + text.error().message};
  return text;
}

bool has_csv_extension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension == ".csv";
}

// GSM8K rows carry a worked solution ending in "#### n" and no answer_type.
bool looks_like_gsm8k(std::string_view text) {
  for (const data::NumberedLine& line : data::non_blank_lines(text)) {
    const auto row = nlohmann::json::parse(line.text.begin(), line.text.end(), nullptr, false);
    if (!row.is_object()) continue;  // judge by the first row that is a JSON object
    const auto answer = row.find("answer");
    return row.contains("question") && answer != row.end() && answer->is_string() &&
           answer->get_ref<const std::string&>().find("####") != std::string::npos && !row.contains("answer_type");
  }
  return false;
}

DatasetFormat detect_format(const std::filesystem::path& path, std::string_view text) {
  if (has_csv_extension(path)) return DatasetFormat::kMmluCsv;
  return looks_like_gsm8k(text) ? DatasetFormat::kGsm8k : DatasetFormat::kJsonl;
}

std::string no_task_error(const std::filesystem::path& path, const Dataset& dataset) {
  std::string message = path.string() + ": no valid task";
  if (dataset.issues.empty()) return message + " (the file is empty)";
  const DatasetIssue& first = dataset.issues.front();
  return message + " (" + std::to_string(dataset.issues.size()) + " malformed rows; first, line " +
         std::to_string(first.line) + ": " + first.message + ")";
}

}  // namespace

Result<Dataset> load_dataset(const std::filesystem::path& path, DatasetFormat format,
                             std::optional<std::size_t> limit, std::shared_ptr<const LabelSet> labels) {
  auto text = read_file(path);
  if (!text) return text.error();
  if (format == DatasetFormat::kAuto) format = detect_format(path, *text);

  data::DatasetBuilder builder(limit);
  switch (format) {
    case DatasetFormat::kMmluCsv: data::read_mmlu_csv(*text, path.stem().string(), builder); break;
    case DatasetFormat::kGsm8k: data::read_gsm8k(*text, builder); break;
    case DatasetFormat::kJsonl:
    case DatasetFormat::kAuto: data::read_parley_jsonl(*text, labels, builder); break;
  }
  Dataset dataset = builder.take();
  if (dataset.tasks.empty()) return Error{no_task_error(path, dataset)};
  return dataset;
}

std::optional<DatasetFormat> parse_dataset_format(std::string_view name) {
  if (name == "auto") return DatasetFormat::kAuto;
  if (name == "jsonl") return DatasetFormat::kJsonl;
  if (name == "gsm8k") return DatasetFormat::kGsm8k;
  if (name == "mmlu_csv") return DatasetFormat::kMmluCsv;
  return std::nullopt;
}

Result<Task> task_from_json(std::string_view row) { return data::task_from_json_row(row); }

}  // namespace parley
