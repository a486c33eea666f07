// parse_choice: letter forms, answer-statement contexts, option text, and bare letters that
// are words ("A farmer", "I think").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parley/answer.h"

namespace parley {
namespace {

const std::vector<std::string> kPlanets = {"Mars", "Jupiter", "Venus", "Earth"};

std::optional<std::string> choice(std::string_view text) { return parse_choice(text, kPlanets); }

TEST(ParseChoice, LetterForms) {
  EXPECT_EQ(choice("B"), "B");
  EXPECT_EQ(choice("(B)"), "B");
  EXPECT_EQ(choice("B)"), "B");
  EXPECT_EQ(choice("**C.**"), "C");
  EXPECT_EQ(choice("Option D"), "D");
  EXPECT_EQ(choice("  [a]  "), "A");
}

TEST(ParseChoice, ADecliningClauseHoldsNoAnswer) {
  // The last line names one option's text, but inside a clause that declines to answer.
  EXPECT_EQ(choice("Let me think.\nI'm not sure it is Jupiter."), std::nullopt);
  EXPECT_EQ(choice("Let me think.\nIt is Jupiter."), "B");
  // A statement whose declining clause starts after the payload's first word declines too: the
  // earlier statement's option is not taken instead.
  EXPECT_EQ(choice("The answer is B.\nAnswer: on reflection I cannot decide."), std::nullopt);
  EXPECT_EQ(choice("The answer is B.\nAnswer: frankly, I can't tell which one is right."), std::nullopt);
}

TEST(ParseChoice, AnswerStatements) {
  EXPECT_EQ(choice("Answer: B"), "B");
  EXPECT_EQ(choice("The answer is (C)."), "C");
  EXPECT_EQ(choice("**Answer:** D"), "D");
  EXPECT_EQ(choice("**Answer**: A"), "A");
  EXPECT_EQ(choice("final answer: b"), "B");
  EXPECT_EQ(choice("Answer: (B) Paris"), "B");
  EXPECT_EQ(choice("The correct option is C."), "C");
  EXPECT_EQ(choice("Therefore the final answer is $\\boxed{D}$."), "D");
  EXPECT_EQ(choice("\\boxed{\\text{A}}"), "A");
  EXPECT_EQ(choice("Answer (C)"), "C");
  EXPECT_EQ(choice("## Final Answer\n\n**B**\n\nConfidence: 70%"), "B");
  EXPECT_EQ(choice("My answer remains B."), "B");
  EXPECT_EQ(choice("Answer: Option A is correct"), "A");  // "A" after "Option" is a letter
}

TEST(ParseChoice, FirstPersonPicks) {
  EXPECT_EQ(choice("Option A is wrong. Option C is wrong. I choose option B."), "B");
  EXPECT_EQ(choice("Both seem plausible, but I'll go with (C)."), "C");
  EXPECT_EQ(choice("I pick Venus"), "C");
}

TEST(ParseChoice, LaterStatementsWin) {
  EXPECT_EQ(choice("I think it's between B and C. Answer: C"), "C");
  EXPECT_EQ(choice("At first the answer is B.\nOn reflection, the answer is D.\nConfidence: 60%"), "D");
  EXPECT_EQ(choice("Agent 2 says the answer is A. I disagree.\nAnswer: B\nConfidence: 80%"), "B");
}

TEST(ParseChoice, StatementWithoutLetterFallsBackToEarlierOne) {
  EXPECT_EQ(choice("The answer is C.\nThat is my answer: nothing else to add"), "C");
}

TEST(ParseChoice, ArticleAndPronounAreNotLetters) {
  EXPECT_EQ(choice("A farmer has 3 apples."), std::nullopt);
  EXPECT_EQ(choice("I am not sure at all."), std::nullopt);
  EXPECT_EQ(choice("A farmer has 3 apples.\nAnswer: C"), "C");
  EXPECT_EQ(choice("Answer: I think B"), "B");
  EXPECT_EQ(choice("The answer is a bit unclear."), std::nullopt);
  EXPECT_EQ(choice("The answer is a"), "A");
}

TEST(ParseChoice, PayloadNamingSeveralLettersIsUndecided) {
  EXPECT_EQ(choice("Answer: B or C"), std::nullopt);
  EXPECT_EQ(choice("Answer: B/C"), std::nullopt);
  EXPECT_EQ(choice("Answer: B and I stand by it"), "B");  // "I" is the pronoun here
  EXPECT_EQ(choice("Answer: clearly (C), as shown"), "C");
}

TEST(ParseChoice, LetterBeyondOptionsIsUnparsed) {
  EXPECT_EQ(choice("Answer: E"), std::nullopt);
  EXPECT_EQ(choice("Answer: (F)\nConfidence: 90%"), std::nullopt);
  // The last statement decides: an invalid final letter does not fall back to an earlier one.
  EXPECT_EQ(choice("The answer is B. No wait.\nAnswer: E"), std::nullopt);
  EXPECT_EQ(choice("E"), std::nullopt);
  EXPECT_EQ(parse_choice("Answer: A", {}), std::nullopt);
}

TEST(ParseChoice, OptionText) {
  EXPECT_EQ(choice("Answer: Jupiter"), "B");
  EXPECT_EQ(choice("The answer is jupiter."), "B");
  EXPECT_EQ(choice("After comparing sizes, Jupiter is the largest planet.\nConfidence: 95%"), "B");
  // Several options on the last line: no decision.
  EXPECT_EQ(choice("Jupiter is bigger than Earth."), std::nullopt);
  // The option named first in a statement wins.
  EXPECT_EQ(choice("Answer: Venus, not Mars"), "C");
}

TEST(ParseChoice, NestedOptionTextsPreferTheLonger) {
  const std::vector<std::string> cities = {"Paris", "Paris, Texas", "Lyon"};
  EXPECT_EQ(parse_choice("Answer: Paris, Texas", cities), "B");
  EXPECT_EQ(parse_choice("Answer: Paris", cities), "A");
  EXPECT_EQ(parse_choice("It must be Paris, Texas.", cities), "B");
}

TEST(ParseChoice, NumericOptionTexts) {
  const std::vector<std::string> counts = {"12", "7", "5", "none of these"};
  EXPECT_EQ(parse_choice("3 + 4 = 7 so the answer is 7", counts), "B");
  EXPECT_EQ(parse_choice("Answer: None of these.", counts), "D");
}

TEST(ParseChoice, ListedOptionsAreNotAnAnswer) {
  EXPECT_EQ(choice("A. Mars\nB. Jupiter\nC. Venus\nD. Earth"), std::nullopt);
}

// A bulleted letter line is a letter line; two letters on a line are no answer.
TEST(ParseChoice, BulletedLetterLines) {
  EXPECT_EQ(choice("Weighing them.\n- C"), "C");
  EXPECT_EQ(choice("Weighing them.\n+ D"), "D");
  EXPECT_EQ(choice("Weighing them.\nB C"), std::nullopt);
}

TEST(ParseChoice, LastLetterLineWins) {
  EXPECT_EQ(choice("(A)\nHmm, reconsidering.\n(C)\nConfidence: 55%"), "C");
}

// A task with more than 26 options labels them A..Z, AA, AB, ... (option_letter); a reply
// names the later ones as models write them. Two-letter labels are capitals only, and only
// when the task has that many options.
std::vector<std::string> thirty_options() {
  std::vector<std::string> options;
  for (int i = 0; i < 30; ++i) options.push_back("choice number " + std::to_string(i));
  return options;
}

TEST(ParseChoice, LabelsBeyondZ) {
  const auto options = thirty_options();
  EXPECT_EQ(parse_choice("Answer: AA", options), "AA");
  EXPECT_EQ(parse_choice("The answer is (AB).", options), "AB");
  EXPECT_EQ(parse_choice("**Answer:** AD\nConfidence: 80%", options), "AD");
  EXPECT_EQ(parse_choice("I weighed several.\nAC", options), "AC");
  EXPECT_EQ(parse_choice("Having compared them all, I'll go with option AB.", options), "AB");
  EXPECT_EQ(choice("Having compared them all, I'll go with option B."), "B");
  EXPECT_EQ(parse_choice("Answer: [AC]", options), "AC");
  EXPECT_EQ(parse_choice("Answer: choice number 27", options), "AB");  // by the option's text
  EXPECT_EQ(parse_choice("Answer: Z", options), "Z");
  EXPECT_EQ(parse_choice("Answer: b", options), "B");
  // Beyond the 30 options (AE is the 31st): unusable, as "E" is with four.
  EXPECT_EQ(parse_choice("Answer: AE", options), std::nullopt);
  EXPECT_EQ(parse_choice("Answer: (ZZ)", options), std::nullopt);
  // Lower case or glued to other letters is a word, not a label.
  EXPECT_EQ(parse_choice("Answer: aa", options), std::nullopt);
  EXPECT_EQ(parse_choice("Answer: AAB", options), std::nullopt);
  // "A or AB" hedges between two labels: no single answer.
  EXPECT_EQ(parse_choice("Answer: AA or AB", options), std::nullopt);
  // With four options "AA" is no label at all.
  EXPECT_EQ(choice("Answer: AA"), std::nullopt);
  EXPECT_EQ(choice("AB"), std::nullopt);
}

}  // namespace
}  // namespace parley
