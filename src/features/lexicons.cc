// Hedge, certainty and contrast lexicons and their matcher (iMAD App. A.2, Table 5:
// *_HedgeCount, *_CertaintyCount, *_contrast). The lists are curated for this project and
// printed in full in docs/features.md; keep the two in step.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "features/tokens.h"
#include "parley/features.h"

namespace parley {
namespace {

enum class Cue { kHedge, kCertainty, kContrast };

struct Entry {
  std::string_view phrase;  // lower case, words separated by single spaces, ' as the apostrophe
  Cue cue;
};

// Hedges: epistemic possibility, approximation, appearance, tentative first-person stances.
// Certainty: boosters and categorical markers. Contrast: adversative/concessive connectives.
// "not sure"-style negations are hedges and win over "sure" by being longer.
constexpr Entry kLexicon[] = {
    // Hedges.
    {"maybe", Cue::kHedge}, {"perhaps", Cue::kHedge}, {"possibly", Cue::kHedge}, {"possible", Cue::kHedge},
    {"likely", Cue::kHedge}, {"unlikely", Cue::kHedge}, {"probably", Cue::kHedge}, {"probable", Cue::kHedge},
    {"might", Cue::kHedge}, {"may", Cue::kHedge}, {"could", Cue::kHedge}, {"seem", Cue::kHedge},
    {"seems", Cue::kHedge}, {"seemed", Cue::kHedge}, {"seemingly", Cue::kHedge}, {"appear", Cue::kHedge},
    {"appears", Cue::kHedge}, {"appeared", Cue::kHedge}, {"apparently", Cue::kHedge}, {"suggest", Cue::kHedge},
    {"suggests", Cue::kHedge}, {"suggested", Cue::kHedge}, {"suggesting", Cue::kHedge},
    {"uncertain", Cue::kHedge}, {"uncertainty", Cue::kHedge}, {"unsure", Cue::kHedge}, {"unclear", Cue::kHedge},
    {"not sure", Cue::kHedge}, {"not certain", Cue::kHedge}, {"not entirely", Cue::kHedge},
    {"not necessarily", Cue::kHedge}, {"not clear", Cue::kHedge}, {"approximately", Cue::kHedge},
    {"roughly", Cue::kHedge}, {"somewhat", Cue::kHedge}, {"arguably", Cue::kHedge}, {"presumably", Cue::kHedge},
    {"plausibly", Cue::kHedge}, {"plausible", Cue::kHedge}, {"conceivably", Cue::kHedge},
    {"potentially", Cue::kHedge}, {"typically", Cue::kHedge}, {"usually", Cue::kHedge},
    {"generally", Cue::kHedge}, {"often", Cue::kHedge}, {"sometimes", Cue::kHedge}, {"tend to", Cue::kHedge},
    {"tends to", Cue::kHedge}, {"i think", Cue::kHedge}, {"i believe", Cue::kHedge}, {"i guess", Cue::kHedge},
    {"i suspect", Cue::kHedge}, {"i assume", Cue::kHedge}, {"it is possible", Cue::kHedge},
    {"to some extent", Cue::kHedge}, {"in some cases", Cue::kHedge},
    // Certainty.
    {"definitely", Cue::kCertainty}, {"definite", Cue::kCertainty}, {"definitively", Cue::kCertainty},
    {"certainly", Cue::kCertainty}, {"for certain", Cue::kCertainty}, {"it is certain", Cue::kCertainty},
    {"i am certain", Cue::kCertainty}, {"i'm certain", Cue::kCertainty}, {"clearly", Cue::kCertainty},
    {"undoubtedly", Cue::kCertainty}, {"undeniably", Cue::kCertainty}, {"unquestionably", Cue::kCertainty},
    {"surely", Cue::kCertainty}, {"sure", Cue::kCertainty}, {"for sure", Cue::kCertainty},
    {"obviously", Cue::kCertainty}, {"evidently", Cue::kCertainty}, {"without doubt", Cue::kCertainty},
    {"without a doubt", Cue::kCertainty}, {"no doubt", Cue::kCertainty}, {"beyond doubt", Cue::kCertainty},
    {"always", Cue::kCertainty}, {"never", Cue::kCertainty}, {"must", Cue::kCertainty},
    {"absolutely", Cue::kCertainty}, {"confident", Cue::kCertainty}, {"confidently", Cue::kCertainty},
    {"conclusively", Cue::kCertainty}, {"conclusive", Cue::kCertainty}, {"indeed", Cue::kCertainty},
    {"of course", Cue::kCertainty}, {"in fact", Cue::kCertainty}, {"invariably", Cue::kCertainty},
    {"unambiguously", Cue::kCertainty}, {"guaranteed", Cue::kCertainty}, {"proven", Cue::kCertainty},
    // Contrast.
    {"however", Cue::kContrast}, {"but", Cue::kContrast}, {"although", Cue::kContrast},
    {"though", Cue::kContrast}, {"even though", Cue::kContrast}, {"yet", Cue::kContrast},
    {"whereas", Cue::kContrast}, {"nevertheless", Cue::kContrast}, {"nonetheless", Cue::kContrast},
    {"on the other hand", Cue::kContrast}, {"on the contrary", Cue::kContrast}, {"instead", Cue::kContrast},
    {"alternatively", Cue::kContrast}, {"conversely", Cue::kContrast}, {"despite", Cue::kContrast},
    {"in spite of", Cue::kContrast}, {"in contrast", Cue::kContrast}, {"by contrast", Cue::kContrast},
    {"rather than", Cue::kContrast}, {"unlike", Cue::kContrast}, {"otherwise", Cue::kContrast},
    {"that said", Cue::kContrast}, {"even so", Cue::kContrast}, {"notwithstanding", Cue::kContrast},
};

std::vector<std::string> split_words(std::string_view phrase) {
  std::vector<std::string> words;
  std::size_t begin = 0;
  while (begin <= phrase.size()) {
    std::size_t end = phrase.find(' ', begin);
    if (end == std::string_view::npos) end = phrase.size();
    words.emplace_back(phrase.substr(begin, end - begin));
    begin = end + 1;
  }
  return words;
}

struct CompiledEntry {
  std::vector<std::string> words;
  Cue cue;
};

const std::vector<CompiledEntry>& compiled_lexicon() {
  static const std::vector<CompiledEntry> entries = [] {
    std::vector<CompiledEntry> out;
    for (const Entry& entry : kLexicon) out.push_back({split_words(entry.phrase), entry.cue});
    return out;
  }();
  return entries;
}

}  // namespace

// iMAD App. A.2 (v): uncertainty-related lexical cues. Longest match at each token, then skip it.
LexicalCues lexical_cues(std::string_view text) {
  std::vector<std::string> tokens;
  for (const features::TokenSpan& span : features::token_spans(text)) {
    tokens.push_back(features::fold_token(text.substr(span.begin, span.end - span.begin)));
  }
  LexicalCues cues;
  std::size_t i = 0;
  while (i < tokens.size()) {
    const CompiledEntry* best = nullptr;
    for (const CompiledEntry& entry : compiled_lexicon()) {
      if (best != nullptr && entry.words.size() <= best->words.size()) continue;
      if (i + entry.words.size() > tokens.size()) continue;
      bool match = true;
      for (std::size_t k = 0; k < entry.words.size() && match; ++k) match = tokens[i + k] == entry.words[k];
      if (match) best = &entry;
    }
    if (best == nullptr) {
      ++i;
      continue;
    }
    switch (best->cue) {
      case Cue::kHedge: ++cues.hedges; break;
      case Cue::kCertainty: ++cues.certainty; break;
      case Cue::kContrast: ++cues.contrast; break;
    }
    i += best->words.size();
  }
  return cues;
}

}  // namespace parley
