// parley's own JSONL task format: one object per line with question, answer and optional
// id, options, answer_type and difficulty (docs/formats.md, "Task files"). Each row is turned
// into a Task or into one issue naming what is wrong with it.

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "data/readers.h"
#include "parley/answer.h"
#include "parley/labels.h"
#include "parley/result.h"

namespace parley::data {
namespace {

using nlohmann::json;

// A present, non-null field, or nullptr.
const json* field(const json& row, const char* name) {
  const auto it = row.find(name);
  return it == row.end() || it->is_null() ? nullptr : &*it;
}

std::string in_quotes(std::string_view text) { return "'" + std::string(text.substr(0, 60)) + "'"; }

std::string number_text(const json& value) {
  if (value.is_number_integer()) return value.dump();
  return canonical_number(value.get<double>());
}

Result<std::string> read_id(const json& row, int line) {
  const json* id = field(row, "id");
  if (id == nullptr) return "line-" + std::to_string(line);
  if (id->is_number()) return number_text(*id);
  if (!id->is_string()) return Error{"id must be a string or a number"};
  std::string text(trim(id->get_ref<const std::string&>()));
  if (text.empty()) return Error{"id is empty"};
  return text;
}

Result<std::vector<std::string>> read_options(const json& row) {
  std::vector<std::string> options;
  const json* list = field(row, "options");
  if (list == nullptr) return options;
  if (!list->is_array()) return Error{"options must be an array of strings"};
  for (const json& option : *list) {
    if (option.is_string()) {
      options.emplace_back(trim(option.get_ref<const std::string&>()));
    } else if (option.is_number()) {
      options.push_back(number_text(option));
    } else {
      return Error{"options must be an array of strings"};
    }
  }
  if (options.size() < 2) return Error{"options must list at least 2 choices"};
  return options;
}

// The declared answer_type, else choice with options, number for a plain number, text otherwise.
Result<AnswerType> read_answer_type(const json& row, const json& answer, bool has_options) {
  if (const json* declared = field(row, "answer_type")) {
    const std::string name = declared->is_string() ? declared->get<std::string>() : declared->dump();
    if (name == "choice") return AnswerType::kChoice;
    if (name == "number") return AnswerType::kNumber;
    if (name == "text") return AnswerType::kText;
    if (name == "forecast") return AnswerType::kForecast;
    if (name == "label") return AnswerType::kLabel;
    return Error{"unknown answer_type " + in_quotes(name) + " (choice|number|text|forecast|label)"};
  }
  if (has_options) return AnswerType::kChoice;
  if (answer.is_number()) return AnswerType::kNumber;
  if (answer.is_string() && parse_plain_number(answer.get_ref<const std::string&>())) return AnswerType::kNumber;
  return AnswerType::kText;
}

// A letter ("B", "b"), a 0-based option index (1), or the exact text of an option.
Result<std::string> choice_answer(const json& answer, const std::vector<std::string>& options) {
  const std::string count = std::to_string(options.size()) + " options";
  if (answer.is_number()) {
    const double index = answer.get<double>();
    if (index != std::floor(index) || index < 0 || index >= static_cast<double>(options.size())) {
      return Error{"answer index " + answer.dump() + " out of range (0-based, " + count + ")"};
    }
    return option_letter(static_cast<std::size_t>(index));
  }
  if (!answer.is_string()) return Error{"answer must be an option letter, index or text"};
  const std::string_view text = trim(answer.get_ref<const std::string&>());
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (upper == option_letter(i)) return option_letter(i);
  }
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (text == options[i]) return option_letter(i);
  }
  if (text.size() == 1 && std::isalpha(static_cast<unsigned char>(text[0]))) {
    return Error{"answer letter " + upper + " out of range (" + count + ")"};
  }
  return Error{"answer " + in_quotes(text) + " is not an option letter, index or option text"};
}

