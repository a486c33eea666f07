// The JSONL evidence corpus: one document per non-blank line, {"id", "text", optional "title"}.
// Every row is checked; the first bad one fails the load, naming its line.

#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "core/files.h"
#include "evidence/corpus_jsonl.h"

namespace parley::evidence {
namespace {

using nlohmann::json;

constexpr std::string_view kWhitespace = " \t\r\n\f\v";

std::string_view trim(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(kWhitespace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kWhitespace) - begin + 1);
}

std::string in_quotes(std::string_view text) {
  constexpr std::size_t kShown = 60;
  return "'" + std::string(text.substr(0, kShown)) + (text.size() > kShown ? "...'" : "'");
}

// A present, non-null field, or nullptr.
const json* field(const json& row, const char* name) {
  const auto it = row.find(name);
  return it == row.end() || it->is_null() ? nullptr : &*it;
}

Result<std::string> read_id(const json& row) {
  const json* id = field(row, "id");
  if (id == nullptr) return Error{"missing id"};
  if (id->is_number_integer()) return id->dump();  // signed and unsigned alike
  if (!id->is_string()) return Error{"id must be a string or an integer"};
  const std::string_view text = trim(id->get_ref<const std::string&>());
  if (text.empty()) return Error{"id is empty"};
  return std::string(text);
}

Result<std::string> read_text(const json& row) {
  const json* text = field(row, "text");
  if (text == nullptr) return Error{"missing text"};
  if (!text->is_string()) return Error{"text must be a string"};
  const std::string_view body = trim(text->get_ref<const std::string&>());
  if (body.empty()) return Error{"text is empty"};

  const json* title = field(row, "title");
  if (title == nullptr) return std::string(body);
  if (!title->is_string()) return Error{"title must be a string"};
  const std::string_view heading = trim(title->get_ref<const std::string&>());
  if (heading.empty()) return std::string(body);
  return std::string(heading) + "\n" + std::string(body);
}

Result<EvidenceDocument> document_from_line(std::string_view line) {
  json row;
  try {
    row = json::parse(line);
  } catch (const json::parse_error& e) {
    return Error{"not valid JSON (at byte " + std::to_string(e.byte) + ")"};
  }
  if (!row.is_object()) return Error{"row is not a JSON object"};
  auto id = read_id(row);
  if (!id) return id.error();
  auto text = read_text(row);
  if (!text) return text.error();
  return EvidenceDocument{std::move(*id), std::move(*text)};
}

}  // namespace

Result<std::vector<EvidenceDocument>> parse_evidence_jsonl(std::string_view text) {
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());

  std::vector<EvidenceDocument> documents;
  std::unordered_map<std::string, int> line_of_id;
  int number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (trim(line).empty()) continue;  // blank lines (and a lone "\r") are not rows

    const std::string where = "line " + std::to_string(number) + ": ";
    auto document = document_from_line(line);
    if (!document) return Error{where + document.error().message};
    const auto [first, inserted] = line_of_id.emplace(document->id, number);
    if (!inserted) {
      return Error{where + "duplicate id " + in_quotes(document->id) + " (first on line " +
                   std::to_string(first->second) + ")"};
    }
    documents.push_back(std::move(*document));
  }
  if (documents.empty()) return Error{"no documents"};
  return documents;
}

}  // namespace parley::evidence

namespace parley {

Result<std::vector<EvidenceDocument>> load_evidence_corpus(const std::filesystem::path& path) {
  Result<std::string> text = read_input_file(path);
  if (!text) return Error{path.string() + ": " + text.error().message};
  auto documents = evidence::parse_evidence_jsonl(*text);
  if (!documents) return Error{path.string() + ": " + documents.error().message};
  return documents;
}

}  // namespace parley
