#pragma once
// The outcome space of label tasks (AnswerType::kLabel): MACI's free-text diagnoses over a set
// of hundreds of labels, or an ordered scale such as news bias −2 … +2. Canonical labels in
// order, and synonyms naming them ("HCV" → "Hepatitis C"), so that what a model writes is read
// as one outcome. One set serves every task of a dataset (`dataset.labels`, docs/formats.md).
// Immutable once made; safe to share between threads.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "parley/result.h"

namespace parley {

class LabelSet {
 public:
  // Errors name the offending entry: no labels; a label or synonym that is empty once reduced
  // to its key; two labels with the same key; a synonym of a label not in the set; a synonym
  // whose key already names a different label.
  static Result<LabelSet> make(std::vector<std::string> labels,
                               const std::vector<std::pair<std::string, std::string>>& synonyms, bool ordered);

  const std::vector<std::string>& labels() const { return labels_; }
  std::size_t size() const { return labels_.size(); }
  bool ordered() const { return ordered_; }
  // The index of the label `name` names — the label itself or a synonym, compared by key — else
  // nullopt.
  std::optional<std::size_t> find(std::string_view name) const;
  // The canonical label `name` names, else nullopt.
  std::optional<std::string> canonical(std::string_view name) const;
  // The labels `text` names anywhere, by a label or synonym key standing as whole words in its
  // key ("likely dengue fever" names Dengue fever), distinct, in label order.
  std::vector<std::size_t> named_in(std::string_view text) const;

 private:
  std::vector<std::string> labels_;
  bool ordered_ = false;
  std::unordered_map<std::string, std::size_t> index_;  // key → label index
};

// What names are compared by: ASCII lower case; hyphens, underscores, slashes, brackets,
// commas, colons and full stops as spaces ("Hepatitis-C" = "hepatitis c"); apostrophes and
// quotes dropped ("Crohn's" = "crohns", curly ones too); a leading "a", "an" or "the" dropped; a
// minus before a digit kept ("-2"; U+2212 and U+2010–2015 dashes are read as "-"), a plus there
// dropped ("+1" = "1"); a sign ending a word kept ("HIV+" ≠ "HIV-"); no-break spaces are spaces;
// spaces collapsed.
std::string label_key(std::string_view name);

}  // namespace parley
