// LabelSet: canonical labels and synonyms, compared by label_key.

#include "parley/labels.h"

#include <fmt/format.h>

#include "answer/scan.h"

namespace parley {
namespace {

using answer_scan::at;

// Non-ASCII bytes are parts of words ("Ménière"), except the marks unicode_mark reads.
bool is_word_byte(char c) { return answer_scan::is_alnum(c) || static_cast<unsigned char>(c) >= 0x80; }

// Bytes of a Unicode mark at `i` that names compare as ASCII, or 0: U+2212 minus and U+2010–2015
// hyphens and dashes ('-'), U+00A0 and U+202F spaces (' '), U+2018/2019/201C/201D quotes ('\'').
std::size_t unicode_mark_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(at(s, k)); };
  if (byte(i) == 0xC2 && byte(i + 1) == 0xA0) return 2;
  if (byte(i) == 0xE2 && byte(i + 1) == 0x88 && byte(i + 2) == 0x92) return 3;
  if (byte(i) == 0xE2 && byte(i + 1) == 0x80) {
    const unsigned char third = byte(i + 2);
    if ((third >= 0x90 && third <= 0x95) || third == 0xAF || third == 0x98 || third == 0x99 || third == 0x9C ||
        third == 0x9D)
      return 3;
  }
  return 0;
}
char unicode_mark(std::string_view s, std::size_t i) {
  const auto third = static_cast<unsigned char>(at(s, i + 2));
  if (static_cast<unsigned char>(s[i]) == 0xC2 || third == 0xAF) return ' ';
  if (static_cast<unsigned char>(at(s, i + 1)) == 0x88 || (third >= 0x90 && third <= 0x95)) return '-';
  return '\'';
}

}  // namespace

std::string label_key(std::string_view name) {
  std::string spaced;
  spaced.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    const std::size_t unicode = unicode_mark_length(name, i);
    if (unicode > 0) {
      const char mark = unicode_mark(name, i);
      i += unicode - 1;
      if (mark == '\'') continue;  // a curly quote or apostrophe, dropped as its ASCII form is
      c = mark;
    }
    const bool at_word_start = spaced.empty() || spaced.back() == ' ';
    const bool sign = (c == '+' || c == '-') && at_word_start && answer_scan::is_digit(at(name, i + 1));
    if (sign && c == '+') continue;  // "+1" = "1"
    // A sign ending a word is part of it: "HIV+" and "HIV-" are two labels.
    const bool trailing_sign = (c == '+' || c == '-') && !at_word_start && !is_word_byte(at(name, i + 1));
    if (sign || trailing_sign || is_word_byte(c)) {
      spaced += answer_scan::to_lower(c);
    } else if (c == '\'' || c == '"' || c == '`') {
      continue;  // "Crohn's" = "Crohns"
    } else if (!spaced.empty() && spaced.back() != ' ') {
      spaced += ' ';
    }
  }
  while (!spaced.empty() && spaced.back() == ' ') spaced.pop_back();
  for (std::string_view article : {"a ", "an ", "the "}) {
    if (spaced.size() > article.size() && spaced.compare(0, article.size(), article) == 0) {
      spaced.erase(0, article.size());
      break;
    }
  }
  return spaced;
}

Result<LabelSet> LabelSet::make(std::vector<std::string> labels,
                                const std::vector<std::pair<std::string, std::string>>& synonyms, bool ordered) {
  if (labels.empty()) return Error{"the label set is empty"};
  LabelSet set;
  set.ordered_ = ordered;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string key = label_key(labels[i]);
    if (key.empty()) return Error{fmt::format("label {} ('{}') has no letters or digits", i + 1, labels[i])};
    const auto [it, inserted] = set.index_.emplace(key, i);
    if (!inserted) {
      return Error{fmt::format("labels '{}' and '{}' are the same label", labels[it->second], labels[i])};
    }
  }
  set.labels_ = std::move(labels);
  for (const auto& [synonym, label] : synonyms) {
    const auto target = set.find(label);
    if (!target || label_key(set.labels_[*target]) != label_key(label)) {
      return Error{fmt::format("synonym '{}' names '{}', which is not one of the labels", synonym, label)};
    }
    const std::string key = label_key(synonym);
    if (key.empty()) return Error{fmt::format("synonym '{}' has no letters or digits", synonym)};
    const auto [it, inserted] = set.index_.emplace(key, *target);
    if (!inserted && it->second != *target) {
      return Error{fmt::format("synonym '{}' of '{}' already names '{}'", synonym, label, set.labels_[it->second])};
    }
  }
  return set;
}

std::optional<std::size_t> LabelSet::find(std::string_view name) const {
  const auto it = index_.find(label_key(name));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::size_t> LabelSet::named_in(std::string_view text) const {
  const std::string padded = " " + label_key(text) + " ";
  std::vector<bool> named(labels_.size(), false);
  for (const auto& [key, index] : index_) {
    if (!named[index] && padded.find(" " + key + " ") != std::string::npos) named[index] = true;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (named[i]) out.push_back(i);
  }
  return out;
}

std::optional<std::string> LabelSet::canonical(std::string_view name) const {
  if (const auto index = find(name)) return labels_[*index];
  return std::nullopt;
}

}  // namespace parley
