// parse_confidence and the confidence statements it reads. Two statement forms, the last valid
// one in the text wins:
//   ("confidence" | "certainty") [filler words/punctuation] number
//       ("Confidence level: 9/10", "(confidence 85)", "Confidence: high (about 80%)")
//   number "%" ("confident" | "confidence" | "sure" | "certain")   ("I am 90% confident")
// Values: "80%" is 0.8, "9/10" and "7 out of 10" are ratios, a plain value > 1 is a
// percentage when it is at most 100. Anything outside [0, 1] is no statement.

#include <algorithm>
#include <string_view>

#include "answer/confidence_scan.h"
#include "answer/number_scan.h"
#include "answer/scan.h"
#include "parley/answer.h"

namespace parley {
namespace answer_scan {
namespace {

// Words that may stand between the label and its number, qualitative ones included: "Confidence
// level: high (9/10)" states 0.9.
constexpr std::string_view kFillers[] = {"level", "score",  "rating", "is",       "of",   "about",
                                         "around", "approximately", "roughly", "at", "high", "low",
                                         "medium", "moderate", "very",   "fairly",   "quite"};
constexpr std::string_view kLabels[] = {"confidence", "certainty"};
constexpr std::string_view kAdjectives[] = {"confident", "confidence", "sure", "certain"};
constexpr std::string_view kDashes[] = {"\xE2\x80\x93", "\xE2\x80\x94"};  // en and em dash

std::optional<double> as_probability(std::string_view text, const NumberToken& token, std::size_t& end) {
  double value = token.value;
  std::size_t j = token.end;
  end = token.end;
  while (is_space(at(text, j))) ++j;
  if (token.percent) {
    value /= 100.0;
  } else if (!token.fraction && word_at(text, j, "out of")) {
    j += 6;
    while (is_space(at(text, j))) ++j;
    const auto scale = read_number(text, j);
    if (!scale || scale->value <= 0.0) return std::nullopt;
    value /= scale->value;
    end = scale->end;
  } else if (!token.fraction && value > 1.0) {
    if (value > 100.0) return std::nullopt;
    value /= 100.0;
  }
  if (!(value >= 0.0 && value <= 1.0)) return std::nullopt;
  return value;
}

// After a label word at `j`: the number it introduces, if any.
std::optional<NumberToken> number_after_label(std::string_view text, std::size_t j) {
  for (int steps = 0; steps < 8; ++steps) {
    const std::size_t before = j;
    while (j < text.size() && std::string_view(" \t:=*_(~[,").find(text[j]) != std::string_view::npos) ++j;
    if (at(text, j) == '-' && !is_digit(at(text, j + 1))) ++j;
    for (std::string_view dash : kDashes) {
      if (matches_at(text, j, dash)) j += dash.size();
    }
    for (std::string_view filler : kFillers) {
      if (word_at(text, j, filler)) {
        j += filler.size();
        break;
      }
    }
    if (j == before) break;
  }
  auto token = read_number(text, j);
  // "Confidence (0-100): 85" echoes the scale; a range is not a value.
  if (token && at(text, token->end) == '-' && is_digit(at(text, token->end + 1))) return std::nullopt;
  return token;
}

// The percentage whose '%' is at `percent` ("90%", "90 %", "-5\\%"), found by walking back over
// its digits.
std::optional<NumberToken> percentage_ending_at(std::string_view text, std::size_t percent) {
  constexpr std::size_t kMaxDigits = 64;
  std::size_t begin = percent;
  if (begin > 0 && (text[begin - 1] == ' ' || text[begin - 1] == '\\')) --begin;
  const std::size_t digits_end = begin;
  while (begin > 0 && digits_end - begin < kMaxDigits &&
         (is_digit(text[begin - 1]) || text[begin - 1] == '.' || text[begin - 1] == ',')) {
    --begin;
  }
  if (begin > 0 && (text[begin - 1] == '-' || text[begin - 1] == '+')) --begin;
  if (begin > 0 && is_alnum(text[begin - 1])) return std::nullopt;  // "x90%"
  auto token = read_number(text, begin);
  if (!token || !token->percent || token->end != percent + 1) return std::nullopt;
  return token;
}

// Words around a confidence statement in a line that says nothing else ("I am about 95% certain
// of this."), and the ones that lead into a remark after an answer ("Paris (I'm about 90% sure)").
constexpr std::string_view kLineFillers[] = {"i",    "m",      "am",      "about",   "around", "roughly",
                                             "approximately", "fairly", "quite", "pretty", "very",
                                             "sure", "certain", "confident", "of", "this", "that", "it",
                                             "the", "answer", "my", "in", "at", "least", "only", "overall",
                                             "so", "and", "d", "say", "would", "feel", "with"};
constexpr std::string_view kLeadIns[] = {"i", "m", "am", "and", "but", "about", "around", "roughly", "approximately",
                                         "fairly", "quite", "pretty", "very", "with",   "at",      "least",
                                         "only",   "d",    "say"};

template <std::size_t N>
bool is_one_of(std::string_view word, const std::string_view (&words)[N]) {
  for (std::string_view w : words) {
    if (word.size() == w.size() && matches_at(word, 0, w)) return true;
  }
  return false;
}

// True when every word of `s` is one of `words` and it holds no digit.
template <std::size_t N>
bool only_words_of(std::string_view s, const std::string_view (&words)[N]) {
  for (std::size_t i = 0; i < s.size();) {
    if (is_digit(s[i])) return false;
    if (!is_alpha(s[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < s.size() && is_alpha(s[end])) ++end;
    if (!is_one_of(s.substr(i, end - i), words)) return false;
    i = end;
  }
  return true;
}

}  // namespace

std::vector<ConfidenceStatement> confidence_statements(std::string_view text) {
  std::vector<ConfidenceStatement> out;
  // Both labels start with 'c': one pass over the c's finds either.
  static_assert(kLabels[0][0] == 'c' && kLabels[1][0] == 'c');
  constexpr char kFirstLetters[] = {'c', 'C'};
  for (std::size_t i = find_byte_of(text, 0, kFirstLetters); i != std::string_view::npos;
       i = find_byte_of(text, i + 1, kFirstLetters)) {
    for (std::string_view label : kLabels) {
      if (!word_at(text, i, label)) continue;
      const auto token = number_after_label(text, i + label.size());
      if (!token) continue;
      std::size_t end = token->end;
      if (const auto value = as_probability(text, *token, end)) out.push_back({{i, end}, *value});
    }
  }
  // "90% confident": look only around '%' signs, which are rare, rather than at every number.
  for (std::size_t percent = text.find('%'); percent != std::string_view::npos; percent = text.find('%', percent + 1)) {
    std::size_t j = percent + 1;
    while (is_space(at(text, j))) ++j;
    std::size_t adjective_end = std::string_view::npos;
    for (std::string_view adjective : kAdjectives) {
      if (word_at(text, j, adjective)) adjective_end = j + adjective.size();
    }
    if (adjective_end == std::string_view::npos) continue;
    const auto token = percentage_ending_at(text, percent);
    if (!token) continue;
    std::size_t end = token->end;
    if (const auto value = as_probability(text, *token, end)) out.push_back({{token->begin, adjective_end}, *value});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.span.begin < b.span.begin; });
  return out;
}

bool is_confidence_line(std::string_view line) {
  if (find_ci(line, "confiden") != std::string_view::npos || find_ci(line, "certainty") != std::string_view::npos) {
    return true;
  }
  const auto statements = confidence_statements(line);
  if (statements.empty()) return false;
  std::string rest(line);
  std::vector<Span> spans;
  for (const auto& statement : statements) spans.push_back(statement.span);
  blank_spans(rest, spans);
  return only_words_of(rest, kLineFillers);
}

std::string_view before_confidence(std::string_view s) {
  std::size_t cut = find_ci(s, "confiden");
  for (const auto& statement : confidence_statements(s)) cut = std::min(cut, statement.span.begin);
  if (cut == std::string_view::npos) return s;
  s = s.substr(0, cut);
  // The remark starts at the separator before it when only lead-in words stand between:
  // "Paris (I'm about 90% sure)" and "Paris, about 90% sure" give "Paris".
  std::size_t separator = s.find_last_of("(,;|");
  if (const std::size_t dash = s.rfind(kDashes[1]); dash != std::string_view::npos) {
    if (separator == std::string_view::npos || dash > separator) separator = dash;
  }
  const std::size_t remark = separator == std::string_view::npos ? 0 : separator;
  if (only_words_of(s.substr(remark), kLeadIns)) s = s.substr(0, remark);
  while (!s.empty() && (is_space(s.back()) || std::string_view("([,;-|*_").find(s.back()) != std::string_view::npos)) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace answer_scan

std::optional<double> parse_confidence(std::string_view text) {
  const auto statements = answer_scan::confidence_statements(answer_scan::visible_reply(text));
  if (statements.empty()) return std::nullopt;
  return statements.back().value;
}

}  // namespace parley
