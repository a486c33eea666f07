#include "answer/statements.h"

#include <algorithm>
#include <array>

#include "answer/confidence_scan.h"
#include "answer/scan.h"

namespace parley::answer_scan {
namespace {

constexpr std::string_view kVerbs[] = {"is", "remains", "stays", "would be", "will be", "should be", "must be"};
// Choice tasks only: first-person picks whose object is the answer ("I choose option B").
constexpr std::string_view kPickPhrases[] = {"i choose", "i pick", "i select", "i'll go with", "i will go with",
                                             "i'd go with", "i would go with"};
constexpr std::string_view kEmDash = "\xE2\x80\x94";
// A stated answer is short; the cap keeps many markers on one huge line linear.
constexpr std::size_t kMaxPayload = 1000;

std::size_t skip_any(std::string_view s, std::size_t i, std::string_view chars) {
  while (i < s.size() && chars.find(s[i]) != std::string_view::npos) ++i;
  return i;
}

std::size_t capped_line_end(std::string_view text, std::size_t pos) {
  const std::size_t limit = std::min(text.size(), pos + kMaxPayload);
  while (pos < limit && text[pos] != '\n') ++pos;
  return pos;
}

// Rest of the line from `from`; when that is blank, the next non-empty line ("Answer:\n\nB"),
// unless that line is the confidence.
std::string_view payload_from(std::string_view text, std::size_t from) {
  const std::size_t end = capped_line_end(text, from);
  const std::string_view rest = text.substr(from, end - from);
  if (!trim_markup(rest).empty()) return rest;
  for (std::size_t pos = end + 1; pos < text.size();) {
    const std::size_t next_end = capped_line_end(text, pos);
    const std::string_view line = text.substr(pos, next_end - pos);
    if (!trim_markup(line).empty()) return is_confidence_line(line) ? std::string_view{} : line;
    pos = next_end + 1;
  }
  return rest;
}

// True when only punctuation, or the word "final", precedes `pos` on its line ("## Answer").
// Walks back only to the previous word, so many markers on one line stay linear.
bool leads_line(std::string_view text, std::size_t pos) {
  auto skip_back = [&](std::size_t p) {
    while (p > 0 && text[p - 1] != '\n' && !is_alnum(text[p - 1])) --p;
    return p;
  };
  std::size_t p = skip_back(pos);
  if (p >= 5 && word_at(text, p - 5, "final")) p = skip_back(p - 5);
  return p == 0 || text[p - 1] == '\n';
}

// After a marker word ending at `j`: where the payload starts, or npos when the word is used
// in passing ("the answer depends on ...").
std::size_t after_marker(std::string_view text, std::size_t marker, std::size_t j, bool allow_line_lead) {
  j = skip_any(text, j, " \t*_");
  const char c = at(text, j);
  if (c == ':' || c == '=') return j + 1;
  if (c == '-' && is_space(at(text, j + 1))) return j + 1;
  if (matches_at(text, j, kEmDash)) return j + kEmDash.size();
  for (std::string_view verb : kVerbs) {
    if (word_at(text, j, verb)) return j + verb.size();
  }
  if (allow_line_lead && leads_line(text, marker)) return j;
  return std::string_view::npos;
}

// "\boxed{...}" with `i` on the backslash; the payload is the brace content.
bool read_boxed(std::string_view text, std::size_t i, Statement& out) {
  if (!matches_at(text, i, "\\boxed")) return false;
  std::size_t j = skip_any(text, i + 6, " ");
  if (at(text, j) != '{') return false;
  const std::size_t open = j + 1;
  int depth = 1;
  const std::size_t limit = std::min(text.size(), open + kMaxPayload);
  for (j = open; j < limit; ++j) {
    if (text[j] == '{') ++depth;
    if (text[j] == '}' && --depth == 0) break;
  }
  // An unclosed box (a truncated reply) holds the rest of its line.
  const std::size_t close = j < limit ? j : capped_line_end(text, open);
  out = {i, text.substr(open, close - open)};
  return true;
}

// GSM8K "#### 72"; a Markdown heading "#### Step 2" is not a statement.
bool read_hashes(std::string_view text, std::size_t i, Statement& out, std::size_t& run_end) {
  run_end = skip_any(text, i, "#");
  if (run_end - i < 4) return false;
  const std::size_t j = skip_any(text, run_end, " \t");
  const char c = at(text, j);
  const bool numeric = is_digit(c) || c == '-' || c == '+' || c == '$' || c == '.' || c == '\\' ||
                       static_cast<unsigned char>(c) == 0xE2;
  if (!numeric) return false;
  out = {i, text.substr(j, capped_line_end(text, j) - j)};
  return true;
}

}  // namespace

std::vector<Statement> find_answer_statements(std::string_view text, bool choice_words) {
  // The bytes a statement can start with: '\\' (boxed), '#' (hashes), and the first letters of
  // the marker words, which must start a word; every other byte is passed over at once.
  enum : unsigned char { kBackslash = 1, kHash = 2, kAnswerWord = 4, kChoiceWord = 8 };
  static constexpr auto kStarts = [] {
    std::array<unsigned char, 256> starts{};
    starts['\\'] = kBackslash;
    starts['#'] = kHash;
    for (char c : {'a', 'A'}) starts[static_cast<unsigned char>(c)] = kAnswerWord;
    for (char c : {'i', 'I', 'o', 'O', 'c', 'C'}) starts[static_cast<unsigned char>(c)] = kChoiceWord;
    return starts;
  }();
  const unsigned char wanted = kBackslash | kHash | kAnswerWord | (choice_words ? kChoiceWord : 0);
  std::vector<Statement> statements;
  const char* bytes = text.data();  // a local, so the scan keeps it in a register
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char kind = kStarts[static_cast<unsigned char>(bytes[i])] & wanted;
    if (kind == 0) continue;
    Statement statement;
    if (kind == kBackslash) {
      if (read_boxed(text, i, statement)) statements.push_back(statement);
      continue;
    }
    if (kind == kHash) {
      std::size_t run_end = i;
      if (read_hashes(text, i, statement, run_end)) statements.push_back(statement);
      i = run_end - 1;
      continue;
    }
    if (i > 0 && is_alpha(text[i - 1])) continue;  // inside a word
    const char c = to_lower(text[i]);
    if (c == 'i') {
      for (std::string_view phrase : kPickPhrases) {
        if (word_at(text, i, phrase)) {
          statements.push_back({i, payload_from(text, i + phrase.size())});
          break;
        }
      }
    }
    std::size_t word_end = std::string_view::npos;
    bool line_lead = false;
    if (c == 'a' && word_at(text, i, "answer")) {
      word_end = i + 6;
      line_lead = true;
    } else if (c == 'o' && word_at(text, i, "option")) {
      word_end = i + 6;
    } else if (c == 'c' && word_at(text, i, "choice")) {
      word_end = i + 6;
    }
    if (word_end == std::string_view::npos) continue;
    std::size_t start = after_marker(text, i, word_end, line_lead);
    if (start == std::string_view::npos) continue;
    start = skip_any(text, start, " \t*_:");
    statements.push_back({i, payload_from(text, start)});
    i = word_end - 1;
  }
  return statements;
}

}  // namespace parley::answer_scan
