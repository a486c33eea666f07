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

// Entries are lower case, words separated by single spaces, with ' as the apostrophe.
// Hedges: epistemic possibility, approximation, appearance, tentative first-person stances.
// "not sure"-style negations are hedges and win over "sure" by being longer.
constexpr std::string_view kHedges[] = {
    "maybe",           "perhaps",       "possibly",      "possible",    "likely",      "unlikely",
    "probably",        "probable",      "might",         "may",         "could",       "seem",
    "seems",           "seemed",        "seemingly",     "appear",      "appears",     "appeared",
    "apparently",      "suggest",       "suggests",      "suggested",   "suggesting",  "uncertain",
    "uncertainty",     "unsure",        "unclear",       "not sure",    "not certain", "not entirely",
    "not necessarily", "not clear",     "approximately", "roughly",     "somewhat",    "arguably",
    "presumably",      "plausibly",     "plausible",     "conceivably", "potentially", "typically",
    "usually",         "generally",     "often",         "sometimes",   "tend to",     "tends to",
    "i think",         "i believe",     "i guess",       "i suspect",   "i assume",    "it is possible",
    "to some extent",  "in some cases",
};

// Certainty: boosters and categorical markers.
constexpr std::string_view kCertainty[] = {
    "definitely",      "definite",    "definitively", "certainly",     "for certain", "it is certain",
    "i am certain",    "i'm certain", "clearly",      "undoubtedly",   "undeniably",  "unquestionably",
    "surely",          "sure",        "for sure",     "obviously",     "evidently",   "without doubt",
    "without a doubt", "no doubt",    "beyond doubt", "always",        "never",       "must",
    "absolutely",      "confident",   "confidently",  "conclusively",  "conclusive",  "indeed",
    "of course",       "in fact",     "invariably",   "unambiguously", "guaranteed",  "proven",
};

// Contrast: adversative and concessive connectives.
constexpr std::string_view kContrast[] = {
    "however",         "but",
    "although",        "though",
    "even though",     "yet",
    "whereas",         "nevertheless",
    "nonetheless",     "on the other hand",
    "on the contrary", "instead",
    "alternatively",   "conversely",
    "despite",         "in spite of",
    "in contrast",     "by contrast",
    "rather than",     "unlike",
    "otherwise",       "that said",
    "even so",         "notwithstanding",
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
    for (std::string_view phrase : kHedges) out.push_back({split_words(phrase), Cue::kHedge});
    for (std::string_view phrase : kCertainty) out.push_back({split_words(phrase), Cue::kCertainty});
    for (std::string_view phrase : kContrast) out.push_back({split_words(phrase), Cue::kContrast});
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
      case Cue::kHedge:
        ++cues.hedges;
        break;
      case Cue::kCertainty:
        ++cues.certainty;
        break;
      case Cue::kContrast:
        ++cues.contrast;
        break;
    }
    i += best->words.size();
  }
  return cues;
}

}  // namespace parley
