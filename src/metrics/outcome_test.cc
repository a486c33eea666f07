// Where a debate started and whether it flipped right → wrong (the store's index columns).
#include <gtest/gtest.h>

#include "parley/answer.h"
#include "parley/metrics.h"
#include "transcript_support.h"

namespace parley {
namespace {

using testing::numbered;
using testing::reask_of;

MessageRecord call(int round, std::string agent, std::string role, std::optional<std::string> answer,
                   std::optional<double> confidence = std::nullopt) {
  MessageRecord m;
  m.round = round;
  m.agent = std::move(agent);
  m.role = std::move(role);
  m.text = "reply";
  m.answer = std::move(answer);
  m.confidence = confidence;
  return m;
}

// With `correct` as the run decides it.
Transcript scored(Transcript t) {
  t.correct = t.final_answer && answers_match(answer_key(t), *t.final_answer);
  return t;
}

Transcript choice_debate(std::vector<MessageRecord> calls, std::optional<std::string> final_answer) {
  Transcript t;
  t.task_id = "t1";
  t.gold = "B";
  t.answer_type = AnswerType::kChoice;
  t.messages = numbered(std::move(calls));
  t.final_answer = std::move(final_answer);
  return scored(std::move(t));
}

TEST(Outcome, TheAnswerKeyIsWhatTheTranscriptRecords) {
  Transcript t;
  t.task_id = "n3";
  t.gold = "42";
  t.answer_type = AnswerType::kNumber;
  t.tolerance = 0.5;
  const Task key = answer_key(t);
  EXPECT_EQ(key.id, "n3");
  EXPECT_EQ(key.answer, "42");
  EXPECT_EQ(key.answer_type, AnswerType::kNumber);
  EXPECT_EQ(key.tolerance, 0.5);
  EXPECT_TRUE(answers_match(key, "42.4"));
  EXPECT_FALSE(answers_match(key, "42.6"));
  t.answer_type.reset();  // an older transcript: compared as text
  EXPECT_EQ(answer_key(t).answer_type, AnswerType::kText);
}

TEST(Outcome, RightFirstRoundThenWrongFinalAnswerIsAFlip) {
  // Round 0: B, B, C (plurality B, right); round 1 all go to C; the debate answers C.
  const Transcript t = choice_debate({call(0, "a1", "answer", "B"), call(0, "a2", "answer", "B"),
                                      call(0, "a3", "answer", "C"), call(1, "a1", "revise", "C"),
                                      call(1, "a2", "revise", "C"), call(1, "a3", "revise", "C")},
                                     "C");
  EXPECT_EQ(initially_correct(t), true);
  EXPECT_TRUE(flipped_to_wrong(t));
  EXPECT_EQ(answer_rounds(t), 2);
}

TEST(Outcome, WrongToRightAndRightToRightAreNotFlips) {
  const Transcript fixed = choice_debate(
      {call(0, "a1", "answer", "C"), call(0, "a2", "answer", "C"), call(1, "a1", "revise", "B")}, "B");
  EXPECT_EQ(initially_correct(fixed), false);
  EXPECT_FALSE(flipped_to_wrong(fixed));
  const Transcript kept = choice_debate({call(0, "a1", "answer", "B"), call(1, "a1", "revise", "B")}, "B");
  EXPECT_EQ(initially_correct(kept), true);
  EXPECT_FALSE(flipped_to_wrong(kept));
  // Wrong to wrong.
  const Transcript stuck = choice_debate({call(0, "a1", "answer", "A"), call(1, "a1", "revise", "C")}, "C");
  EXPECT_EQ(initially_correct(stuck), false);
  EXPECT_FALSE(flipped_to_wrong(stuck));
}

TEST(Outcome, ATieInTheFirstRoundGoesByConfidenceAsTheVoteDoes) {
  // B at 0.9 against C at 0.6: B wins the tie (summed confidence), so the debate started right.
  Transcript t = choice_debate({call(0, "a1", "answer", "C", 0.6), call(0, "a2", "answer", "B", 0.9)}, "C");
  EXPECT_EQ(initially_correct(t), true);
  EXPECT_TRUE(flipped_to_wrong(t));
  t.messages[0].confidence = 0.95;  // now C wins it
  EXPECT_EQ(initially_correct(t), false);
  EXPECT_FALSE(flipped_to_wrong(t));
}

TEST(Outcome, OnlyTheLowestRoundsAnswerBearingTurnsCount) {
  // The judge's call in round 1 and the moderator's in round 0 are not agents' answers; the
  // agents' first round here is round 1 (a protocol whose round 0 was the moderator's alone).
  const Transcript t = choice_debate({call(0, "m", "moderator", "C"), call(1, "a1", "answer", "B"),
                                      call(1, "j", "judge", "C"), call(2, "a1", "revise", "C")},
                                     "C");
  EXPECT_EQ(initially_correct(t), true);
  EXPECT_TRUE(flipped_to_wrong(t));
  EXPECT_EQ(answer_rounds(t), 2);
}

TEST(Outcome, AReaskFoldsIntoItsTurnAndAFailedCallIsNoAnswer) {
  // a1's unparsed turn is re-asked and answers B; a2's call failed.
  MessageRecord failed = call(0, "a2", "answer", std::nullopt);
  failed.error = "timeout";
  const Transcript t = choice_debate(
      {call(0, "a1", "answer", std::nullopt), failed, reask_of(0, call(0, "a1", "reask", "B")),
       call(1, "a1", "revise", "D")},
      "D");
  EXPECT_EQ(initially_correct(t), true);
  EXPECT_TRUE(flipped_to_wrong(t));
}

TEST(Outcome, TheRunsVerdictOnTheFinalAnswerIsTheOneUsed) {
  // A label task's final answer the run judged right through its synonyms stays right here.
  Transcript t = choice_debate({call(0, "a1", "answer", "B"), call(1, "a1", "revise", "b.")}, "b.");
  t.correct = true;
  EXPECT_FALSE(flipped_to_wrong(t));
  t.correct = false;
  EXPECT_TRUE(flipped_to_wrong(t));
}

TEST(Outcome, NoParsedFirstRoundAnswerIsUnknownAndNoFinalAnswerIsNoFlip) {
  const Transcript unparsed = choice_debate(
      {call(0, "a1", "answer", std::nullopt), call(0, "a2", "answer", std::nullopt), call(1, "a1", "revise", "C")},
      "C");
  EXPECT_FALSE(initially_correct(unparsed).has_value());
  EXPECT_FALSE(flipped_to_wrong(unparsed));
  const Transcript empty = choice_debate({}, std::nullopt);
  EXPECT_FALSE(initially_correct(empty).has_value());
  EXPECT_EQ(answer_rounds(empty), 0);
  // Started right, then failed without a final answer: not a flip.
  Transcript failed = choice_debate({call(0, "a1", "answer", "B")}, std::nullopt);
  failed.status = DebateStatus::kFailed;
  EXPECT_EQ(initially_correct(failed), true);
  EXPECT_FALSE(flipped_to_wrong(failed));
}

TEST(Outcome, NumbersCompareWithTheTasksTolerance) {
  Transcript t = choice_debate({call(0, "a1", "answer", "10.4"), call(1, "a1", "revise", "11")}, "11");
  t.gold = "10";
  t.answer_type = AnswerType::kNumber;
  t.tolerance = 0.5;
  t = scored(t);
  EXPECT_EQ(initially_correct(t), true);
  EXPECT_TRUE(flipped_to_wrong(t));
  t.tolerance = 0.1;
  t = scored(t);
  EXPECT_EQ(initially_correct(t), false);
  EXPECT_FALSE(flipped_to_wrong(t));
  // Within the tolerance at the end too: 10.4 then 10.45 is right to right.
  t.final_answer = "10.45";
  t.tolerance = 0.5;
  t = scored(t);
  EXPECT_TRUE(t.correct);
  EXPECT_FALSE(flipped_to_wrong(t));
}

TEST(Outcome, FreeTextIsGroupedAndComparedNormalised) {
  Transcript t = choice_debate({call(0, "a1", "answer", "Paris."), call(0, "a2", "answer", "paris"),
                                call(0, "a3", "answer", "Lyon"), call(1, "a1", "revise", "Lyon")},
                               "Lyon");
  t.gold = "Paris";
  t.answer_type = AnswerType::kText;
  t = scored(t);
  EXPECT_EQ(initially_correct(t), true);
  EXPECT_TRUE(flipped_to_wrong(t));
}

}  // namespace
}  // namespace parley
