#include "answer/option_matcher.h"

#include <algorithm>

#include "answer/scan.h"
#include "parley/answer.h"

namespace parley::answer_scan {
namespace {

constexpr std::string_view kWrappers[] = {"\\boxed{", "\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{"};
constexpr std::string_view kOptionWords[] = {"option", "choice", "letter"};

// Drops what may precede the answer itself ("**", "$\boxed{", ":", "option"). `named` is set
// when an option word was dropped: after "Option", "A" is a letter and not the article.
std::string_view strip_lead(std::string_view s, bool& named) {
  for (std::size_t before = s.size() + 1; !s.empty() && s.size() != before;) {
    before = s.size();
    while (!s.empty() && std::string_view(" \t*_$`\"':").find(s.front()) != std::string_view::npos) {
      s.remove_prefix(1);
    }
    for (std::string_view wrapper : kWrappers) {
      if (matches_at(s, 0, wrapper)) s.remove_prefix(wrapper.size());
    }
    for (std::string_view word : kOptionWords) {
      if (word_at(s, 0, word)) {
        s.remove_prefix(word.size());
        named = true;
      }
    }
  }
  return s;
}

struct LetterForm {
  std::string_view label;  // "B", or "AB" when a task has more than 26 options
  std::size_t length;      // bytes of "(B)", "B)", "B." or "B"
};

// Letters of an option label starting at s[i]: one letter, or with `wide` (more than 26
// options) two capitals standing alone ("AA", "AD"). 0 when there is no label there.
std::size_t label_letters(std::string_view s, std::size_t i, bool wide) {
  if (wide && is_upper(at(s, i)) && is_upper(at(s, i + 1)) && !is_alnum(at(s, i + 2))) return 2;
  return is_alpha(at(s, i)) ? 1 : 0;
}

// A label at the start of `s` that reads as an option label, not as a word: "A farmer",
// "I think", "I'm", "U.S." and "B12" are words. `named` lifts the article/pronoun rule.
std::optional<LetterForm> leading_letter_form(std::string_view s, bool named, bool wide) {
  const char first = at(s, 0);
  if (first == '(' || first == '[') {
    const std::size_t n = label_letters(s, 1, wide);
    if (n > 0 && (at(s, 1 + n) == ')' || at(s, 1 + n) == ']')) return LetterForm{s.substr(1, n), n + 2};
  }
  const std::size_t n = label_letters(s, 0, wide);
  if (n == 0) return std::nullopt;
  const char next = at(s, n);
  if (is_alnum(next)) return std::nullopt;
  if ((next == '\'' || next == '.' || next == '-') && is_alpha(at(s, n + 1))) return std::nullopt;
  if (n == 1 && !named && (to_upper(first) == 'A' || to_upper(first) == 'I')) {
    std::size_t k = 1;
    while (is_space(at(s, k))) ++k;
    if (k > 1 && is_alpha(at(s, k))) return std::nullopt;
  }
  const bool closed = next == ')' || next == ']' || next == '.' || next == ':';
  return LetterForm{s.substr(0, n), closed ? n + 1 : n};
}

// "B or C", "B/C": a hedge between letters, no single answer.
bool hedges_to_another_letter(std::string_view rest, bool wide) {
  std::size_t j = 0;
  while (is_space(at(rest, j)) || at(rest, j) == ',') ++j;
  if (word_at(rest, j, "or")) {
    j += 2;
  } else if (word_at(rest, j, "and")) {
    j += 3;
  } else if (at(rest, j) == '/') {
    j += 1;
  } else {
    return false;
  }
  while (is_space(at(rest, j))) ++j;
  return leading_letter_form(rest.substr(std::min(j, rest.size())), false, wide).has_value();
}

}  // namespace

OptionMatcher::OptionMatcher(const std::vector<std::string>& options) : options_(options), wide_(options.size() > 26) {}

const std::vector<std::string>& OptionMatcher::normalized_options() const {
  if (!normalized_options_) {
    normalized_options_.emplace();
    normalized_options_->reserve(options_.size());
    for (const auto& option : options_) normalized_options_->push_back(normalize_text(option));
  }
  return *normalized_options_;
}

OptionPick OptionMatcher::letter(std::string_view label) const {
  // One letter in either case ("b"); two-letter labels only as capitals.
  const std::string single(1, to_upper(at(label, 0)));
  const auto index = option_index(label.size() == 1 ? std::string_view(single) : label);
  if (!index) return OptionPick::none();
  if (*index >= options_.size()) return {OptionPick::Kind::kInvalid, 0};
  return {OptionPick::Kind::kOption, *index};
}

std::vector<OptionMatcher::Mention> OptionMatcher::option_mentions(const std::string& normalized) const {
  std::vector<Mention> mentions;
  const std::vector<std::string>& options = normalized_options();
  for (std::size_t k = 0; k < options.size(); ++k) {
    const std::string& option = options[k];
    if (option.empty()) continue;
    for (std::size_t pos = normalized.find(option); pos != std::string::npos; pos = normalized.find(option, pos + 1)) {
      const std::size_t end = pos + option.size();
      const bool whole_words = (pos == 0 || normalized[pos - 1] == ' ') &&
                               (end == normalized.size() || normalized[end] == ' ');
      if (whole_words) {
        mentions.push_back({k, pos, option.size()});
        break;
      }
    }
  }
  return mentions;
}

OptionPick OptionMatcher::scan_letters(std::string_view s) const {
  std::optional<std::size_t> found;
  bool several = false;
  bool invalid = false;
  auto note = [&](OptionPick pick, bool explicit_form) {
    if (pick.kind == OptionPick::Kind::kOption) {
      several |= found.has_value() && *found != pick.index;
      found = pick.index;
    } else if (pick.kind == OptionPick::Kind::kInvalid && explicit_form) {
      invalid = true;
    }
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[') {
      if (auto form = leading_letter_form(s.substr(i), true, wide_)) {
        note(letter(form->label), true);  // "(B)", "[AB]"
        i += form->length - 1;
      }
      continue;
    }
    if (!is_alpha(c) || (i > 0 && (is_alnum(s[i - 1]) || s[i - 1] == '\'' || s[i - 1] == '.' || s[i - 1] == '\\'))) {
      continue;
    }
    bool named = false;
    for (std::string_view word : kOptionWords) {
      if (!word_at(s, i, word)) continue;
      std::size_t j = i + word.size();
      while (is_space(at(s, j))) ++j;
      if (const std::size_t n = label_letters(s, j, wide_); n > 0 && !is_alnum(at(s, j + n))) {
        note(letter(s.substr(j, n)), true);
        i = j + n - 1;
        named = true;
      }
      break;
    }
    if (named || !is_upper(c)) continue;
    // A standalone capital that reads as a label; out-of-range ones are noise here ("see X").
    if (auto form = leading_letter_form(s.substr(i), false, wide_)) {
      note(letter(form->label), false);
      i += form->label.size() - 1;
    }
  }
  if (several) return OptionPick::none();
  if (found) return {OptionPick::Kind::kOption, *found};
  return invalid ? OptionPick{OptionPick::Kind::kInvalid, 0} : OptionPick::none();
}

OptionPick OptionMatcher::read_payload(std::string_view payload) const {
  bool named = false;
  const std::string_view s = strip_lead(payload, named);
  if (auto form = leading_letter_form(s, named, wide_)) {
    if (hedges_to_another_letter(s.substr(form->length), wide_)) return OptionPick::none();
    return letter(form->label);
  }
  const auto mentions = option_mentions(normalize_text(payload));
  if (!mentions.empty()) {
    // The option named first is the answer ("No, because yes ..."); nested texts prefer the
    // longer one ("Paris, Texas" over "Paris").
    const Mention* best = &mentions.front();
    for (const auto& m : mentions) {
      if (m.begin < best->begin || (m.begin == best->begin && m.length > best->length)) best = &m;
    }
    return {OptionPick::Kind::kOption, best->option};
  }
  return scan_letters(s);
}

OptionPick OptionMatcher::read_letter_line(std::string_view line) const {
  std::string_view s = trim_markup(line);
  while (!s.empty() && (s.back() == '.' || s.back() == ':')) s = trim_markup(s.substr(0, s.size() - 1));
  if ((at(s, 0) == '-' || at(s, 0) == '+') && is_space(at(s, 1))) s = trim_markup(s.substr(1));
  for (std::string_view word : {"final answer", "answer", "option", "choice", "letter"}) {
    if (word_at(s, 0, word)) {
      s = s.substr(word.size());
      while (!s.empty() && (s.front() == ':' || s.front() == '*' || s.front() == '_' || is_space(s.front()))) {
        s.remove_prefix(1);
      }
      break;
    }
  }
  const auto form = leading_letter_form(s, true, wide_);
  if (!form || form->length != s.size()) return OptionPick::none();
  return letter(form->label);
}

OptionPick OptionMatcher::read_option_text_line(std::string_view line) const {
  // "B. Jupiter" is how options are listed; a reply that only restates them has not answered.
  const std::string_view s = trim_markup(line);
  if (auto form = leading_letter_form(s, true, wide_); form && form->length > form->label.size()) {
    return OptionPick::none();
  }
  const auto mentions = option_mentions(normalize_text(line));
  std::optional<std::size_t> only;
  for (const auto& m : mentions) {
    bool nested = false;
    for (const auto& other : mentions) {
      nested |= other.length > m.length && other.begin <= m.begin && m.begin + m.length <= other.begin + other.length;
    }
    if (nested) continue;
    if (only && *only != m.option) return OptionPick::none();
    only = m.option;
  }
  if (!only) return OptionPick::none();
  return {OptionPick::Kind::kOption, *only};
}

std::optional<std::size_t> OptionMatcher::read_label(std::string_view label) const {
  const std::string_view s = trim_markup(label);
  if (auto pick = read_letter_line(s); pick.kind == OptionPick::Kind::kOption) return pick.index;
  const std::string normalized = normalize_text(s);
  const std::vector<std::string>& options = normalized_options();
  for (std::size_t k = 0; k < options.size(); ++k) {
    if (!normalized.empty() && normalized == options[k]) return k;
  }
  // "A. Mars": a letter followed by that same option's text.
  bool named = false;
  const std::string_view rest = strip_lead(s, named);
  if (auto form = leading_letter_form(rest, true, wide_)) {
    const OptionPick pick = letter(form->label);
    if (pick.kind == OptionPick::Kind::kOption &&
        normalize_text(rest.substr(form->length)) == options[pick.index]) {
      return pick.index;
    }
  }
  return std::nullopt;
}

}  // namespace parley::answer_scan
