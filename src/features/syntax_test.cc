// SyntaxAnalyzer (link-grammar): pinned depths and part-of-speech counts on simple sentences,
// checked against the parses link-grammar 5.12 prints, and robustness on hostile input.

#include <gtest/gtest.h>

#include <clocale>
#include <string>

#include "parley/features.h"

namespace parley {
namespace {

// One dictionary for the whole file: loading it takes ~0.2 s.
const SyntaxAnalyzer& analyzer() {
  static const SyntaxAnalyzer instance;
  return instance;
}

TEST(SyntaxAnalyzer, SimpleSentences) {
  // (S (NP Jupiter.m) (VP is.v (NP the (ADJP largest.a-s) planet.n)) .): S > VP > NP > ADJP = 4;
  // nouns Jupiter.m planet.n, verb is.v, adjective largest.a-s.
  SyntaxStats s = analyzer().analyze("Jupiter is the largest planet.");
  EXPECT_EQ(s.max_depth, 4);
  EXPECT_EQ(s.nouns, 2);
  EXPECT_EQ(s.verbs, 1);
  EXPECT_EQ(s.adjectives, 1);

  // (S (NP the big.a dog.n) (VP (ADVP quickly) ran.v-d (PP to.r (NP the red.a house.n)) and.j-v
  //  barked.v-d (ADVP loudly)) .): S > VP > PP > NP = 4; dog house; ran barked; big red.
  s = analyzer().analyze("The big dog quickly ran to the red house and barked loudly.");
  EXPECT_EQ(s.max_depth, 4);
  EXPECT_EQ(s.nouns, 2);
  EXPECT_EQ(s.verbs, 2);
  EXPECT_EQ(s.adjectives, 2);

  // (S (NP dogs.n) (VP bark.v) .) = 2.
  s = analyzer().analyze("Dogs bark.");
  EXPECT_EQ(s.max_depth, 2);
  EXPECT_EQ(s.nouns, 1);
  EXPECT_EQ(s.verbs, 1);
  EXPECT_EQ(s.adjectives, 0);
}

TEST(SyntaxAnalyzer, SentencesAddUpAndDepthIsTheMaximum) {
  const SyntaxStats s = analyzer().analyze("Dogs bark.\nJupiter is the largest planet.");
  EXPECT_EQ(s.max_depth, 4);
  EXPECT_EQ(s.nouns, 3);
  EXPECT_EQ(s.verbs, 2);
  EXPECT_EQ(s.adjectives, 1);
}

TEST(SyntaxAnalyzer, EmptyAndPunctuationOnly) {
  for (const char* text : {"", "   \n\t", "?!...", "(((]]]"}) {
    const SyntaxStats s = analyzer().analyze(text);
    EXPECT_EQ(s.max_depth, 0) << text;
    EXPECT_EQ(s.nouns + s.verbs + s.adjectives, 0) << text;
  }
}

TEST(SyntaxAnalyzer, SurvivesHostileInput) {
  // A 208-word run-on sentence is parsed in 30-token pieces.
  std::string run_on;
  for (int i = 0; i < 13; ++i) {
    run_on += "the patient was admitted to the hospital and the doctors ordered several tests, and ";
  }
  SyntaxStats s = analyzer().analyze(run_on);
  EXPECT_GT(s.max_depth, 0);
  EXPECT_GT(s.nouns, 13);

  // Non-ASCII, invalid UTF-8, control bytes and garbage: no crash, sane numbers.
  for (const std::string& text :
       {std::string("Le caf\u00e9 est tr\u00e8s bon. \u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8."),
        std::string("caf\xe9 \xff\xfe bad utf8 \x01\x02"),
        std::string("asdf qwer ;;; ^^^ 1234 zxcv !!! ((( ]]] {{ }} [?] [!<X>] .v .n"),
        std::string(500, 'x')}) {
    s = analyzer().analyze(text);
    EXPECT_GE(s.max_depth, 0);
    EXPECT_LE(s.max_depth, 40);
    EXPECT_GE(s.nouns, 0);
  }
}

TEST(SyntaxAnalyzer, LeavesTheProcessLocaleAndStderrAlone) {
  const std::string before = std::setlocale(LC_ALL, nullptr);
  testing::internal::CaptureStderr();
  {
    const SyntaxAnalyzer own;  // a second dictionary in the same thread
    (void)own.analyze("Le caf\u00e9 est tr\u00e8s bon.");
  }
  (void)analyzer().analyze("Jupiter is the largest planet.");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(std::setlocale(LC_ALL, nullptr), before);
}

}  // namespace
}  // namespace parley
