// parse_confidence. Two statement forms, the last valid one in the text wins:
//   "confidence" [filler words/punctuation] number   ("Confidence level: 9/10", "(confidence 85)")
//   number "%" ("confident" | "confidence" | "sure" | "certain")   ("I am 90% confident")
// Values: "80%" is 0.8, "9/10" and "7 out of 10" are ratios, a plain value > 1 is a
// percentage when it is at most 100. Anything outside [0, 1] is no statement.

#include <string_view>

#include "answer/number_scan.h"
#include "answer/scan.h"
#include "parley/answer.h"

namespace parley {
namespace {

using answer_scan::at;
using answer_scan::matches_at;
using answer_scan::NumberToken;
using answer_scan::word_at;

constexpr std::string_view kFillers[] = {"level", "score", "rating", "is", "of",
                                         "about", "around", "approximately", "roughly", "at"};
constexpr std::string_view kDashes[] = {"\xE2\x80\x93", "\xE2\x80\x94"};  // en and em dash

std::optional<double> as_probability(std::string_view text, const NumberToken& token) {
  double value = token.value;
  std::size_t j = token.end;
  while (answer_scan::is_space(at(text, j))) ++j;
  if (token.percent) {
    value /= 100.0;
  } else if (!token.fraction && word_at(text, j, "out of")) {
    j += 6;
    while (answer_scan::is_space(at(text, j))) ++j;
    const auto scale = answer_scan::read_number(text, j);
    if (!scale || scale->value <= 0.0) return std::nullopt;
    value /= scale->value;
  } else if (!token.fraction && value > 1.0) {
    if (value > 100.0) return std::nullopt;
    value /= 100.0;
  }
  if (!(value >= 0.0 && value <= 1.0)) return std::nullopt;
  return value;
}

// After the word "confidence" at `j`: the number it introduces, if any.
std::optional<NumberToken> number_after_confidence(std::string_view text, std::size_t j) {
  for (int steps = 0; steps < 8; ++steps) {
    const std::size_t before = j;
    while (j < text.size() && std::string_view(" \t:=*_(~[").find(text[j]) != std::string_view::npos) ++j;
    if (at(text, j) == '-' && !answer_scan::is_digit(at(text, j + 1))) ++j;
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
  auto token = answer_scan::read_number(text, j);
  // "Confidence (0-100): 85" echoes the scale; a range is not a value.
  if (token && at(text, token->end) == '-' && answer_scan::is_digit(at(text, token->end + 1))) return std::nullopt;
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
         (answer_scan::is_digit(text[begin - 1]) || text[begin - 1] == '.' || text[begin - 1] == ',')) {
    --begin;
  }
  if (begin > 0 && (text[begin - 1] == '-' || text[begin - 1] == '+')) --begin;
  if (begin > 0 && answer_scan::is_alnum(text[begin - 1])) return std::nullopt;  // "x90%"
  auto token = answer_scan::read_number(text, begin);
  if (!token || !token->percent || token->end != percent + 1) return std::nullopt;
  return token;
}

}  // namespace

std::optional<double> parse_confidence(std::string_view text) {
  std::optional<double> result;
  std::size_t result_at = 0;
  auto consider = [&](std::size_t position, std::optional<double> value) {
    if (value && (!result || position >= result_at)) {
      result = value;
      result_at = position;
    }
  };
  for (std::size_t i = answer_scan::find_ci(text, "confidence"); i != std::string_view::npos;
       i = answer_scan::find_ci(text, "confidence", i + 1)) {
    if (!word_at(text, i, "confidence")) continue;
    if (auto token = number_after_confidence(text, i + 10)) consider(i, as_probability(text, *token));
  }
  // "90% confident": look only around '%' signs, which are rare, rather than at every number.
  for (std::size_t percent = text.find('%'); percent != std::string_view::npos; percent = text.find('%', percent + 1)) {
    std::size_t j = percent + 1;
    while (answer_scan::is_space(at(text, j))) ++j;
    if (!matches_at(text, j, "confiden") && !word_at(text, j, "sure") && !word_at(text, j, "certain")) continue;
    if (auto token = percentage_ending_at(text, percent)) consider(token->begin, as_probability(text, *token));
  }
  return result;
}

}  // namespace parley
