// parse_confidence: the stated forms, scale conversion, range checks and which statement wins.
#include <gtest/gtest.h>

#include "parley/answer.h"

namespace parley {
namespace {

TEST(ParseConfidence, StatedForms) {
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 80%"), 0.8);
  EXPECT_DOUBLE_EQ(*parse_confidence("confidence: 0.8"), 0.8);
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence level: 9/10"), 0.9);
  EXPECT_DOUBLE_EQ(*parse_confidence("I am 90% confident"), 0.9);
  EXPECT_DOUBLE_EQ(*parse_confidence("Answer: B (confidence 85)"), 0.85);
  EXPECT_DOUBLE_EQ(*parse_confidence("**Confidence:** 70%"), 0.7);
  EXPECT_DOUBLE_EQ(*parse_confidence("My confidence is about 7 out of 10."), 0.7);
  EXPECT_DOUBLE_EQ(*parse_confidence("I'm 60% sure."), 0.6);
  EXPECT_DOUBLE_EQ(*parse_confidence("with 95 % confidence"), 0.95);
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence score - 0.25"), 0.25);
  EXPECT_DOUBLE_EQ(*parse_confidence("about 99.5\\% certain"), 0.995);
  EXPECT_DOUBLE_EQ(*parse_confidence("1,2,3 and 70% sure"), 0.7);
}

TEST(ParseConfidence, ScaleConversion) {
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 1"), 1.0);    // a probability, not 1%
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 75"), 0.75);  // > 1 without % is a percentage
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 100"), 1.0);
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 0"), 0.0);
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 0.5%"), 0.005);
}

TEST(ParseConfidence, OutOfRangeIsNoStatement) {
  EXPECT_EQ(parse_confidence("Confidence: 150%"), std::nullopt);
  EXPECT_EQ(parse_confidence("Confidence: 120"), std::nullopt);
  EXPECT_EQ(parse_confidence("Confidence: 11/10"), std::nullopt);
  EXPECT_EQ(parse_confidence("Confidence: -5%"), std::nullopt);
  EXPECT_EQ(parse_confidence("Confidence: 3 out of 0"), std::nullopt);
}

TEST(ParseConfidence, LastStatementWins) {
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 60%\nAfter review.\nConfidence: 85%"), 0.85);
  EXPECT_DOUBLE_EQ(*parse_confidence("I am 50% sure at first.\nConfidence: 0.9"), 0.9);
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 0.9\nActually I'm only 40% confident."), 0.4);
  // An invalid later statement does not erase a valid earlier one.
  EXPECT_DOUBLE_EQ(*parse_confidence("Confidence: 70%\nConfidence: 700%"), 0.7);
}

TEST(ParseConfidence, NoStatement) {
  EXPECT_EQ(parse_confidence(""), std::nullopt);
  EXPECT_EQ(parse_confidence("Answer: 42"), std::nullopt);
  EXPECT_EQ(parse_confidence("I have high confidence in this."), std::nullopt);
  EXPECT_EQ(parse_confidence("Confidence: <0-100>%"), std::nullopt);
  EXPECT_EQ(parse_confidence("Confidence (0-100): high"), std::nullopt);
  EXPECT_EQ(parse_confidence("The tax is 8% of the price."), std::nullopt);
  EXPECT_EQ(parse_confidence("Confidences: 80%"), std::nullopt);
  EXPECT_EQ(parse_confidence("x90% sure"), std::nullopt);  // glued to a letter: not a number
}

}  // namespace
}  // namespace parley
