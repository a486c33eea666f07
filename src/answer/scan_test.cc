// The byte scanners every answer parser stands on: find_byte_of's 8-byte steps against a
// byte-by-byte search, and find_ci at the edges of the text.
#include "answer/scan.h"

#include <gtest/gtest.h>

#include <string>

namespace parley::answer_scan {
namespace {

TEST(FindCi, FindsAWordEndingTheTextWithoutCase) {
  EXPECT_EQ(find_ci("abc", "abc"), 0u);  // the word is the whole text
  EXPECT_EQ(find_ci("so: ABC", "abc"), 4u);
  EXPECT_EQ(find_ci("so: ABC", "abc", 4), 4u);
  EXPECT_EQ(find_ci("so: ABC", "abc", 5), std::string_view::npos);
  EXPECT_EQ(find_ci("ab", "abc"), std::string_view::npos);  // text shorter than the word
  EXPECT_EQ(find_ci("abc", "abc", 9), std::string_view::npos);
  EXPECT_EQ(find_ci("x (b)", "(b)"), 2u);  // a first byte that is no letter
  EXPECT_EQ(find_ci("abc", "", 3), 3u);
}

TEST(FindByteOf, AgreesWithAByteByByteSearchAtEveryOffset) {
  static constexpr char kEnds[] = {'.', '!', '?'};
  const std::string text = "Step one is long enough. Then! Finally the answer is B? yes";
  for (std::size_t from = 0; from <= text.size(); ++from) {
    EXPECT_EQ(find_byte_of(text, from, kEnds), text.find_first_of(".!?", from)) << from;
  }
}

}  // namespace
}  // namespace parley::answer_scan
