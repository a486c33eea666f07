// The final belief and its scores, on hand-built transcripts; expected values worked by hand from
// the definitions in parley/metrics.h (Brier: Σ_y (p(y) − 1[y = gold])² with the unassigned rest
// as one more outcome).
#include <gtest/gtest.h>

#include "parley/metrics.h"

namespace parley {
namespace {

MessageRecord turn(int round, const std::string& agent, const std::string& role, std::optional<std::string> answer,
                   std::optional<double> confidence) {
  MessageRecord m;
  m.round = round;
  m.agent = agent;
  m.role = role;
  m.answer = std::move(answer);
  m.confidence = confidence;
  return m;
}

TEST(FinalBelief, MacisStatedDistributionIsScoredWithTheRestAsAnOutcome) {
  Transcript t;
  t.gold = "A";
  t.final_answer = "B";
  t.events.push_back({2, "maci_final",
                      R"({"distribution":[{"label":"B","probability":0.7},{"label":"A","probability":0.2}],)"
                      R"("scores":{"agents_distance":0.25,"centrist_deviation":0.5}})"});
  const auto belief = final_belief(t);
  ASSERT_TRUE(belief);
  EXPECT_EQ(belief->source, "maci_final");
  const auto scores = belief_scores(t);
  ASSERT_TRUE(scores);
  // p = (B .7, A .2, rest .1), gold A: rank 2.
  EXPECT_TRUE(scores->acc_at_3);
  EXPECT_DOUBLE_EQ(scores->reciprocal_rank, 0.5);
  EXPECT_NEAR(scores->brier, 0.49 + 0.64 + 0.01, 1e-12);
  EXPECT_DOUBLE_EQ(scores->gold_probability, 0.2);
  EXPECT_DOUBLE_EQ(scores->confidence, 0.7);
  add_debate_metrics(t);
  EXPECT_NEAR(t.metrics.at("brier"), 1.14, 1e-12);
  EXPECT_DOUBLE_EQ(t.metrics.at("agents_distance"), 0.25);  // the protocol's own scores copied
  EXPECT_DOUBLE_EQ(t.metrics.at("centrist_deviation"), 0.5);
}

TEST(FinalBelief, OtherProtocolsMixTheLastRoundsTurnsAtTheirStatedConfidence) {
  Transcript t;
  t.gold = "C";
  t.final_answer = "B";
  t.messages = {turn(1, "a1", "answer", "C", 0.9), turn(2, "a1", "revise", "A", 0.8),
                turn(2, "a2", "revise", "B", std::nullopt), turn(2, "j", "judge_final", "A", 1.0)};
  const auto belief = final_belief(t);
  ASSERT_TRUE(belief);
  EXPECT_EQ(belief->source, "final_round");
  ASSERT_EQ(belief->labels, (std::vector<std::string>{"A", "B"}));
  EXPECT_DOUBLE_EQ(belief->probabilities[0], 0.4);  // 0.8 / 2
  EXPECT_DOUBLE_EQ(belief->probabilities[1], 0.5);  // unstated: 1 / 2
  const auto scores = belief_scores(t);
  ASSERT_TRUE(scores);
  // The gold C is unlisted: never ranked; Brier .16 + .25 + rest .01 + (0 − 1)² for C.
  EXPECT_FALSE(scores->acc_at_3);
  EXPECT_EQ(scores->reciprocal_rank, 0.0);
  EXPECT_EQ(scores->gold_probability, 0.0);
  EXPECT_NEAR(scores->brier, 1.42, 1e-12);
  EXPECT_DOUBLE_EQ(scores->confidence, 0.5);
}

TEST(FinalBelief, AccAtThreeCountsTheTopThreeOnly) {
  Transcript t;
  t.gold = "D";
  t.final_answer = "A";
  t.events.push_back({1, "maci_final",
                      R"({"distribution":[{"label":"A","probability":0.4},{"label":"B","probability":0.3},)"
                      R"({"label":"C","probability":0.2},{"label":"D","probability":0.1}]})"});
  auto scores = belief_scores(t);
  ASSERT_TRUE(scores);
  EXPECT_FALSE(scores->acc_at_3);  // fourth
  EXPECT_DOUBLE_EQ(scores->reciprocal_rank, 0.25);
  t.gold = "C";
  scores = belief_scores(t);
  EXPECT_TRUE(scores->acc_at_3);  // third
  EXPECT_DOUBLE_EQ(scores->reciprocal_rank, 1.0 / 3.0);
}

TEST(FinalBelief, TiesRankByListOrderAndNothingToScoreIsNone) {
  Transcript t;
  t.gold = "B";
  t.final_answer = "A";
  t.messages = {turn(0, "a1", "sample", "A", 0.4), turn(0, "a1", "sample", "B", 0.4)};
  const auto scores = belief_scores(t);
  ASSERT_TRUE(scores);
  EXPECT_DOUBLE_EQ(scores->reciprocal_rank, 0.5);  // .2 each: B after A
  EXPECT_TRUE(scores->acc_at_3);

  Transcript unparsed;
  unparsed.gold = "B";
  unparsed.messages = {turn(0, "a1", "answer", std::nullopt, std::nullopt)};
  EXPECT_FALSE(final_belief(unparsed));
  EXPECT_FALSE(belief_scores(unparsed));
  Transcript no_gold = t;
  no_gold.gold.clear();
  EXPECT_FALSE(belief_scores(no_gold));
}

}  // namespace
}  // namespace parley

