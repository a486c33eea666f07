// PRR, AD and CF (protocols paper §2.3, eqs. 1–3) on small transcripts worked by hand.
#include <gtest/gtest.h>

#include "parley/metrics.h"
#include "transcript_support.h"

namespace parley {
namespace {

using testing::numbered;
using testing::reask_of;

MessageRecord turn(int round, std::string agent, std::string text, std::string role = "answer") {
  MessageRecord m;
  m.round = round;
  m.agent = std::move(agent);
  m.role = std::move(role);
  m.text = std::move(text);
  return m;
}

TEST(Prr, CountsTurnsNamingAPeerWithAStanceWord) {
  Transcript t;
  t.messages = {
      turn(0, "a1", "I think B."),                                   // no peer
      turn(0, "a2", "I agree that B is right."),                      // stance, no peer
      turn(1, "a1", "a2 raises a point but I still think B."),        // peer, no stance word
      turn(1, "a2", "I disagree with A1 here."),                      // peer (any case) + stance
      turn(1, "a3", "a1 supported B and I agree."),                   // peer + stance
      turn(1, "a3#2", "Like a3, I challenge that."),                  // a3 named whole: counts
  };
  // 3 of 6 turns: eq. (1) PRR = 3/6.
  EXPECT_DOUBLE_EQ(*interaction_metrics(t).prr, 0.5);
}

TEST(Prr, JudgeCallsAreNotTurnsAndJudgesAreNotPeers) {
  Transcript t;
  t.messages = numbered({turn(1, "a1", "I think B."), turn(1, "a2", "I disagree with a1."),
                         turn(1, "j1", R"({"Preference": "No", "Reason": "I agree with a2"})", "judge_mad"),
                         reask_of(2, turn(1, "j1", "I support a1.", "judge_mad_reask")),
                         turn(2, "a1", "I agree with j1.")});
  // Turns: a1, a2, a1 (round 2); only a2's names a peer with a stance: PRR = 1/3.
  EXPECT_DOUBLE_EQ(*interaction_metrics(t).prr, 1.0 / 3.0);
}

TEST(Prr, OwnNameAndNamesInsideLongerNamesDoNotCount) {
  Transcript t;
  t.messages = {turn(0, "a1", "As a1 I agree."), turn(0, "a1#2", "I agree with a1#2x and xa1.")};
  EXPECT_DOUBLE_EQ(*interaction_metrics(t).prr, 0.0);
}

TEST(Ad, MeanPairwiseJaccardDissimilarityByHand) {
  Transcript t;
  // Token sets (lower-case, alphabetic, length >= 3):
  //   A = {the, cat, sat}, B = {the, cat, ran}, C = {dog}
  //   J(A,B) = 2/4, J(A,C) = 0, J(B,C) = 0
  //   AD = (2 / (3·2)) · ((1 - 1/2) + 1 + 1) = 5/6
  t.messages = {turn(0, "a1", "The cat sat."), turn(0, "a2", "the CAT ran, ok 42"), turn(0, "a3", "Dog!")};
  EXPECT_NEAR(*interaction_metrics(t).ad, 5.0 / 6.0, 1e-15);
}

TEST(Ad, WordsAreLetterRunsAndEmptyArgumentsAreIdentical) {
  Transcript t;
  // A = {abc, def} (a digit splits "abc1def"; repeats and case count once), B = {} ("ok" is
  // short), C = {}: J(A,B) = J(A,C) = 0, J(B,C) = 1 (two empty arguments).
  //   AD = (2 / (3·2)) · (1 + 1 + 0) = 2/3
  t.messages = {turn(0, "a1", "abc1def abc ABC"), turn(0, "a2", "ok"), turn(0, "a3", "")};
  EXPECT_NEAR(*interaction_metrics(t).ad, 2.0 / 3.0, 1e-15);
  // Bytes outside ASCII end a word: "café naïve" → {caf} ("na", "ve" are short); "CAF ver" →
  // {caf, ver}; J = 1/2, AD = 1/2.
  t.messages = {turn(0, "a1", "caf\xC3\xA9 na\xC3\xAFve"), turn(0, "a2", "CAF ver")};
  EXPECT_NEAR(*interaction_metrics(t).ad, 0.5, 1e-15);
  // Every ASCII letter, either case, belongs to the word: one word each, the same, AD = 0.
  t.messages = {turn(0, "a1", "abcdefghijklmnopqrstuvwxyz"), turn(0, "a2", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")};
  EXPECT_EQ(*interaction_metrics(t).ad, 0.0);
}

TEST(Ad, UndefinedForOneTurn) {
  Transcript t;
  t.messages = {turn(0, "a1", "alone")};
  EXPECT_FALSE(interaction_metrics(t).ad);
  EXPECT_DOUBLE_EQ(*interaction_metrics(t).prr, 0.0);
}

TEST(Cf, RelativeVarianceReductionByHand) {
  Transcript t;
  // Round 0 forecasts {0, 2, 4}: variance 8/3. Final round {1, 2, 3}: variance 2/3.
  // CF = 1 - (2/3)/(8/3) = 0.75. Round 1 in between is ignored; a re-ask replaces its turn.
  t.messages = numbered({
      turn(0, "a1", "Impact: 0"),     turn(0, "a2", "Impact: +2"),   turn(0, "a3", "no number"),
      reask_of(2, turn(0, "a3", "Impact: 4", "reask")),
      turn(1, "a1", "Impact: 9"),     turn(1, "a2", "Impact: -9"),   turn(1, "a3", "Impact: 0"),
      turn(2, "a1", "+1% I think"),   turn(2, "a2", "Impact: 2"),    turn(2, "a3", "Impact: 3"),
  });
  EXPECT_DOUBLE_EQ(*interaction_metrics(t).cf, 0.75);
}

TEST(Cf, ClampedAndEdgeCases) {
  Transcript diverging;
  diverging.messages = {turn(0, "a1", "Impact: 1"), turn(0, "a2", "Impact: 2"), turn(1, "a1", "Impact: 0"),
                        turn(1, "a2", "Impact: 5")};
  EXPECT_DOUBLE_EQ(*interaction_metrics(diverging).cf, 0.0);  // variance grew: clamped at 0

  Transcript agreed_throughout;
  agreed_throughout.messages = {turn(0, "a1", "Impact: 1"), turn(0, "a2", "Impact: 1"), turn(1, "a1", "Impact: 1"),
                                turn(1, "a2", "Impact: 1")};
  EXPECT_DOUBLE_EQ(*interaction_metrics(agreed_throughout).cf, 1.0);  // 0 -> 0: the paper's rule

  Transcript split_after_agreeing;
  split_after_agreeing.messages = {turn(0, "a1", "Impact: 1"), turn(0, "a2", "Impact: 1"),
                                   turn(1, "a1", "Impact: 1"), turn(1, "a2", "Impact: 3")};
  EXPECT_DOUBLE_EQ(*interaction_metrics(split_after_agreeing).cf, 0.0);  // 0 -> > 0

  Transcript one_round;
  one_round.messages = {turn(0, "a1", "Impact: 1"), turn(0, "a2", "Impact: 3")};
  EXPECT_FALSE(interaction_metrics(one_round).cf);

  Transcript missing;  // one forecast in the final round: not enough for a variance
  missing.messages = {turn(0, "a1", "Impact: 1"), turn(0, "a2", "Impact: 3"), turn(1, "a1", "Impact: 2"),
                      turn(1, "a2", "no idea")};
  EXPECT_FALSE(interaction_metrics(missing).cf);
}

TEST(Cf, NumericAnswersServeAsForecasts) {
  Transcript t;
  auto with_answer = [](int round, std::string agent, std::string answer) {
    MessageRecord m = turn(round, std::move(agent), "Answer: " + answer);
    m.answer = answer;
    return m;
  };
  // {10, 20} -> {14, 16}: variances 25 and 1, CF = 1 - 1/25 = 0.96.
  t.messages = {with_answer(0, "a1", "10"), with_answer(0, "a2", "20"), with_answer(1, "a1", "14"),
                with_answer(1, "a2", "16")};
  EXPECT_DOUBLE_EQ(*interaction_metrics(t).cf, 0.96);
  // Choice letters are not forecasts.
  Transcript choices;
  choices.messages = {with_answer(0, "a1", "A"), with_answer(0, "a2", "B"), with_answer(1, "a1", "A"),
                      with_answer(1, "a2", "A")};
  EXPECT_FALSE(interaction_metrics(choices).cf);
}

TEST(Prr, JudgeCallsAreNotAgentTurns) {
  Transcript t;
  t.messages = {turn(0, "a1", "I think B."), turn(0, "a2", "I agree with a1."),
                turn(0, "judge", "a1 is right and I support a2.", "judge")};
  EXPECT_DOUBLE_EQ(*interaction_metrics(t).prr, 0.5);  // 1 of the 2 agent turns
}

TEST(AddDebateMetrics, WritesOnlyDefinedMetricsAndSkipsFailedCalls) {
  Transcript t;
  MessageRecord failed = turn(0, "a2", "");
  failed.error = "http 500";
  t.messages = {turn(0, "a1", "I agree with a2."), failed};
  add_debate_metrics(t);
  EXPECT_EQ(t.metrics.count("prr"), 1u);
  EXPECT_DOUBLE_EQ(t.metrics.at("prr"), 1.0);  // the failed call is not a turn
  EXPECT_EQ(t.metrics.count("ad"), 0u);
  EXPECT_EQ(t.metrics.count("cf"), 0u);
}

TEST(AgentTurns, JudgeCallsAndRejectedDraftsAreNotTurns) {
  Transcript t;
  t.messages = numbered({turn(0, "a1", "I agree with a2.", "draft"), turn(0, "a1", "Plainly B."),
                         turn(0, "j1", R"({"score": 4, "reason": "a1 agrees with a2"})", "judge_score"),
                         reask_of(2, turn(0, "j1", R"({"score": 5})", "judge_score_reask"))});
  add_debate_metrics(t);
  EXPECT_DOUBLE_EQ(t.metrics.at("prr"), 0.0);  // only "Plainly B." is a turn
  EXPECT_EQ(t.metrics.count("ad"), 0u);        // one turn: AD undefined
}

}  // namespace
}  // namespace parley
