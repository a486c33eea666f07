// parse_beliefs. The text is cut into entries at newlines, ',', ';' and " and "; an entry is
//   [bullet] label [":" | "=" | "-" | "("] number ["%"] [")" | "."]
// e.g. "Dengue 60%", "- A: 0.6", "2. Zika (15%)", "P(B) = 0.3". A distribution is a run of at
// least two consecutive entries (blank lines do not break it); the last run in the text wins.
// Labels naming the answer or the confidence are not beliefs.

#include <algorithm>
#include <string_view>
#include <vector>

#include "answer/beliefs.h"
#include "answer/number_scan.h"
#include "answer/scan.h"
#include "parley/answer.h"

namespace parley {
namespace {

using answer_scan::at;
using answer_scan::is_alnum;
using answer_scan::is_digit;
using answer_scan::is_space;
using answer_scan::trim_markup;

constexpr std::size_t kMaxLabelBytes = 60;
constexpr int kMaxLabelWords = 6;
// Probabilities that add up to much more than 1 are a list of unrelated numbers, not a
// distribution; a little over 1 is tolerated because models round.
constexpr double kMaxTotal = 1.2;
constexpr std::string_view kBullet = "\xE2\x80\xA2";  // U+2022
constexpr char kSeparators[] = {'\n', ',', ';'};  // between entries, as " and " is

std::string_view strip_label(std::string_view label) {
  while (!label.empty() && std::string_view(" \t\r:=-([*_~").find(label.back()) != std::string_view::npos) {
    label.remove_suffix(1);
  }
  label = trim_markup(label);
  if (label.substr(0, kBullet.size()) == kBullet) label = trim_markup(label.substr(kBullet.size()));
  if ((at(label, 0) == '-' || at(label, 0) == '+') && is_space(at(label, 1))) label = trim_markup(label.substr(1));
  // List numbering "2. " or "2) ".
  std::size_t digits = 0;
  while (is_digit(at(label, digits))) ++digits;
  if (digits > 0 && (at(label, digits) == '.' || at(label, digits) == ')') && is_space(at(label, digits + 1))) {
    label = trim_markup(label.substr(digits + 1));
  }
  // "Probabilities: A" names A.
  if (const std::size_t colon = label.rfind(':'); colon != std::string_view::npos) {
    label = trim_markup(label.substr(colon + 1));
  }
  // "P(A)" names A.
  if (label.size() > 3 && (label[0] == 'P' || label[0] == 'p') && label[1] == '(' && label.back() == ')') {
    label = trim_markup(label.substr(2, label.size() - 3));
  }
  return label;
}

bool acceptable_label(std::string_view label) {
  if (label.empty() || label.size() > kMaxLabelBytes) return false;
  bool has_alnum = false;
  int words = 0;
  for (std::size_t i = 0; i < label.size(); ++i) {
    has_alnum |= is_alnum(label[i]);
    if (!is_space(label[i]) && (i == 0 || is_space(label[i - 1]))) ++words;
  }
  if (!has_alnum || words > kMaxLabelWords) return false;
  if (answer_scan::find_ci(label, "confiden") != std::string_view::npos) return false;
  return !answer_scan::word_at(label, 0, "answer") && !answer_scan::word_at(label, 0, "final");
}

// What may follow an entry's number: " \t\r)]}*_.".
bool is_entry_tail(char c) {
  switch (c) {
    case ' ': case '\t': case '\r': case ')': case ']': case '}': case '*': case '_': case '.':
      return true;
    default:
      return false;
  }
}

// Cheap pre-check: an entry ends in its number ("60%", "0.6", "(15%)."), so prose that ends
// in a word is rejected before any number scanning.
bool ends_like_entry(std::string_view entry) {
  std::size_t end = entry.size();
  while (end > 0 && is_entry_tail(entry[end - 1])) --end;
  return end > 0 && (is_digit(entry[end - 1]) || entry[end - 1] == '%');
}

std::optional<Belief> read_entry(std::string_view entry) {
  if (!ends_like_entry(entry)) return std::nullopt;
  std::optional<answer_scan::NumberToken> last;
  for (auto token = answer_scan::next_number(entry, 0); token; token = answer_scan::next_number(entry, token->end)) {
    last = token;
  }
  if (!last) return std::nullopt;
  for (std::size_t i = last->end; i < entry.size(); ++i) {
    if (!is_entry_tail(entry[i])) return std::nullopt;
  }
  const std::string_view label = strip_label(entry.substr(0, last->begin));
  if (!acceptable_label(label)) return std::nullopt;
  const double probability = last->percent ? last->value / 100.0 : last->value;
  if (!(probability >= 0.0 && probability <= 1.0)) return std::nullopt;
  return Belief{std::string(label), probability};
}

// Length of the entry starting at `from`: up to a separator or " and " (which holds none, so it
// lies wholly before the first separator when it comes first). Both are found by rare bytes.
std::size_t entry_length(std::string_view text, std::size_t from) {
  static constexpr char kA[] = {'a'};
  const std::size_t separator = std::min(answer_scan::find_byte_of(text, from, kSeparators), text.size());
  const std::string_view before = text.substr(0, separator);
  for (std::size_t a = answer_scan::find_byte_of(before, from + 1, kA); a != std::string_view::npos;
       a = answer_scan::find_byte_of(before, a + 1, kA)) {
    if (before[a - 1] == ' ' && before.substr(a, 4) == "and ") return a - 1 - from;
  }
  return separator - from;
}

std::size_t separator_length(std::string_view text, std::size_t at_pos) {
  return text.substr(at_pos, 5) == " and " ? 5 : 1;
}

}  // namespace

namespace answer_scan {

bool has_two_possible_entry_ends(std::string_view text) {
  static constexpr char kNumberEnds[] = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '%'};
  const auto at_and = [&](std::size_t i) { return text.substr(i, 5) == " and "; };
  std::size_t found = 0;
  std::size_t last_end = std::string_view::npos;
  const auto at_separator = [&](std::size_t i) {
    return std::find(std::begin(kSeparators), std::end(kSeparators), text[i]) != std::end(kSeparators);
  };
  for (std::size_t i = find_byte_of(text, 0, kNumberEnds); i != std::string_view::npos;
       i = find_byte_of(text, i + 1, kNumberEnds)) {
    std::size_t end = i + 1;
    while (end < text.size() && is_entry_tail(text[end]) && !at_and(end)) ++end;
    const bool entry_end = end == text.size() || at_separator(end) || at_and(end);
    if (entry_end && end != last_end) {
      last_end = end;
      if (++found == 2) return true;
    }
  }
  return false;
}

}  // namespace answer_scan

std::vector<Belief> parse_beliefs(std::string_view text) {
  if (!answer_scan::has_two_possible_entry_ends(text)) return {};
  std::vector<Belief> run;
  std::vector<Belief> last_run;
  auto close_run = [&] {
    double total = 0.0;
    for (const auto& belief : run) total += belief.probability;
    if (run.size() >= 2 && total <= kMaxTotal) last_run = std::move(run);
    run.clear();
  };
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t length = entry_length(text, pos);
    const std::string_view entry = text.substr(pos, length);
    if (!trim_markup(entry).empty()) {
      if (auto belief = read_entry(entry)) {
        run.push_back(std::move(*belief));
      } else {
        close_run();
      }
    }
    pos += length;
    if (pos >= text.size()) break;
    pos += separator_length(text, pos);
  }
  close_run();
  return last_run;
}

}  // namespace parley