Result<std::string> number_answer(const json& answer) {
  if (answer.is_number()) return canonical_number(answer.get<double>());
  if (answer.is_string()) {
    if (auto value = parse_plain_number(answer.get_ref<const std::string&>())) return canonical_number(*value);
    return Error{"answer " + in_quotes(answer.get_ref<const std::string&>()) + " is not a number"};
  }
  return Error{"answer must be a number or a numeric string"};
}

Result<std::string> text_answer(const json& answer) {
  if (answer.is_number()) return number_text(answer);
  if (!answer.is_string()) return Error{"answer must be a string"};
  std::string text(trim(answer.get_ref<const std::string&>()));
  if (text.empty()) return Error{"answer is empty"};
  return text;
}

// A task's own evidence: [{"id": "s1", "text": "..."}, ...] with unique, non-empty ids (a
// number is its text) and non-empty texts.
Result<std::vector<EvidenceDocument>> read_documents(const json& list) {
  if (!list.is_array()) return Error{"documents must be an array of {\"id\", \"text\"} objects"};
  std::vector<EvidenceDocument> documents;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& entry = list[i];
    const std::string where = "documents[" + std::to_string(i) + "]";
    if (!entry.is_object()) return Error{where + " must be an object with id and text"};
    const json* id = field(entry, "id");
    std::string id_text;
    if (id != nullptr && id->is_number_integer()) id_text = id->dump();
    else if (id != nullptr && id->is_string()) id_text = std::string(trim(id->get_ref<const std::string&>()));
    if (id_text.empty()) return Error{where + " needs an id (a non-empty string or an integer)"};
    const json* text = field(entry, "text");
    if (text == nullptr || !text->is_string() || trim(text->get_ref<const std::string&>()).empty())
      return Error{where + " needs a non-empty text"};
    for (const EvidenceDocument& earlier : documents) {
      if (earlier.id == id_text) return Error{where + ": duplicate document id " + in_quotes(id_text)};
    }
    documents.push_back({std::move(id_text), std::string(trim(text->get_ref<const std::string&>()))});
  }
  return documents;
}

// A label of the dataset's set, named by itself or a synonym, stored canonically; without a set,
// the label as written (compared by label_key).
Result<std::string> label_answer(const json& answer, const LabelSet* labels) {
  auto text = text_answer(answer);
  if (!text || labels == nullptr) return text;
  if (auto label = labels->canonical(*text)) return *label;
  return Error{"answer " + in_quotes(*text) + " is not one of the " + std::to_string(labels->size()) +
               " labels of dataset.labels (nor a synonym of one)"};
}

enum class Gold { kRequired, kOptional };

Result<Task> finish_task(Task task, const json& row);

Result<Task> task_from_row(const json& row, int line, const std::shared_ptr<const LabelSet>& labels,
                           Gold gold_rule = Gold::kRequired) {
  if (!row.is_object()) return Error{"row is not a JSON object"};
  Task task;

  auto id = read_id(row, line);
  if (!id) return id.error();
  task.id = std::move(*id);

  const json* question = field(row, "question");
  if (question == nullptr) return Error{"missing question"};
  if (!question->is_string()) return Error{"question must be a string"};
  task.question = std::string(trim(question->get_ref<const std::string&>()));
  if (task.question.empty()) return Error{"question is empty"};

  auto options = read_options(row);
  if (!options) return options.error();
  task.options = std::move(*options);

  const json* answer = field(row, "answer");
  if (answer == nullptr && gold_rule == Gold::kRequired) return Error{"missing answer"};
  auto type = read_answer_type(row, answer != nullptr ? *answer : json(nullptr), !task.options.empty());
  if (!type) return type.error();
  task.answer_type = *type;
  if (task.answer_type == AnswerType::kChoice && task.options.empty()) return Error{"answer_type choice needs options"};
  if (task.answer_type == AnswerType::kLabel && answer == nullptr) task.labels = labels;
  if (answer == nullptr) return finish_task(std::move(task), row);

  Result<std::string> gold = Error{};
  switch (task.answer_type) {
    case AnswerType::kChoice:
      if (task.options.empty()) return Error{"answer_type choice needs options"};
      gold = choice_answer(*answer, task.options);
      break;
    case AnswerType::kNumber:
    case AnswerType::kForecast: gold = number_answer(*answer); break;
    case AnswerType::kText: gold = text_answer(*answer); break;
    case AnswerType::kLabel:
      gold = label_answer(*answer, labels.get());
      task.labels = labels;
      break;
  }
  if (!gold) return gold.error();
  task.answer = std::move(*gold);
  return finish_task(std::move(task), row);
}

