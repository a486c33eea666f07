// Numeric forecasts (protocols paper §2.3): "the number following the Impact: line is parsed if
// present; otherwise, the first signed percentage pattern in the response is parsed."
//   - The Impact line is a line whose label, after Markdown and a list bullet, is "Impact" (or
//     "Impact on <what>", or one of a few adjectives before it: "Expected impact") followed by
//     ':', as "**Impact:** +0.2%" and "**Impact**: 0%" are written; a heading "### Impact" takes
//     its value from the next non-empty line. The word "impact" elsewhere in prose is not the
//     line. When several lines qualify the last one holds the forecast (a correction supersedes,
//     as for answers); its number may be unsigned ("0%") and written with U+2212 as its minus,
//     and a value opening with "no change", "unchanged" or "no impact" is 0.
//   - The fallback is the first '+' / '-' / U+2212 sign, not glued to a letter or digit, followed
//     by a number and '%' ("+0.3%", "- 0.4 %").
// Reasoning-model scratchpads (<think>) are not read.
#include <string_view>
#include <vector>

#include "answer/number_scan.h"
#include "answer/scan.h"
#include "parley/answer.h"

namespace parley {
namespace {

using answer_scan::at;
using answer_scan::is_alnum;
using answer_scan::is_digit;
using answer_scan::matches_at;
using answer_scan::word_at;

constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";
constexpr std::string_view kLabelAdjectives[] = {"expected", "predicted", "estimated", "forecast", "forecasted",
                                                 "projected", "net",      "overall",   "final"};
// An Impact value written in words that means a change of zero ("Impact: no change (0.0%)").
constexpr std::string_view kNoChange[] = {"no change", "unchanged", "no impact"};
constexpr std::size_t kMaxLabelBytes = 60;  // "Impact on US core CPI next month"

bool is_markup(char c) { return c == ' ' || c == '\t' || c == '*' || c == '_' || c == '#' || c == '>' || c == '`'; }

std::size_t skip_markup(std::string_view s, std::size_t i) {
  while (i < s.size() && is_markup(s[i])) ++i;
  return i;
}

// Where the value of an Impact line starts, or npos when `line` is not one. A heading without a
// colon ("### Impact") returns line.size(): its value is on the next line.
std::size_t impact_value_start(std::string_view line) {
  std::size_t i = skip_markup(line, 0);
  if ((at(line, i) == '-' || at(line, i) == '+') && at(line, i + 1) == ' ') i = skip_markup(line, i + 1);
  for (std::string_view adjective : kLabelAdjectives) {
    if (word_at(line, i, adjective)) {
      i = skip_markup(line, i + adjective.size());
      break;
    }
  }
  if (!word_at(line, i, "impact")) return std::string_view::npos;
  const std::size_t label_end = i + 6;
  // The label runs to the first ':' ("Impact on core CPI:"), within a short span of one line.
  const std::size_t colon = line.find(':', label_end);
  if (colon != std::string_view::npos && colon - label_end <= kMaxLabelBytes) {
    const std::string_view between = line.substr(label_end, colon - label_end);
    if (between.find_first_of(".;!?") == std::string_view::npos) return colon + 1;
  }
  if (skip_markup(line, label_end) == line.size()) return line.size();
  return std::string_view::npos;
}

// The number at the start of `s` after Markdown: signed, unsigned, or with U+2212; "no change",
// "unchanged" and "no impact" are 0.
std::optional<double> leading_number(std::string_view s) {
  std::size_t i = skip_markup(s, 0);
  std::size_t sign_end = i;
  bool negative = false;
  if (at(s, i) == '+' || at(s, i) == '-') {
    negative = s[i] == '-';
    sign_end = i + 1;
  } else if (matches_at(s, i, kUnicodeMinus)) {
    negative = true;
    sign_end = i + kUnicodeMinus.size();
  }
  // "- 0.4%" is written with a space after the sign.
  const std::size_t digits = skip_markup(s, sign_end);
  auto token = answer_scan::read_number(s, digits);
  if (!token) {
    if (sign_end != i) return std::nullopt;
    for (std::string_view words : kNoChange) {
      if (word_at(s, i, words)) return 0.0;
    }
    return std::nullopt;
  }
  return negative ? -token->value : token->value;
}

std::optional<double> impact_line_value(std::string_view text) {
  // Every Impact line has the word (any case); most replies have no such line.
  if (answer_scan::find_ci(text, "impact") == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> lines;
  for (answer_scan::LineCursor cursor(text); cursor.next();) lines.push_back(cursor.line());
  for (std::size_t k = lines.size(); k-- > 0;) {
    const std::size_t start = impact_value_start(lines[k]);
    if (start == std::string_view::npos) continue;
    std::string_view value = lines[k].substr(start);
    if (answer_scan::trim_markup(value).empty()) {  // "### Impact" or "Impact:" then the value below
      for (std::size_t next = k + 1; next < lines.size(); ++next) {
        if (answer_scan::trim_markup(lines[next]).empty()) continue;
        value = lines[next];
        break;
      }
    }
    if (auto number = leading_number(value)) return number;
  }
  return std::nullopt;
}

std::optional<double> first_signed_percentage(std::string_view text) {
  static constexpr char kSignBytes[] = {'+', '-', kUnicodeMinus[0]};  // the bytes a sign starts with
  for (std::size_t i = answer_scan::find_byte_of(text, 0, kSignBytes); i != std::string_view::npos;
       i = answer_scan::find_byte_of(text, i + 1, kSignBytes)) {
    std::size_t sign_end = i + 1;
    bool negative = text[i] == '-';
    if (matches_at(text, i, kUnicodeMinus)) {
      negative = true;
      sign_end = i + kUnicodeMinus.size();
    } else if (text[i] != '+' && text[i] != '-') {
      continue;
    }
    if (i > 0 && is_alnum(text[i - 1])) continue;  // "2-3%" is a range
    std::size_t j = sign_end;
    while (j < text.size() && text[j] == ' ') ++j;
    const std::size_t digits = j;
    while (j < text.size() && (is_digit(text[j]) || text[j] == '.')) ++j;
    if (j == digits || !is_digit(text[digits])) continue;
    const auto token = answer_scan::read_number(text.substr(0, j), digits);
    std::size_t k = j;
    while (k < text.size() && text[k] == ' ') ++k;
    if (token && at(text, k) == '%') return negative ? -token->value : token->value;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_forecast(std::string_view text) {
  text = answer_scan::visible_reply(text);
  if (auto value = impact_line_value(text)) return value;
  return first_signed_percentage(text);
}

}  // namespace parley
