#include "answer/statements.h"

#include <algorithm>
#include <bit>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Whether a statement can start at `i`: a '\\' (boxed), a '#' (hashes), or the first two letters
// of a marker word without case: "an" (answer) and, with choice words, "op" (option), "ch"
// (choice), "i " or "i'" (the first-person picks). Every byte the scan below acts on passes;
// most bytes of a reply do not. ('x' | 0x20 lowers exactly the two cases of a letter 'x'.)
bool may_start(std::string_view text, std::size_t i, bool choice_words) {
  const char c = text[i], next = at(text, i + 1);
  if (c == '\\' || c == '#') return true;
  const char lower = static_cast<char>(c | 0x20), lower_next = static_cast<char>(next | 0x20);
  if (lower == 'a') return lower_next == 'n';
  if (!choice_words) return false;
  return (lower == 'o' && lower_next == 'p') || (lower == 'c' && lower_next == 'h') ||
         (lower == 'i' && (next == ' ' || next == '\''));
}

// The first position at or after `from` where may_start holds, or npos. With SSE2 each 16-byte
// block is tested at once, pairing every byte with the one after it.
std::size_t next_candidate(std::string_view text, std::size_t from, bool choice_words) {
  std::size_t i = from;
#if defined(__SSE2__)
  const char* data = text.data();
  const auto equals = [](__m128i bytes, char c) { return _mm_cmpeq_epi8(bytes, _mm_set1_epi8(c)); };
  const __m128i case_bit = _mm_set1_epi8(0x20);
  for (; i + 17 <= text.size(); i += 16) {
    const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i + 1));
    const __m128i lower = _mm_or_si128(here, case_bit), lower_next = _mm_or_si128(next, case_bit);
    __m128i found = _mm_or_si128(_mm_or_si128(equals(here, '\\'), equals(here, '#')),
                                 _mm_and_si128(equals(lower, 'a'), equals(lower_next, 'n')));
    if (choice_words) {
      found = _mm_or_si128(found, _mm_and_si128(equals(lower, 'o'), equals(lower_next, 'p')));
      found = _mm_or_si128(found, _mm_and_si128(equals(lower, 'c'), equals(lower_next, 'h')));
      found = _mm_or_si128(
          found, _mm_and_si128(equals(lower, 'i'), _mm_or_si128(equals(next, ' '), equals(next, '\''))));
    }
    if (const int mask = _mm_movemask_epi8(found); mask != 0)
      return i + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < text.size(); ++i) {
    if (may_start(text, i, choice_words)) return i;
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<Statement> find_answer_statements(std::string_view text, bool choice_words) {
  std::vector<Statement> statements;
  statements.reserve(4);  // replies state their answer two or three times
  for (std::size_t i = next_candidate(text, 0, choice_words); i < text.size();
       i = next_candidate(text, i + 1, choice_words)) {
    Statement statement;
    if (text[i] == '\\') {
      if (read_boxed(text, i, statement)) statements.push_back(statement);
      continue;
    }
    if (text[i] == '#') {
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
