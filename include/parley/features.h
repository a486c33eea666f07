#pragma once
// The 41 interpretable features of iMAD's debate-decision classifier (Fan et al., AAAI'26,
// App. A.2, Table 5), computed from one self-critique response: question statistics, question
// type, readability, link-grammar syntax (depth, nouns/verbs/adjectives), hedge / certainty /
// contrast cues and the three self-reported confidences. Every method is written down in
// docs/features.md.
//
// The free functions are pure and safe from any thread. SyntaxAnalyzer and FeatureExtractor
// hold a link-grammar dictionary and are not thread-safe: use one instance per thread.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley {

// The parts of a self-critique response the features read.
struct FeatureInput {
  std::string question;            // question text (without the options list)
  std::string final_answer;        // the model's final answer as written (AnswerToken counts its tokens)
  std::string initial_reasoning;   // the justification of the initial answer
  std::string critique_reasoning;  // the forced self-critique / counter-argument
  // Self-reported confidences in [0, 1]; out-of-range values are clamped, and a missing (or NaN)
  // value becomes 0.5, the uninformative midpoint.
  std::optional<double> initial_confidence;
  std::optional<double> negative_confidence;
  std::optional<double> final_confidence;
  // The response's required sections that were absent or unreadable (section labels, as
  // SelfCritique::missing names them): their features are the defaults above, so a reader of
  // the features needs to know.
  std::vector<std::string> missing_sections;
};

// The 41 feature names of Table 5, in Table 5's order, spelled as in the paper.
const std::vector<std::string>& trigger_feature_names();

// ---- Building blocks: pure functions, safe from any thread. ----

// Word tokens: runs of letters and digits (any non-ASCII character other than a few common
// Unicode punctuation marks counts as a letter), keeping apostrophes and hyphens between two
// such characters ("don't", "45-year-old") and '.' or ',' between two digits ("3.14", "1,000");
// every other non-space character is a token of its own ("?", "%", "$", "“").
std::vector<std::string> word_tokens(std::string_view text);

// Sentences, trimmed, each containing at least one letter or digit. A sentence ends at a line
// break, or after a run of '.', '!', '?' (with any closing quotes/brackets) that is followed by
// white space or the end of the text. A '.' inside a token never ends one ("3.5", "U.S.A"), nor
// one after a known abbreviation ("Dr.", "e.g.", "vs.") or a single capital letter ("J. Smith").
std::vector<std::string> sentences(std::string_view text);

// Syllables of one word by vowel groups (a e i o u, and y when not word-initial) over its ASCII
// letters, less a silent final -e, -es or -ed (kept after a consonant in "-le"/"-les", after
// s x z c g h in "-es", after t d in "-ed"); at least 1 for any token with a letter or digit,
// 0 for punctuation.
int syllable_count(std::string_view word);

// Flesch Reading Ease: 206.835 - 1.015 * words/sentences - 84.6 * syllables/words, where words
// are word_tokens containing a letter or digit and sentences come from sentences().
// Text without words -> 0.
double flesch_reading_ease(std::string_view text);

// Coleman-Liau index: 0.0588 * L - 0.296 * S - 15.8, L = letters per 100 words, S = sentences per
// 100 words (letters: alphabetic characters of the words, one per non-ASCII character).
// Text without words -> 0.
double coleman_liau_index(std::string_view text);

// Hedge, certainty and contrast cues: whole words or phrases from the lexicons in
// docs/features.md, case-insensitive; overlapping matches count once, the longest winning.
struct LexicalCues {
  int hedges = 0;
  int certainty = 0;
  int contrast = 0;
};
LexicalCues lexical_cues(std::string_view text);

// Named entities by a documented heuristic (no NER model is packaged for C++ in Debian):
// capitalised runs, dates and numbers/quantities, each span counted once. See docs/features.md.
int named_entity_count(std::string_view text);

// "what", "where", "why", "how", "when", "who", "is", "are", "does", "do" or "other": the first
// word of the last sentence that ends with '?', else of the whole text.
std::string question_type(std::string_view question);

// ---- Syntax (link-grammar). ----

struct SyntaxStats {
  int max_depth = 0;  // deepest constituent nesting over all sentences
  int nouns = 0;
  int verbs = 0;
  int adjectives = 0;
};

// Link-grammar parser of English (one dictionary per instance). Not thread-safe: one instance
// per thread.
class SyntaxAnalyzer {
 public:
  // Throws std::runtime_error if the English dictionary cannot be loaded.
  SyntaxAnalyzer();
  ~SyntaxAnalyzer();
  SyntaxAnalyzer(const SyntaxAnalyzer&) = delete;
  SyntaxAnalyzer& operator=(const SyntaxAnalyzer&) = delete;

  // Over all sentences: max constituent-tree depth; noun, verb and adjective counts summed.
  SyntaxStats analyze(std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The input of a self-critique response: its sections as parse_self_critique reads them
// (parley/self_critique.h); the answers play no part in the features.
FeatureInput self_critique_feature_input(std::string_view question, std::string_view response);

// All 41 features, in trigger_feature_names() order. Owns a SyntaxAnalyzer. Not thread-safe.
class FeatureExtractor {
 public:
  FeatureExtractor();
  std::vector<double> extract(const FeatureInput& input) const;

 private:
  SyntaxAnalyzer syntax_;
};

}  // namespace parley
