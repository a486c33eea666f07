// Hedge, certainty and contrast cues on fixed texts (counts listed beside each case).

#include <gtest/gtest.h>

#include "parley/features.h"

namespace parley {
namespace {

void expect_cues(const char* text, int hedges, int certainty, int contrast) {
  const LexicalCues cues = lexical_cues(text);
  EXPECT_EQ(cues.hedges, hedges) << text;
  EXPECT_EQ(cues.certainty, certainty) << text;
  EXPECT_EQ(cues.contrast, contrast) << text;
}

TEST(LexicalCues, WordsAndPhrases) {
  // hedges: Maybe, likely, not sure; certainty: must, definitely; contrast: but, However,
  // on the other hand.
  expect_cues(
      "Maybe it is likely, but I am not sure. However, on the other hand, it must be definitely true.", 3, 2,
      3);
}

TEST(LexicalCues, LongestMatchWins) {
  expect_cues("I am not sure.", 1, 0, 0);          // "not sure" is a hedge, "sure" not counted again
  expect_cues("I am sure.", 0, 1, 0);              // "sure" alone is certainty
  expect_cues("Even though it rained.", 0, 0, 1);  // "even though" once, not "though" too
  expect_cues("There is no doubt.", 0, 1, 0);      // "no doubt"
  expect_cues("I think it could be.", 2, 0, 0);    // "i think", "could"
}

TEST(LexicalCues, CaseApostrophesAndWholeWords) {
  expect_cues("MAYBE. Perhaps. NEVERTHELESS.", 2, 0, 1);
  expect_cues("I\u2019m certain and I'm certain.", 0, 2, 0);  // curly and straight apostrophes
  expect_cues("Maybelline butters the buttery mustard; clearance.", 0, 0, 0);  // no partial words
  expect_cues("", 0, 0, 0);
}

}  // namespace
}  // namespace parley
