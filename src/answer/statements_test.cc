// find_answer_statements skips to the bytes a statement can start with, 16 bytes at a time: every
// marker must be found wherever it falls in a block (its first two letters split across two
// blocks included) and in the byte-by-byte tail, in either case.
#include "answer/statements.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "answer/scan.h"

namespace parley::answer_scan {
namespace {

struct Marker {
  std::string sentence;  // a statement, as a reply writes it
  std::string payload;   // what the statement says
  bool choice_words;     // found only on choice tasks
};

const std::vector<Marker>& markers() {
  static const std::vector<Marker> kMarkers = {
      {"Answer: B", "B", false},          {"ANSWER: B", "B", false},      {"\\boxed{42}", "42", false},
      {"#### 72", "72", false},           {"The answer is C", "C", false}, {"I choose D", "D", true},
      {"i pick D", "D", true},            {"I'll go with A", "A", true},  {"I'd go with A", "A", true},
      {"The best option is B", "B", true}, {"OPTION: B", "B", true},      {"My choice is C", "C", true},
      {"CHOICE: C", "C", true},
  };
  return kMarkers;
}

// Filler with the markers' first letters in pairs that start no statement ("a x", "o c", "i-").
std::string filler(std::size_t length) {
  static const std::string kPattern = "ao cixi-pa hOaCn w";
  std::string out;
  while (out.size() < length) out += kPattern;
  out.resize(length);
  return out;
}

TEST(FindAnswerStatements, FindsEveryMarkerAtEveryOffset) {
  for (const Marker& marker : markers()) {
    for (std::size_t offset = 0; offset <= 40; ++offset) {
      for (std::size_t tail : {std::size_t{0}, std::size_t{1}, std::size_t{20}}) {
        const std::string text = filler(offset) + "\n" + marker.sentence + "\n" + filler(tail);
        const auto found = find_answer_statements(text, marker.choice_words);
        const std::string where = marker.sentence + " at " + std::to_string(offset) + ", tail " + std::to_string(tail);
        ASSERT_EQ(found.size(), 1u) << where;
        EXPECT_EQ(trim(found[0].payload), marker.payload) << where;  // payloads are untrimmed
        EXPECT_GE(found[0].position, offset + 1) << where;
        EXPECT_LT(found[0].position, offset + 1 + marker.sentence.size()) << where;
        if (!marker.choice_words) continue;
        EXPECT_TRUE(find_answer_statements(text, false).empty()) << where;  // not outside choice tasks
      }
    }
  }
}

TEST(FindAnswerStatements, NothingInFillerOrInsideWords) {
  for (std::size_t length = 0; length <= 80; ++length) {
    EXPECT_TRUE(find_answer_statements(filler(length), true).empty()) << length;
  }
  EXPECT_TRUE(find_answer_statements("The reanswer: B, a coption: C, the nonchoice is D.", true).empty());
}

TEST(FindAnswerStatements, StatementsInTextOrder) {
  const std::string text = "First, I choose A. Then #### 7 and \\boxed{B}; finally the answer is C.";
  const auto found = find_answer_statements(text, true);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].position, text.find("I choose"));
  EXPECT_EQ(found[1].position, text.find("####"));
  EXPECT_EQ(found[2].position, text.find("\\boxed"));
  EXPECT_EQ(found[3].position, text.find("answer"));
  EXPECT_EQ(found[3].payload, "C.");
}

// A run of '#' is read once: "##### 72" is one statement, and the byte after a short run may
// start one ("#Answer: B").
TEST(FindAnswerStatements, HashRunsAreReadOnce) {
  EXPECT_EQ(find_answer_statements("##### 72").size(), 1u);
  const auto heading = find_answer_statements("#Answer: B");
  ASSERT_EQ(heading.size(), 1u);
  EXPECT_EQ(heading[0].position, 1u);
  EXPECT_EQ(heading[0].payload, "B");
}

// "Answer" leading its line needs no colon or verb, also after "Final" at the very start.
TEST(FindAnswerStatements, AnswerLeadingItsLine) {
  for (const std::string text : {"Answer (B)", "Final Answer B", "Reasoning.\n## Answer\nB"}) {
    const auto found = find_answer_statements(text);
    ASSERT_EQ(found.size(), 1u) << text;
    EXPECT_NE(found[0].payload.find('B'), std::string_view::npos) << text;
  }
  EXPECT_TRUE(find_answer_statements("The answer depends on B").empty());  // in passing
}

}  // namespace
}  // namespace parley::answer_scan
