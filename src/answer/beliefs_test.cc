// parse_beliefs: comma lists, label/probability pairs, one-per-line lists, and text that is
// not a distribution.
#include <gtest/gtest.h>

#include "answer/beliefs.h"
#include "parley/answer.h"

namespace parley {
namespace {

struct Expected {
  std::string label;
  double probability;
};

void expect_beliefs(std::string_view text, const std::vector<Expected>& expected) {
  SCOPED_TRACE(std::string(text));
  const auto beliefs = parse_beliefs(text);
  ASSERT_EQ(beliefs.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(beliefs[i].label, expected[i].label);
    EXPECT_DOUBLE_EQ(beliefs[i].probability, expected[i].probability);
  }
}

TEST(ParseBeliefs, PercentList) {
  expect_beliefs("Dengue 60%, Chikungunya 25%, Zika 15%", {{"Dengue", 0.6}, {"Chikungunya", 0.25}, {"Zika", 0.15}});
  expect_beliefs("My estimate: Dengue 60%, Chikungunya 25% and Zika 15%.",
                 {{"Dengue", 0.6}, {"Chikungunya", 0.25}, {"Zika", 0.15}});
  expect_beliefs("Dengue (60%), Zika (40%)", {{"Dengue", 0.6}, {"Zika", 0.4}});
  // Only " and " between words splits: not "and" inside a word, nor one that ends the text.
  expect_beliefs("Sandy 40% and Andes 60%", {{"Sandy", 0.4}, {"Andes", 0.6}});
  expect_beliefs("Brand X 30%, Grand Y 20% and Band Z 50%", {{"Brand X", 0.3}, {"Grand Y", 0.2}, {"Band Z", 0.5}});
  expect_beliefs("A 50%, and B 50%", {{"A", 0.5}, {"B", 0.5}});
  expect_beliefs("A 50%, B 50% and", {});
}

TEST(ParseBeliefs, ProbabilityPairs) {
  expect_beliefs("A: 0.6, B: 0.3, C: 0.1", {{"A", 0.6}, {"B", 0.3}, {"C", 0.1}});
  expect_beliefs("P(A) = 0.5; P(B) = 0.5", {{"A", 0.5}, {"B", 0.5}});
  expect_beliefs("A: 1.0, B: 0", {{"A", 1.0}, {"B", 0.0}});  // both ends of [0, 1] are probabilities
  expect_beliefs("Probabilities: yellow fever 0.7, malaria 0.3", {{"yellow fever", 0.7}, {"malaria", 0.3}});
}

TEST(ParseBeliefs, OnePerLine) {
  expect_beliefs("Beliefs:\n- Dengue: 60%\n\n- **Zika**: 30%\n- Other: 10%\nAnswer: Dengue\nConfidence: 60%",
                 {{"Dengue", 0.6}, {"Zika", 0.3}, {"Other", 0.1}});
  expect_beliefs("1. Measles - 0.55\n2. Rubella - 0.45", {{"Measles", 0.55}, {"Rubella", 0.45}});
}

TEST(ParseBeliefs, LastDistributionWins) {
  expect_beliefs("Before: A 50%, B 50%.\nThe evidence changes things.\nAfter: A 80%, B 20%",
                 {{"A", 0.8}, {"B", 0.2}});
}

TEST(ParseBeliefs, ConfidenceAndAnswerAreNotBeliefs) {
  expect_beliefs("Answer: 0.5\nConfidence: 0.8", {});
  expect_beliefs("Answer: B\nConfidence: 80%", {});
  expect_beliefs("Dengue 60%, confidence 40%", {});
}

TEST(ParseBeliefs, NotADistribution) {
  expect_beliefs("", {});
  expect_beliefs("Dengue 60%", {});                                 // a single entry
  expect_beliefs("He has 3 apples, 4 pears and 5 plums.", {});      // not probabilities
  expect_beliefs("Step 1, Step 1", {});                            // sums past 1
  expect_beliefs("A: 70%, B: 60%", {});                            // sums past 1
  expect_beliefs("Dengue is 60% likely, Zika is 40% likely", {});  // words after the number
}

// The cheap test before the entries are read: two places where a number ends an entry.
TEST(ParseBeliefs, TwoPossibleEntryEndsAreLookedForBeforeTheEntries) {
  using answer_scan::has_two_possible_entry_ends;
  // A reply whose only number is its confidence, or whose numbers run on into words.
  EXPECT_FALSE(has_two_possible_entry_ends("I think B.\nAnswer: B\nConfidence: 80%"));
  EXPECT_FALSE(has_two_possible_entry_ends(""));
  EXPECT_FALSE(has_two_possible_entry_ends("1x 2x 3"));
  EXPECT_FALSE(has_two_possible_entry_ends("60%)) x, 40%"));
  EXPECT_FALSE(has_two_possible_entry_ends("1 andy 2"));
  EXPECT_FALSE(has_two_possible_entry_ends("Option 7 of 9 fits"));
  // "1}" ends where its '}' does: one place, not two.
  EXPECT_FALSE(has_two_possible_entry_ends("1}, x"));
  // Each separator, " and " and the end of the text.
  EXPECT_TRUE(has_two_possible_entry_ends("Dengue 60%, Zika 40%"));
  EXPECT_TRUE(has_two_possible_entry_ends("1; 2;x"));
  EXPECT_TRUE(has_two_possible_entry_ends("1\n2\nx"));
  EXPECT_TRUE(has_two_possible_entry_ends("1 and 2 and x"));
  EXPECT_TRUE(has_two_possible_entry_ends("x 1, 2"));
  EXPECT_TRUE(has_two_possible_entry_ends("- A: (60%).\n- B: \\frac{2}{5}"));
  // Where it is false there is no distribution; where true, parse_beliefs decides.
  EXPECT_TRUE(parse_beliefs("1; 2;x").empty());
  expect_beliefs("A 60% and B 40%", {{"A", 0.6}, {"B", 0.4}});
}

// A LaTeX fraction ends its entry with '}'; a label of more than six words is prose.
TEST(ParseBeliefs, FractionEntriesAndOverlongLabels) {
  expect_beliefs("A: \\frac{3}{5}, B: \\frac{2}{5}", {{"A", 0.6}, {"B", 0.4}});
  expect_beliefs("one two three four five six seven: 60%, B: 40%", {});
}

}  // namespace
}  // namespace parley
