#include <gtest/gtest.h>

#include "parley/task.h"

namespace parley {
namespace {

TEST(OptionLabels, LettersThenPairsAndBack) {
  EXPECT_EQ(option_letter(0), "A");
  EXPECT_EQ(option_letter(25), "Z");
  EXPECT_EQ(option_letter(26), "AA");
  EXPECT_EQ(option_letter(29), "AD");
  EXPECT_EQ(option_letter(51), "AZ");
  EXPECT_EQ(option_letter(52), "BA");
  EXPECT_EQ(option_letter(701), "ZZ");
  EXPECT_EQ(option_letter(702), "AAA");
  for (std::size_t i = 0; i < 2000; ++i) EXPECT_EQ(option_index(option_letter(i)), i) << i;
  EXPECT_EQ(option_index(""), std::nullopt);
  EXPECT_EQ(option_index("a"), std::nullopt);
  EXPECT_EQ(option_index("A1"), std::nullopt);
  EXPECT_EQ(option_index("ZZZZZZZZZ"), std::nullopt);  // too long to be a label
}

}  // namespace
}  // namespace parley
