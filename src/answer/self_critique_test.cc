#include "parley/self_critique.h"

#include <gtest/gtest.h>

namespace parley {
namespace {

Task choice_task() {
  Task t;
  t.id = "t1";
  t.question = "Which planet is the largest?";
  t.options = {"Mars", "Jupiter", "Venus", "Earth"};
  t.answer = "B";
  t.answer_type = AnswerType::kChoice;
  return t;
}

TEST(SelfCritique, ReadsEverySectionOfAWellFormedResponse) {
  const std::string text =
      "Initial answer: B\n"
      "Initial reasoning: Jupiter has the largest mass and radius.\n"
      "It is a gas giant.\n"
      "Initial confidence: 90%\n"
      "Self-critique: However, Venus could be meant if the question is about Earth-like planets.\n"
      "Alternative answer: C\n"
      "Critique confidence: 15%\n"
      "Final answer: B\n"
      "Final confidence: 0.85\n";
  const SelfCritique c = parse_self_critique(text, choice_task());
  EXPECT_TRUE(c.complete()) << c.problem();
  EXPECT_EQ(c.initial.value, "B");
  EXPECT_DOUBLE_EQ(*c.initial.confidence, 0.90);
  EXPECT_EQ(c.initial_reasoning, "Jupiter has the largest mass and radius.\nIt is a gas giant.");
  EXPECT_EQ(c.critique, "However, Venus could be meant if the question is about Earth-like planets.");
  EXPECT_EQ(c.alternative, "C");
  EXPECT_DOUBLE_EQ(*c.critique_confidence, 0.15);
  EXPECT_EQ(c.final.value, "B");
  EXPECT_DOUBLE_EQ(*c.final.confidence, 0.85);
  EXPECT_EQ(c.answer.value, "B");
  EXPECT_DOUBLE_EQ(*c.answer.confidence, 0.85);
  EXPECT_EQ(c.problem(), "");
}

TEST(SelfCritique, OneLineWithDoublePipesBetweenTheBlocks) {
  // Each block's confidence stays in its block: the critique's 10%, the final answer's 95%.
  const std::string text =
      "Initial answer: B | Reasoning: Jupiter is 11 times wider than Earth | Confidence: 90% || Critique: Saturn's "
      "rings make it look bigger in photos | Alternative: C | Confidence: 10% || Final answer: B | Confidence: 95%";
  const SelfCritique c = parse_self_critique(text, choice_task());
  EXPECT_TRUE(c.complete()) << c.problem();
  EXPECT_EQ(c.initial.value, "B");
  EXPECT_DOUBLE_EQ(*c.initial.confidence, 0.90);
  EXPECT_EQ(c.initial_reasoning, "Jupiter is 11 times wider than Earth");
  EXPECT_EQ(c.critique, "Saturn's rings make it look bigger in photos");
  EXPECT_EQ(c.alternative, "C");
  EXPECT_DOUBLE_EQ(*c.critique_confidence, 0.10);
  EXPECT_EQ(c.final.value, "B");
  EXPECT_DOUBLE_EQ(*c.final.confidence, 0.95);
}

TEST(SelfCritique, AcceptsMarkdownNumberingAndOptionText) {
  const std::string text =
      "## Initial answer: (B) Jupiter\n"
      "**Initial reasoning:** It is the biggest.\n"
      "1. **Initial confidence**: 80\n"
      "- Critique: Mars looks big in the sky, but that is closeness.\n"
      "**Self-critique confidence:** 20%\n"
      "FINAL ANSWER: Jupiter\n"
      "Final confidence: 75%";
  const SelfCritique c = parse_self_critique(text, choice_task());
  EXPECT_TRUE(c.complete()) << c.problem();
  EXPECT_EQ(c.initial.value, "B");
  EXPECT_DOUBLE_EQ(*c.initial.confidence, 0.80);
  EXPECT_EQ(c.critique, "Mars looks big in the sky, but that is closeness.");
  EXPECT_FALSE(c.alternative.has_value());  // optional section
  EXPECT_DOUBLE_EQ(*c.critique_confidence, 0.20);
  EXPECT_EQ(c.final.value, "B");
}

TEST(SelfCritique, NamesTheMissingSectionsAndFallsBackToTheInitialAnswer) {
  const std::string text =
      "Initial answer: D\n"
      "Initial reasoning: Earth is where we live.\n"
      "Initial confidence: 60%\n";
  const SelfCritique c = parse_self_critique(text, choice_task());
  EXPECT_FALSE(c.complete());
  EXPECT_EQ(c.problem(),
            "missing or unreadable sections: Self-critique, Critique confidence, Final answer, "
            "Final confidence");
  EXPECT_EQ(c.answer.value, "D");
  EXPECT_DOUBLE_EQ(*c.answer.confidence, 0.60);
}

TEST(SelfCritique, WithoutCritiqueLabelsABareAnswerAndConfidenceAreTheInitialOnes) {
  const SelfCritique c =
      parse_self_critique("I think it is Jupiter.\nAnswer: B\nConfidence: 70%", choice_task());
  EXPECT_EQ(c.initial.value, "B");
  EXPECT_DOUBLE_EQ(*c.initial.confidence, 0.70);
  EXPECT_EQ(c.missing.size(), 5u);  // reasoning, critique and its confidence, final answer and confidence
  EXPECT_EQ(c.answer.value, "B");
  EXPECT_DOUBLE_EQ(*c.answer.confidence, 0.70);
}

TEST(SelfCritique, WithoutAnyLabelTheAnswerIsAnyAnswerStatement) {
  const SelfCritique c = parse_self_critique("I think it is Jupiter, so the answer is B. I'm 70% sure.", choice_task());
  EXPECT_EQ(c.missing.size(), 7u);  // every required section
  EXPECT_EQ(c.answer.value, "B");
  EXPECT_DOUBLE_EQ(*c.answer.confidence, 0.70);
  EXPECT_FALSE(parse_self_critique("", choice_task()).answer.parsed());
}

TEST(SelfCritique, AnUnreadableValueCountsAsMissing) {
  const std::string text =
      "Initial answer: B\nInitial reasoning: big.\nInitial confidence: very high\nSelf-critique: none.\n"
      "Critique confidence: 10%\nFinal answer: Pluto\nFinal confidence: 80%";
  const SelfCritique c = parse_self_critique(text, choice_task());
  EXPECT_EQ(c.missing, (std::vector<CritiqueSection>{CritiqueSection::kInitialConfidence,
                                                     CritiqueSection::kFinalAnswer}));
  EXPECT_EQ(c.answer.value, "B");  // the final answer names no option: the initial one stands
}

TEST(SelfCritique, NumericTasksReadNumbers) {
  Task t;
  t.id = "n";
  t.question = "What is 6 times 7?";
  t.answer = "42";
  t.answer_type = AnswerType::kNumber;
  const SelfCritique c = parse_self_critique(
      "Initial answer: 42\nInitial reasoning: 6*7=42.\nInitial confidence: 95%\nSelf-critique: Maybe 48 if "
      "misread.\nAlternative answer: 48\nCritique confidence: 5%\nFinal answer: 42\nFinal confidence: 95%",
      t);
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(c.initial.value, "42");
  EXPECT_EQ(c.alternative, "48");
  EXPECT_EQ(c.final.value, "42");
}

TEST(SelfCritique, TextBeforeTheFirstLabelIsIgnoredAndALaterLabelWins) {
  const SelfCritique c = parse_self_critique(
      "Sure, here is my answer.\nFinal answer: C\nFinal answer: B\nFinal confidence: 50%", choice_task());
  EXPECT_EQ(c.final.value, "B");
}

}  // namespace
}  // namespace parley
