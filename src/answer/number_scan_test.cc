// Number tokens: separators, signs, fractions, percentages and what is not a number.
#include "answer/number_scan.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace parley::answer_scan {
namespace {

std::vector<double> numbers_in(std::string_view text) {
  std::vector<double> out;
  for (auto token = next_number(text, 0); token; token = next_number(text, token->end)) out.push_back(token->value);
  return out;
}

TEST(ReadNumber, PlainIntegerAndDecimal) {
  auto token = read_number("42 apples", 0);
  ASSERT_TRUE(token);
  EXPECT_EQ(token->value, 42.0);
  EXPECT_EQ(token->begin, 0u);
  EXPECT_EQ(token->end, 2u);
  EXPECT_DOUBLE_EQ(read_number("3.25", 0)->value, 3.25);
  EXPECT_DOUBLE_EQ(read_number(".5", 0)->value, 0.5);
}

TEST(ReadNumber, ThousandsSeparatorsOnlyInGroupsOfThree) {
  EXPECT_EQ(read_number("1,234,567", 0)->value, 1234567.0);
  EXPECT_DOUBLE_EQ(read_number("$1,234.50", 0)->value, 1234.5);
  EXPECT_EQ(read_number("1,2,3", 0)->value, 1.0);
  EXPECT_EQ(read_number("1,0000", 0)->value, 1.0);
  EXPECT_EQ(read_number("1234,567", 0)->value, 1234.0);  // four leading digits: not a group
}

TEST(ReadNumber, SignsAndCurrency) {
  EXPECT_EQ(read_number("-5", 0)->value, -5.0);
  EXPECT_EQ(read_number("-$5", 0)->value, -5.0);
  EXPECT_EQ(read_number("+7", 0)->value, 7.0);
  EXPECT_EQ(read_number("\xE2\x88\x92" "3", 0)->value, -3.0);
  EXPECT_EQ(read_number("\\$18", 0)->value, 18.0);
  EXPECT_FALSE(read_number("-", 0));
  EXPECT_FALSE(read_number("$", 0));
}

TEST(ReadNumber, FractionsAndPercent) {
  auto fraction = read_number("3/4", 0);
  ASSERT_TRUE(fraction);
  EXPECT_DOUBLE_EQ(fraction->value, 0.75);
  EXPECT_TRUE(fraction->fraction);
  EXPECT_EQ(fraction->end, 3u);
  auto latex = read_number("\\frac{3}{4}", 0);
  ASSERT_TRUE(latex);
  EXPECT_DOUBLE_EQ(latex->value, 0.75);
  EXPECT_EQ(latex->end, 11u);
  EXPECT_DOUBLE_EQ(read_number("-\\dfrac{1}{8}", 0)->value, -0.125);
  EXPECT_DOUBLE_EQ(read_number("\\frac{ -6 }{ 4 }", 0)->value, -1.5);
  auto percent = read_number("45%", 0);
  EXPECT_EQ(percent->value, 45.0);
  EXPECT_TRUE(percent->percent);
  EXPECT_EQ(percent->end, 3u);
  EXPECT_TRUE(read_number("45 %", 0)->percent);
  EXPECT_TRUE(read_number("45\\%", 0)->percent);
  // Division by zero is not a fraction: the numerator stands alone.
  auto by_zero = read_number("3/0", 0);
  EXPECT_EQ(by_zero->value, 3.0);
  EXPECT_FALSE(by_zero->fraction);
  EXPECT_FALSE(read_number("\\frac{1}{0}", 0));
  EXPECT_FALSE(read_number("\\frac{1}", 0));
}

// Unicode vulgar fractions: U+00BD is 1/2 (two bytes), U+2153 is 1/3 and U+215E is 7/8 (three).
TEST(ReadNumber, VulgarFractions) {
  auto mixed = read_number("2\xC2\xBD hours", 0);
  ASSERT_TRUE(mixed);
  EXPECT_DOUBLE_EQ(mixed->value, 2.5);
  EXPECT_EQ(mixed->end, 3u);
  EXPECT_TRUE(mixed->fraction);
  auto spaced = read_number("2 \xE2\x85\x93 cups", 0);
  ASSERT_TRUE(spaced);
  EXPECT_DOUBLE_EQ(spaced->value, 2.0 + 1.0 / 3.0);
  EXPECT_EQ(spaced->end, 5u);
  EXPECT_DOUBLE_EQ(read_number("-\xE2\x85\x9E", 0)->value, -0.875);
  auto alone = next_number("about \xC2\xBE of an hour", 0);
  ASSERT_TRUE(alone);
  EXPECT_DOUBLE_EQ(alone->value, 0.75);
  EXPECT_EQ(alone->begin, 6u);
  // A decimal does not take a fraction after it, and one glued to a letter is no number.
  EXPECT_EQ(read_number("2.5\xC2\xBD", 0)->end, 3u);
  EXPECT_FALSE(next_number("x\xC2\xBD", 0));
}

TEST(ReadNumber, Exponent) {
  EXPECT_EQ(read_number("2e3", 0)->value, 2000.0);
  EXPECT_DOUBLE_EQ(read_number("1.5E-2", 0)->value, 0.015);
  EXPECT_EQ(read_number("3eggs", 0)->value, 3.0);
  EXPECT_FALSE(read_number("1e999", 0));  // not finite
}

TEST(NextNumber, FindsNumbersInProse) {
  EXPECT_EQ(numbers_in("He had 3 apples and bought 4 more, so 7."), (std::vector<double>{3, 4, 7}));
  EXPECT_EQ(numbers_in("H2O and x2 and B12 are not numbers"), std::vector<double>{});
  EXPECT_EQ(numbers_in("pages 10-15"), (std::vector<double>{10, 15}));
  EXPECT_EQ(numbers_in("COVID-19"), (std::vector<double>{19}));
  EXPECT_EQ(numbers_in("x = -3, y = 1,000"), (std::vector<double>{-3, 1000}));
  EXPECT_EQ(numbers_in("values 1,2,3"), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(numbers_in("v1.2.3"), std::vector<double>{});
  EXPECT_EQ(numbers_in("costs US$5"), (std::vector<double>{5}));
}

}  // namespace
}  // namespace parley::answer_scan
