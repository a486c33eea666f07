// parse_number and canonical_number.
#include <gtest/gtest.h>

#include <limits>

#include "parley/answer.h"

namespace parley {
namespace {

TEST(ParseNumber, StatementForms) {
  EXPECT_EQ(parse_number("Janet sells 16 - 3 - 4 = 9 eggs.\n#### 72"), 72.0);
  EXPECT_EQ(parse_number("So the result is \\boxed{72}."), 72.0);
  EXPECT_EQ(parse_number("Answer: $1,234.50"), 1234.5);
  EXPECT_EQ(parse_number("Answer: 1,000"), 1000.0);
  EXPECT_EQ(parse_number("#### -5"), -5.0);
  EXPECT_EQ(parse_number("The final answer is 42 apples."), 42.0);
  EXPECT_EQ(parse_number("**Final Answer:** 18"), 18.0);
  EXPECT_EQ(parse_number("## Answer\n\n$-3.5$"), -3.5);
}

TEST(ParseNumber, StatementBeatsLaterNumbers) {
  EXPECT_EQ(parse_number("A farmer has 3 apples and buys 4 more. Answer: 7"), 7.0);
  EXPECT_EQ(parse_number("Answer: 12\nI checked this with 3 methods."), 12.0);
  EXPECT_EQ(parse_number("Answer: 12\nConfidence: 75%"), 12.0);
}

TEST(ParseNumber, LaterStatementWins) {
  EXPECT_EQ(parse_number("The answer is 10. Wait, I forgot the tax.\nAnswer: 11"), 11.0);
  EXPECT_EQ(parse_number("Answer: 5\n\nCorrection: \\boxed{6}"), 6.0);
}

TEST(ParseNumber, ResultAfterEquals) {
  EXPECT_EQ(parse_number("Answer: 3 + 4 = 7 apples"), 7.0);
  EXPECT_EQ(parse_number("Answer: x = -2"), -2.0);
}

TEST(ParseNumber, FractionsAndPercentages) {
  EXPECT_EQ(parse_number("Answer: 3/4"), 0.75);
  EXPECT_EQ(parse_number("\\boxed{\\frac{1}{2}}"), 0.5);
  EXPECT_EQ(parse_number("$\\boxed{\\dfrac{-9}{4}}$"), -2.25);
  EXPECT_EQ(parse_number("Answer: 45%"), 45.0);
  EXPECT_EQ(parse_number("The discount is 12.5%"), 12.5);
}

TEST(ParseNumber, LastNumberWhenNoStatement) {
  EXPECT_EQ(parse_number("He has 3 apples, buys 4 more, and ends with 7."), 7.0);
  EXPECT_EQ(parse_number("42"), 42.0);
  EXPECT_EQ(parse_number("It is -0.5 degrees"), -0.5);
}

TEST(ParseNumber, ConfidenceLinesAreNotTheAnswer) {
  EXPECT_EQ(parse_number("She pays 18 dollars.\nConfidence: 75%"), 18.0);
  EXPECT_EQ(parse_number("Total: 30\nI am 90% confident."), 30.0);
  EXPECT_EQ(parse_number("Confidence: 75%"), std::nullopt);
  // Payload "Answer:" then only a confidence line: no number stated.
  EXPECT_EQ(parse_number("We get 8.\nAnswer:\nConfidence: 80%"), 8.0);
  EXPECT_EQ(parse_number("Answer: 64 (confidence 90%)"), 64.0);
}

TEST(ParseNumber, ScaleWords) {
  EXPECT_EQ(parse_number("Answer: 1.5 million"), 1500000.0);
  EXPECT_EQ(parse_number("The city has 2 thousand residents"), 2000.0);
  EXPECT_EQ(parse_number("Answer: 3 thousands of them"), 3.0);  // not the scale word
}

TEST(ParseNumber, NothingToFind) {
  EXPECT_EQ(parse_number(""), std::nullopt);
  EXPECT_EQ(parse_number("I cannot tell."), std::nullopt);
  EXPECT_EQ(parse_number("Answer: unknown"), std::nullopt);
  EXPECT_EQ(parse_number("H2O is water"), std::nullopt);
}

TEST(CanonicalNumber, Integers) {
  EXPECT_EQ(canonical_number(42.0), "42");
  EXPECT_EQ(canonical_number(-3.0), "-3");
  EXPECT_EQ(canonical_number(0.0), "0");
  EXPECT_EQ(canonical_number(-0.0), "0");
  EXPECT_EQ(canonical_number(1234567.0), "1234567");
  EXPECT_EQ(canonical_number(1e20), "100000000000000000000");
}

TEST(CanonicalNumber, Decimals) {
  EXPECT_EQ(canonical_number(0.75), "0.75");
  EXPECT_EQ(canonical_number(1234.5), "1234.5");
  EXPECT_EQ(canonical_number(-2.25), "-2.25");
  EXPECT_EQ(canonical_number(1.0 / 3.0), "0.333333");
  EXPECT_EQ(canonical_number(2.0 / 3.0), "0.666667");
  EXPECT_EQ(canonical_number(12.3456789), "12.345679");
  EXPECT_EQ(canonical_number(2.0000000001), "2");  // rounds to an integer at six decimals
  // Below 1, six significant digits survive.
  EXPECT_EQ(canonical_number(-0.0000000001), "-0.0000000001");
  EXPECT_EQ(canonical_number(0.000123456789), "0.000123457");
  EXPECT_EQ(canonical_number(0.05), "0.05");
}

TEST(CanonicalNumber, NotFinite) {
  EXPECT_EQ(canonical_number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(canonical_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(canonical_number(std::numeric_limits<double>::quiet_NaN()), "nan");
}

}  // namespace
}  // namespace parley
