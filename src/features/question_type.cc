// Question type by the question's first word (iMAD App. A.2, Table 5: qtype_what ... qtype_other).
// Questions often open with context ("A 45-year-old man ... What is the most likely diagnosis?"),
// so the word read is the first of the last sentence that ends with '?'.

#include <string>
#include <string_view>
#include <vector>

#include "features/tokens.h"
#include "parley/features.h"

namespace parley {
namespace {

bool ends_with_question_mark(std::string_view sentence) {
  while (!sentence.empty()) {
    const char c = sentence.back();
    if (c == '?') return true;
    // Closing quotes, brackets and markdown emphasis may follow the '?'.
    if (c == '"' || c == '\'' || c == ')' || c == ']' || c == '*' || c == '_' || c == ' ') {
      sentence.remove_suffix(1);
    } else if (sentence.ends_with("\xE2\x80\x9D") || sentence.ends_with("\xE2\x80\x99")) {  // ” ’
      sentence.remove_suffix(3);
    } else {
      return false;
    }
  }
  return false;
}

// The first word of `text`, lower case, cut at an apostrophe ("What's" -> "what"). A leading
// one-word label ("Question:", "Q:") is skipped.
std::string first_word(std::string_view text) {
  const std::vector<features::TokenSpan> spans = features::token_spans(text);
  std::size_t i = 0;
  const auto token = [&](std::size_t k) {
    return text.substr(spans[k].begin, spans[k].end - spans[k].begin);
  };
  while (i < spans.size() && !features::is_word(token(i))) ++i;
  if (i + 2 < spans.size() && token(i + 1) == ":") i += 2;
  while (i < spans.size() && !features::is_word(token(i))) ++i;
  if (i == spans.size()) return "";
  std::string word = features::fold_token(token(i));
  const std::size_t apostrophe = word.find('\'');
  if (apostrophe != std::string::npos) word.resize(apostrophe);
  return word;
}

}  // namespace

std::string question_type(std::string_view question) {
  const std::vector<std::string> parts = sentences(question);
  std::string word;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (ends_with_question_mark(*it)) {
      word = first_word(*it);
      break;
    }
  }
  if (word.empty() && !parts.empty()) word = first_word(parts.front());
  for (const char* type : {"what", "where", "why", "how", "when", "who", "is", "are", "does", "do"}) {
    if (word == type) return word;
  }
  return "other";
}

}  // namespace parley
