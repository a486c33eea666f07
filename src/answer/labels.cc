// LabelSet: canonical labels and synonyms, compared by label_key.

#include "parley/labels.h"

#include <fmt/format.h>

#include "answer/scan.h"

namespace parley {
namespace {

using answer_scan::at;

// Non-ASCII bytes are parts of words ("Ménière").
bool is_word_byte(char c) { return answer_scan::is_alnum(c) || static_cast<unsigned char>(c) >= 0x80; }

}  // namespace

std::string label_key(std::string_view name) {
  std::string spaced;
  spaced.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (name.compare(i, 3, "\xE2\x88\x92") == 0) {  // U+2212 MINUS SIGN
      c = '-';
      i += 2;
    }
    const bool at_word_start = spaced.empty() || spaced.back() == ' ';
    const bool sign = (c == '+' || c == '-') && at_word_start && answer_scan::is_digit(at(name, i + 1));
    if (sign && c == '+') continue;  // "+1" = "1"
    if (sign || is_word_byte(c)) {
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
    if (!target || set.labels_[*target] != label) {
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

std::optional<std::string> LabelSet::canonical(std::string_view name) const {
  if (const auto index = find(name)) return labels_[*index];
  return std::nullopt;
}

}  // namespace parley
