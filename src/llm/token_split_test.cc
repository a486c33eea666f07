// split_tokens: whole parts in proportion, summing exactly to the total.
#include "llm/token_split.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace parley {
namespace {

TEST(SplitTokens, ProportionalWholePartsSummingToTheTotal) {
  // 20 · (3, 5, 1) / 9 = 6.67, 11.11, 2.22: floors 6, 11, 2 leave 1 for the largest fraction.
  EXPECT_EQ(split_tokens(20, {3, 5, 1}), (std::vector<std::int64_t>{7, 11, 2}));
  EXPECT_EQ(split_tokens(100, {9, 9, 2}), (std::vector<std::int64_t>{45, 45, 10}));  // docs/formats.md
  // Equal fractions: the earliest first.
  EXPECT_EQ(split_tokens(10, {1, 1, 1}), (std::vector<std::int64_t>{4, 3, 3}));
  // No weight at all: equal parts.
  EXPECT_EQ(split_tokens(7, {0, 0}), (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(split_tokens(0, {5, 2}), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(split_tokens(5, {}), (std::vector<std::int64_t>{}));
  // 1000000007 · 2/3 = 666666671.33, · 1/3 = 333333335.67.
  EXPECT_EQ(split_tokens(1000000007, {2, 1}), (std::vector<std::int64_t>{666666671, 333333336}));
}

}  // namespace
}  // namespace parley