namespace parley {
namespace {

TEST(FinalBelief, TheLastMaciFinalCountsWhateverFollowsAndBadDetailIsSkipped) {
  Transcript t;
  t.gold = "A";
  t.final_answer = "A";
  t.messages = {turn(0, "a1", "answer", "B", 0.9)};
  // Another event after maci_final, and an entry whose probability is text (skipped).
  t.events.push_back({2, "maci_final",
                      R"({"distribution":[{"label":"A","probability":0.6},{"label":"C","probability":"0.4"}]})"});
  t.events.push_back({2, "budget", "token budget spent"});
  auto belief = final_belief(t);
  ASSERT_TRUE(belief);
  EXPECT_EQ(belief->source, "maci_final");
  EXPECT_EQ(belief->labels, (std::vector<std::string>{"A"}));
  // A maci_final whose detail is not JSON: no stated belief, the last round's turns instead.
  t.events = {{2, "maci_final", "not json"}};
  belief = final_belief(t);
  ASSERT_TRUE(belief);
  EXPECT_EQ(belief->source, "final_round");
  EXPECT_EQ(belief->labels, (std::vector<std::string>{"B"}));
}

}  // namespace
}  // namespace parley

namespace parley {
namespace {

TEST(FinalBelief, AnOrderedScaleScoresTheCentristDeviationAndTheDistanceToTheGold) {
  const auto scale = std::make_shared<const LabelSet>(
      LabelSet::make({"Negative", "Weakly negative", "Neutral", "Weakly positive", "Positive"}, {}, true).value());
  Transcript t;
  t.gold = "Neutral";
  t.final_answer = "Neutral";
  t.events.push_back({2, "maci_final",
                      R"({"distribution":[{"label":"Neutral","probability":0.5},)"
                      R"({"label":"Weakly positive","probability":0.3},{"label":"Positive","probability":0.2}]})"});
  const auto s = scale_scores(t, *scale);
  ASSERT_TRUE(s);
  // Ratings −2 … +2: E = 0.5·0 + 0.3·1 + 0.2·2 = 0.7. CDFs (0, 0, .5, .8) against the gold's
  // (0, 0, 1, 1): (0.5 + 0.2) / 4 = 0.175.
  EXPECT_NEAR(s->centrist_deviation, 0.7, 1e-12);
  EXPECT_NEAR(s->gold_distance, 0.175, 1e-12);
  add_debate_metrics(t, {.labels = scale});
  EXPECT_NEAR(t.metrics.at("centrist_deviation"), 0.7, 1e-12);
  EXPECT_NEAR(t.metrics.at("gold_distance"), 0.175, 1e-12);
  // Not on an unordered set, nor with a gold off the scale.
  const auto unordered = LabelSet::make({"Negative", "Neutral", "Positive"}, {}, false).value();
  EXPECT_FALSE(scale_scores(t, unordered));
  t.gold = "Sarcastic";
  EXPECT_FALSE(scale_scores(t, *scale));
  // Gold "Weakly negative": its CDF (0, 1, 1, 1) against (0, 0, .5, .8): (1 + .5 + .2) / 4.
  t.gold = "Weakly negative";
  EXPECT_NEAR(scale_scores(t, *scale)->gold_distance, 0.425, 1e-12);
  // A belief that leaves mass unassigned is renormalised over the scale: (.4, .4) on Neutral and
  // Positive reads (.5, .5), E = 1.0; one with nothing on the scale scores nothing.
  t.events = {{2, "maci_final",
               R"({"distribution":[{"label":"Neutral","probability":0.4},{"label":"Positive","probability":0.4}]})"}};
  EXPECT_NEAR(scale_scores(t, *scale)->centrist_deviation, 1.0, 1e-12);
  t.events = {{2, "maci_final", R"({"distribution":[{"label":"Sarcastic","probability":0.9}]})"}};
  EXPECT_FALSE(scale_scores(t, *scale));
  // The smallest scale, two labels: ratings ∓½.
  const auto pair = LabelSet::make({"Low", "High"}, {}, true).value();
  t.gold = "High";
  t.events = {{2, "maci_final", R"({"distribution":[{"label":"High","probability":0.75},{"label":"Low","probability":0.25}]})"}};
  const auto two = scale_scores(t, pair);
  ASSERT_TRUE(two);
  EXPECT_NEAR(two->centrist_deviation, 0.25, 1e-12);  // 0.75·½ − 0.25·½
  EXPECT_NEAR(two->gold_distance, 0.25, 1e-12);       // |F(Low) − 0| = 0.25, over K − 1 = 1
}

}  // namespace
}  // namespace parley