// The optional fields after the answer: difficulty, documents, tolerance.
Result<Task> finish_task(Task task, const json& row) {
  if (const json* difficulty = field(row, "difficulty")) {
    if (!difficulty->is_number() || !(difficulty->get<double>() >= 0.0 && difficulty->get<double>() <= 1.0)) {
      return Error{"difficulty must be a number in [0, 1]"};
    }
    task.difficulty = difficulty->get<double>();
  }
  if (const json* documents = field(row, "documents")) {
    auto read = read_documents(*documents);
    if (!read) return read.error();
    task.documents = std::move(*read);
  }
  if (const json* tolerance = field(row, "tolerance")) {
    if (task.answer_type != AnswerType::kNumber && task.answer_type != AnswerType::kForecast) {
      return Error{"tolerance applies to number and forecast answers only"};
    }
    if (!tolerance->is_number() || !(tolerance->get<double>() >= 0.0)) return Error{"tolerance must be a number >= 0"};
    task.tolerance = tolerance->get<double>();
  }
  return task;
}

// The text of a top-level "id" written as a number that is not an exact integer of JSON's
// integer types ("123456789012345678901234567890", "1e3"): a double would mangle it, and two
// long ids could become one. Read with nlohmann's SAX interface, which passes a float's text.
class RawFloatId final : public nlohmann::json_sax<json> {
 public:
  std::optional<std::string> text;

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t) override { return scalar(); }
  bool number_float(number_float_t, const string_t& raw) override {
    if (depth_ == 1 && id_value_) text = raw;
    return scalar();
  }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t& name) override {
    id_value_ = depth_ == 1 && name == "id";
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool scalar() {
    if (depth_ == 1) id_value_ = false;
    return true;
  }
  bool open() {
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return scalar();
  }
  int depth_ = 0;
  bool id_value_ = false;
};

}  // namespace

void read_json_rows(std::string_view text, DatasetBuilder& out,
                    const std::function<Result<Task>(const json& row, int line)>& to_task) {
  for (const NumberedLine& line : non_blank_lines(text)) {
    if (out.full()) return;
    json row = json::parse(line.text.begin(), line.text.end(), nullptr, /*allow_exceptions=*/false);
    if (row.is_discarded()) {
      out.issue(line.line, "not valid JSON");
      continue;
    }
    if (const auto id = row.find("id"); row.is_object() && id != row.end() && id->is_number_float()) {
      RawFloatId raw;
      json::sax_parse(line.text.begin(), line.text.end(), &raw);
      if (raw.text) *id = *raw.text;  // the id as written
    }
    auto task = to_task(row, line.line);
    if (!task) {
      out.issue(line.line, task.error().message);
      continue;
    }
    out.add(std::move(*task), line.line);
  }
}

Result<Task> task_from_json_row(std::string_view text) {
  const json row = json::parse(text, nullptr, false);
  if (row.is_discarded()) return Error{"not valid JSON"};
  return task_from_row(row, 1, nullptr, Gold::kOptional);
}

void read_parley_jsonl(std::string_view text, const std::shared_ptr<const LabelSet>& labels, DatasetBuilder& out) {
  read_json_rows(text, out, [&labels](const json& row, int line) { return task_from_row(row, line, labels); });
}

}  // namespace parley::data
