// The byte scanners every answer parser stands on: find_byte_of's 16-byte steps against a
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

// Blocks of 16 bytes are compared at once: matches at every position of a block and past it,
// including a byte above 0x7F, must be found exactly where a byte-by-byte search finds them.
TEST(FindByteOf, AgreesWithAByteByByteSearchOnRandomText) {
  static constexpr char kWanted[] = {'c', 'C', '\xE2'};
  std::uint64_t state = 12345;
  const auto next_byte = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<char>(state >> 56);
  };
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text(static_cast<std::size_t>(trial % 70), 'x');
    for (char& c : text) c = next_byte();
    for (std::size_t from = 0; from <= text.size(); from += 1 + static_cast<std::size_t>(trial % 5)) {
      ASSERT_EQ(find_byte_of(text, from, kWanted), text.find_first_of(std::string_view(kWanted, 3), from))
          << trial << " " << from;
    }
  }
}

}  // namespace
}  // namespace parley::answer_scan
