// normalize_text and free-text answer extraction.

#include <string>
#include <string_view>

#include "answer/confidence_scan.h"
#include "answer/hedges.h"
#include "answer/own_words.h"
#include "answer/scan.h"
#include "answer/statements.h"
#include "answer/text_answer.h"
#include "parley/answer.h"

namespace parley {
namespace {

using answer_scan::at;

bool is_ascii_punctuation(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

// Bytes of a common Unicode punctuation mark at `i` (dashes, curly quotes, bullet, ellipsis,
// guillemets), or 0. Other non-ASCII bytes are kept as parts of words ("café").
std::size_t unicode_punctuation_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(at(s, k)); };
  if (byte(i) == 0xE2 && byte(i + 1) == 0x80) {
    const unsigned char third = byte(i + 2);
    if ((third >= 0x90 && third <= 0x9F) || third == 0xA2 || third == 0xA6) return 3;
  }
  if (byte(i) == 0xC2 && (byte(i + 1) == 0xAB || byte(i + 1) == 0xBB)) return 2;
  return 0;
}

bool is_article(std::string_view word) { return word == "a" || word == "an" || word == "the"; }

}  // namespace

// SQuAD-style: punctuation is deleted rather than turned into spaces, so "U.S." and "US"
// and "1,000" and "1000" compare equal.
std::string normalize_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::string word;
  auto end_word = [&] {
    if (!word.empty() && !is_article(word)) {
      if (!out.empty()) out += ' ';
      out += word;
    }
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (answer_scan::is_space(c)) {
      end_word();
    } else if (static_cast<unsigned char>(c) == 0xC2 && at(text, i + 1) == '\xA0') {
      end_word();  // no-break space
      ++i;
    } else if (const std::size_t length = unicode_punctuation_length(text, i); length > 0) {
      i += length - 1;
    } else if (!is_ascii_punctuation(c)) {
      word += answer_scan::to_lower(c);
    }
  }
  end_word();
  return out;
}

namespace answer_scan {
namespace {

// Answers that say there is none.
constexpr std::string_view kNonAnswers[] = {"unknown", "unclear", "no answer", "none given"};

// "Paris (the capital since 1789)": a closing parenthetical remarks on the answer.
std::string_view without_trailing_remark(std::string_view s) {
  if (s.empty() || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i == 0 ? s : trim(s.substr(0, i));
  }
  return s;
}

std::string_view clean_text_answer(std::string_view s) {
  s = before_confidence(s);
  for (std::size_t before = s.size() + 1; s.size() != before;) {
    before = s.size();
    s = trim_markup(s);
    while (!s.empty() && std::string_view(":\"'").find(s.front()) != std::string_view::npos) s.remove_prefix(1);
    while (!s.empty() && std::string_view(".!\"'").find(s.back()) != std::string_view::npos) s.remove_suffix(1);
    for (std::string_view wrapper : {"\\text{", "\\textbf{", "\\mathrm{"}) {
      if (matches_at(s, 0, wrapper) && s.back() == '}') s = s.substr(wrapper.size(), s.size() - wrapper.size() - 1);
    }
    s = without_trailing_remark(s);
  }
  return s;
}

bool names_no_answer(std::string_view answer) {
  const std::string normalized = normalize_text(answer);
  for (std::string_view none : kNonAnswers) {
    if (normalized == none) return true;
  }
  if (answer.size() == 3 && matches_at(answer, 0, "n/a")) return true;
  return declares_no_answer(answer, Unanswerable::kIsAnAnswer) || is_bare_stance(answer);
}

bool intersects(const std::vector<Span>& spans, std::size_t begin, std::size_t end) {
  for (const Span& span : spans) {
    if (span.begin < end && span.end > begin) return true;
  }
  return false;
}

}  // namespace

// The last answer statement decides; one that declines ("Answer: I'm not sure") leaves the reply
// unparsed.
TextReading read_stated_answer(const OwnWords& own) {
  const auto statements = own.statements();
  for (auto it = statements.rbegin(); it != statements.rend(); ++it) {
    const std::string_view answer = clean_text_answer(it->payload);
    if (answer.empty()) continue;
    if (names_no_answer(answer)) return {TextReading::kDeclined, {}};
    return {TextReading::kFound, std::string(answer)};
  }
  return {TextReading::kNone, {}};
}

// The last line that is not a confidence, a question or someone else's statement; a line that
// declines or only takes a stance ("I disagree.") ends the search unparsed.
TextReading read_last_line_answer(const OwnWords& own) {
  const std::string_view s = own.text;
  std::vector<Span> lines;
  for (std::size_t start = 0; start <= s.size();) {
    std::size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    lines.push_back({start, end});
    start = end + 1;
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const std::string_view line = s.substr(it->begin, it->end - it->begin);
    const std::string_view answer = clean_text_answer(line);
    if (answer.empty() || is_confidence_line(line) || intersects(own.blanked, it->begin, it->end)) continue;
    if (names_no_answer(answer)) return {TextReading::kDeclined, {}};
    if (trim_markup(line).ends_with('?')) continue;
    return {TextReading::kFound, std::string(answer)};
  }
  return {TextReading::kNone, {}};
}

std::optional<std::string> parse_text_answer(std::string_view text) {
  const OwnWords own = own_words(text);
  TextReading reading = read_stated_answer(own);
  if (reading.kind == TextReading::kNone) reading = read_last_line_answer(own);
  if (reading.kind != TextReading::kFound) return std::nullopt;
  return std::move(reading.answer);
}

}  // namespace answer_scan
}  // namespace parley
