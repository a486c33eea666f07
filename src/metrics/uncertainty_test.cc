// UDPO uncertainty (§2, App. D eqs. 16–19) on small transcripts worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/hash.h"
#include "parley/metrics.h"
#include "trajectory_support.h"
#include "transcript_support.h"

namespace parley {
namespace {

using testing::numbered;
using testing::random_trajectory;
using testing::reask_of;
using testing::trajectory_of;

MessageRecord turn(int round, std::string agent, std::optional<std::string> answer, std::string role = "answer",
                   std::optional<double> confidence = std::nullopt) {
  MessageRecord m;
  m.round = round;
  m.agent = std::move(agent);
  m.role = std::move(role);
  m.text = "Answer: " + answer.value_or("?");
  m.answer = std::move(answer);
  m.confidence = confidence;
  return m;
}

// One turn per agent and round: answers[t][i] is agent a<i+1>'s answer in round t.
Transcript debate(const std::vector<std::vector<std::optional<std::string>>>& answers) {
  Transcript t;
  for (std::size_t round = 0; round < answers.size(); ++round)
    for (std::size_t i = 0; i < answers[round].size(); ++i)
      t.messages.push_back(turn(static_cast<int>(round), "a" + std::to_string(i + 1), answers[round][i],
                                round == 0 ? "answer" : "revise"));
  return t;
}

constexpr double kEps = 1e-12;

TEST(Uncertainty, EveryMetricByHand) {
  //            a1 a2 a3
  // round 0:   A  B  C
  // round 1:   B  B  B
  // round 2:   B  B  A
  // round 3:   A  C  A      (T = 3)
  const Transcript t = debate({{"A", "B", "C"}, {"B", "B", "B"}, {"B", "B", "A"}, {"A", "C", "A"}});
  const UncertaintyMetrics u = uncertainty_metrics(t, {.u_intra_lambda = 0.25});
  // F: transitions t = 1→2, 2→3. a1: B→B, B→A (1); a2: B→B, B→C (1); a3: B→A, A→A (1).
  //    F = 3 / (N(T−1)) = 3 / 6.
  EXPECT_NEAR(*u.flip_rate, 0.5, kEps);
  // M: a_0 vs a_3. a1 A→A (0), a2 B→C (1), a3 C→A (1): M = 2/3.
  EXPECT_NEAR(*u.belief_revision, 2.0 / 3.0, kEps);
  // U_intra = 0.25·0.5 + 0.75·(2/3) = 0.625.
  EXPECT_NEAR(*u.u_intra, 0.625, kEps);
  // C_t: round 0 all three pairs differ (1); round 1 none (0); round 2 (a1,a3), (a2,a3) of 3
  // pairs (2/3); round 3 (a1,a2), (a2,a3) (2/3). U_inter = (1 + 0 + 2/3 + 2/3) / 4 = 7/12.
  ASSERT_EQ(u.conflict_by_round.size(), 4u);
  EXPECT_NEAR(*u.conflict_by_round[0], 1.0, kEps);
  EXPECT_NEAR(*u.conflict_by_round[1], 0.0, kEps);
  EXPECT_NEAR(*u.conflict_by_round[2], 2.0 / 3.0, kEps);
  EXPECT_NEAR(*u.conflict_by_round[3], 2.0 / 3.0, kEps);
  EXPECT_NEAR(*u.u_inter, 7.0 / 12.0, kEps);
  // Final round {A, C, A}: p = (2/3, 1/3), K = 2.
  //   H̃ = −(2/3 ln 2/3 + 1/3 ln 1/3) / ln 2 = 0.9182958340544896.
  const double entropy = -(2.0 / 3.0 * std::log(2.0 / 3.0) + 1.0 / 3.0 * std::log(1.0 / 3.0)) / std::log(2.0);
  EXPECT_NEAR(*u.entropy, 0.9182958340544896, 1e-15);
  EXPECT_NEAR(*u.entropy, entropy, kEps);
  EXPECT_EQ(*u.disagreement, 1.0);  // not unanimous
  // ŷ = A (2 of 3). Without a1: {C, A} ties, the first in agent order wins: C ≠ A (1).
  // Without a2: {A, A}: A (0). Without a3: {A, C}: A (0). L = 1/3.
  EXPECT_NEAR(*u.loo_instability, 1.0 / 3.0, kEps);
  EXPECT_NEAR(*u.u_sys, (entropy + 1.0 + 1.0 / 3.0) / 3.0, kEps);
}

TEST(Uncertainty, LambdaWeighsFlipsAgainstRevision) {
  const Transcript t = debate({{"A", "B", "C"}, {"B", "B", "B"}, {"B", "B", "A"}, {"A", "C", "A"}});
  EXPECT_NEAR(*uncertainty_metrics(t, {.u_intra_lambda = 0.0}).u_intra, 2.0 / 3.0, kEps);  // M
  EXPECT_NEAR(*uncertainty_metrics(t, {.u_intra_lambda = 1.0}).u_intra, 0.5, kEps);       // F
  EXPECT_NEAR(*uncertainty_metrics(t).u_intra, 0.5 * 0.5 + 0.5 * 2.0 / 3.0, kEps);        // default λ = 0.5
}

TEST(Uncertainty, UnanimityIsCertain) {
  const UncertaintyMetrics u = uncertainty_metrics(debate({{"A", "A"}, {"A", "A"}, {"A", "A"}}));
  EXPECT_EQ(*u.flip_rate, 0.0);
  EXPECT_EQ(*u.belief_revision, 0.0);
  EXPECT_EQ(*u.u_inter, 0.0);
  EXPECT_EQ(*u.entropy, 0.0);  // K = 1: defined as 0
  EXPECT_EQ(*u.disagreement, 0.0);
  EXPECT_EQ(*u.loo_instability, 0.0);
  EXPECT_EQ(*u.u_sys, 0.0);
}

TEST(Uncertainty, OneAgentHasNoInterAgentOrSystemUncertainty) {
  const UncertaintyMetrics single = uncertainty_metrics(debate({{"A"}}));
  EXPECT_FALSE(single.flip_rate);
  EXPECT_FALSE(single.belief_revision);
  EXPECT_FALSE(single.u_intra);
  ASSERT_EQ(single.conflict_by_round.size(), 1u);
  EXPECT_FALSE(single.conflict_by_round[0]);
  EXPECT_FALSE(single.u_inter);
  EXPECT_FALSE(single.entropy);
  EXPECT_FALSE(single.disagreement);
  EXPECT_FALSE(single.loo_instability);
  EXPECT_FALSE(single.u_sys);
  // One agent over three rounds still flips and revises: A → B → A.
  const UncertaintyMetrics alone = uncertainty_metrics(debate({{"A"}, {"B"}, {"A"}}));
  EXPECT_EQ(*alone.flip_rate, 1.0);  // 1→2 only
  EXPECT_EQ(*alone.belief_revision, 0.0);
  EXPECT_FALSE(alone.u_inter);
  EXPECT_FALSE(alone.entropy);
}

TEST(Uncertainty, RoundCountsDecideWhatIsDefined) {
  // Initial answers only (T = 0): no change over time, but a vote among two answers.
  const UncertaintyMetrics initial = uncertainty_metrics(debate({{"A", "B"}}));
  EXPECT_FALSE(initial.flip_rate);
  EXPECT_FALSE(initial.belief_revision);
  EXPECT_FALSE(initial.u_intra);
  EXPECT_EQ(*initial.u_inter, 1.0);
  EXPECT_DOUBLE_EQ(*initial.entropy, 1.0);
  EXPECT_EQ(*initial.loo_instability, 0.5);  // ŷ = A (first); without a1 it is B
  // One debate round (T = 1): eq. F sums t = 1..T−1, nothing; M compares rounds 0 and 1.
  const UncertaintyMetrics one_round = uncertainty_metrics(debate({{"A", "B"}, {"A", "A"}}));
  EXPECT_FALSE(one_round.flip_rate);
  EXPECT_EQ(*one_round.belief_revision, 0.5);
  EXPECT_FALSE(one_round.u_intra);
  EXPECT_EQ(*one_round.u_inter, 0.5);  // (1 + 0) / 2
}

TEST(Uncertainty, RoundsArePositionsNotNumbers) {
  // Rounds 0, 2 and 5 are t = 0, 1, 2.
  Transcript t;
  t.messages = {turn(0, "a1", "A"), turn(0, "a2", "A"), turn(2, "a1", "B"), turn(2, "a2", "A"),
                turn(5, "a1", "C"), turn(5, "a2", "A")};
  const UncertaintyMetrics u = uncertainty_metrics(t);
  ASSERT_EQ(u.conflict_by_round.size(), 3u);
  EXPECT_EQ(*u.flip_rate, 0.5);  // t = 1→2: a1 B→C, a2 A→A
  EXPECT_EQ(*u.belief_revision, 0.5);
}

TEST(Uncertainty, MissingAnswersTakePartInNoComparison) {
  //            a1 a2 a3
  // round 0:   A  A  B
  // round 1:   A  -  B      (a2 unparsed, also after its re-ask)
  // round 2:   B  A  -      (a3 unparsed)
  Transcript t = debate({{"A", "A", "B"}, {"A", std::nullopt, "B"}, {"B", "A", std::nullopt}});
  t.messages.insert(t.messages.begin() + 5, reask_of(4, turn(1, "a2", std::nullopt, "reask")));
  t.messages = numbered(t.messages);
  const UncertaintyMetrics u = uncertainty_metrics(t);
  // F over 1→2: a1 A→B compared; a2, a3 each miss one side. F = 1/1.
  EXPECT_EQ(*u.flip_rate, 1.0);
  // M over 0→2: a1 A→B (1), a2 A→A (0); a3 has no final answer. M = 1/2.
  EXPECT_EQ(*u.belief_revision, 0.5);
  // C_0 = 2/3; C_1 over the one pair (a1, a3) = 1; C_2 over (a1, a2) = 1.
  EXPECT_NEAR(*u.u_inter, (2.0 / 3.0 + 1.0 + 1.0) / 3.0, kEps);
  // Final round {B, A}: two answers, H̃ = 1, D = 1, L = 1/2.
  EXPECT_DOUBLE_EQ(*u.entropy, 1.0);
  EXPECT_EQ(*u.loo_instability, 0.5);
  // With a single parsed final answer there is no vote to measure.
  const UncertaintyMetrics lone =
      uncertainty_metrics(debate({{"A", "B", "C"}, {"A", std::nullopt, std::nullopt}}));
  EXPECT_FALSE(lone.entropy);
  EXPECT_FALSE(lone.u_sys);
  EXPECT_EQ(*lone.belief_revision, 0.0);
}

TEST(Uncertainty, FailedCallsAreNotAnswers) {
  // The debate failed in round 1: a2's call failed after a1 had answered; a3 was never asked.
  Transcript t = debate({{"A", "B", "B"}});
  t.messages.push_back(turn(1, "a1", "B", "revise"));
  MessageRecord failure = turn(1, "a2", std::nullopt, "revise");
  failure.error = "http 500: after 5 attempts";
  t.messages.push_back(failure);
  const UncertaintyMetrics u = uncertainty_metrics(t);
  EXPECT_EQ(*u.belief_revision, 1.0);  // only a1 has a final answer: A → B
  EXPECT_FALSE(u.conflict_by_round[1]);
  EXPECT_FALSE(u.entropy);  // one answer in the final round
}

TEST(Uncertainty, AReaskReplacesTheTurnAndTheLastParsedAnswerOfARoundCounts) {
  Transcript t;
  t.messages = numbered({turn(0, "a1", std::nullopt), turn(0, "a2", "B"), reask_of(0, turn(0, "a1", "B", "reask")),
                         // a2 answers twice in round 1; its last parsed answer counts, an unparsed
                         // one after it does not erase it.
                         turn(1, "a1", "B", "revise"), turn(1, "a2", "A", "revise"), turn(1, "a2", "B", "revise"),
                         turn(1, "a2", std::nullopt, "revise")});
  const UncertaintyMetrics u = uncertainty_metrics(t);
  EXPECT_EQ(*u.conflict_by_round[0], 0.0);  // a1's re-ask answered B
  EXPECT_EQ(*u.conflict_by_round[1], 0.0);  // a2's last parsed answer is B
  EXPECT_EQ(*u.belief_revision, 0.0);
}

TEST(Uncertainty, JudgeCallsAreNotAgents) {
  Transcript t = debate({{"A", "B"}, {"A", "A"}});
  t.messages.push_back(turn(1, "judge", "C", "judge"));
  t.messages.push_back(turn(1, "a1", "C", "judge_rank"));  // an agent acting as judge
  const UncertaintyMetrics u = uncertainty_metrics(t);
  EXPECT_EQ(*u.conflict_by_round[1], 0.0);
  EXPECT_EQ(*u.entropy, 0.0);
  EXPECT_EQ(*u.belief_revision, 0.5);
}

TEST(Uncertainty, LeaveOneOutUsesTheVotesConfidenceTieRule) {
  // Final round: a1 B (0.1), a2 B (0.1), a3 A (0.9), a4 C (0.2). ŷ = B (2 votes).
  // Without a1 or a2: B, A, C tie at one vote; A has the larger confidence: A ≠ B (unstable).
  // (By first appearance alone B would win and L would be 0.)
  // Without a3 or a4: B keeps two votes. L = 2/4.
  Transcript t;
  t.messages = {turn(0, "a1", "B", "answer", 0.1), turn(0, "a2", "B", "answer", 0.1),
                turn(0, "a3", "A", "answer", 0.9), turn(0, "a4", "C", "answer", 0.2)};
  const UncertaintyMetrics u = uncertainty_metrics(t);
  EXPECT_EQ(*u.loo_instability, 0.5);
  // p = (1/2, 1/4, 1/4), K = 3: H̃ = (1/2 ln 2 + 2 · 1/4 ln 4) / ln 3 = 1.5 ln 2 / ln 3.
  EXPECT_NEAR(*u.entropy, 1.5 * std::log(2.0) / std::log(3.0), kEps);
  EXPECT_NEAR(*u.u_sys, (1.5 * std::log(2.0) / std::log(3.0) + 1.0 + 0.5) / 3.0, kEps);
}

TEST(Uncertainty, FreeTextAnswersCompareByTheirNormalisedForm) {
  const Transcript t = debate({{"Paris", "paris."}, {"The Paris", "Paris"}});
  const UncertaintyMetrics text = uncertainty_metrics(t, {.answer_type = AnswerType::kText});
  EXPECT_EQ(*text.u_inter, 0.0);
  EXPECT_EQ(*text.belief_revision, 0.0);
  EXPECT_EQ(*text.loo_instability, 0.0);
  const UncertaintyMetrics verbatim = uncertainty_metrics(t, {.answer_type = AnswerType::kChoice});
  EXPECT_EQ(*verbatim.u_inter, 1.0);
  EXPECT_EQ(*verbatim.belief_revision, 1.0);
}

// ---- From an in-memory trajectory (AnswerTrajectory), and each agent's share ---------------

void expect_same_metrics(const UncertaintyMetrics& a, const UncertaintyMetrics& b) {
  EXPECT_EQ(a.flip_rate, b.flip_rate);
  EXPECT_EQ(a.belief_revision, b.belief_revision);
  EXPECT_EQ(a.u_intra, b.u_intra);
  EXPECT_EQ(a.conflict_by_round, b.conflict_by_round);
  EXPECT_EQ(a.u_inter, b.u_inter);
  EXPECT_EQ(a.entropy, b.entropy);
  EXPECT_EQ(a.disagreement, b.disagreement);
  EXPECT_EQ(a.loo_instability, b.loo_instability);
  EXPECT_EQ(a.u_sys, b.u_sys);
  EXPECT_EQ(a.transition_rate, b.transition_rate);
  EXPECT_EQ(a.final_vote, b.final_vote);
  ASSERT_EQ(a.agents.size(), b.agents.size());
  for (std::size_t i = 0; i < a.agents.size(); ++i) {
    EXPECT_EQ(a.agents[i].flip_rate, b.agents[i].flip_rate) << i;
    EXPECT_EQ(a.agents[i].belief_revision, b.agents[i].belief_revision) << i;
    EXPECT_EQ(a.agents[i].u_intra, b.agents[i].u_intra) << i;
    EXPECT_EQ(a.agents[i].u_inter, b.agents[i].u_inter) << i;
    EXPECT_EQ(a.agents[i].changes_vote, b.agents[i].changes_vote) << i;
  }
}

TEST(UncertaintyTrajectory, ATranscriptIsReadIntoItsTrajectory) {
  Transcript t;
  // Rounds 0 and 3; agents in the order of their first turn (a2 first); a2's re-ask in round 0
  // answers B; a1 is unparsed in round 3; a judge's call is not an agent's answer.
  t.messages = numbered({turn(0, "a2", std::nullopt), turn(0, "a1", "A", "answer", 0.7),
                         reask_of(0, turn(0, "a2", "B", "reask")), turn(3, "a2", "C", "revise"),
                         turn(3, "a1", std::nullopt, "revise"), turn(3, "judge", "D", "judge")});
  const AnswerTrajectory trajectory = answer_trajectory(t);
  EXPECT_EQ(trajectory.agents(), (std::vector<std::string>{"a2", "a1"}));
  ASSERT_EQ(trajectory.round_count(), 2u);
  EXPECT_EQ(trajectory.agent_count(), 2u);
  EXPECT_EQ(trajectory.rounds()[0][0]->value, "B");
  EXPECT_EQ(trajectory.rounds()[0][1]->value, "A");
  EXPECT_EQ(trajectory.rounds()[0][1]->confidence, 0.7);
  EXPECT_FALSE(trajectory.rounds()[0][0]->confidence);
  EXPECT_EQ(trajectory.rounds()[1][0]->value, "C");
  EXPECT_FALSE(trajectory.rounds()[1][1]);
}

TEST(UncertaintyTrajectory, TheTranscriptAndItsTrajectoryGiveTheSameMetrics) {
  const Transcript t = debate({{"A", "B", "C"}, {"B", std::nullopt, "B"}, {"B", "B", "A"}, {"A", "C", "A"}});
  expect_same_metrics(uncertainty_metrics(t, {.u_intra_lambda = 0.25}),
                      uncertainty_metrics(answer_trajectory(t), {.u_intra_lambda = 0.25}));
  const AnswerTrajectory by_hand =
      trajectory_of({{"A", "B", "C"}, {"B", std::nullopt, "B"}, {"B", "B", "A"}, {"A", "C", "A"}});
  expect_same_metrics(uncertainty_metrics(t), uncertainty_metrics(by_hand));
}

TEST(UncertaintyTrajectory, ATrajectoryIsRectangularWithDistinctAgents) {
  EXPECT_THROW(AnswerTrajectory({"a1", "a2"}, {{TrajectoryAnswer{"A", {}}, std::nullopt}, {std::nullopt}}),
               std::invalid_argument);
  EXPECT_THROW(AnswerTrajectory({"a1", "a1"}, {{std::nullopt, std::nullopt}}), std::invalid_argument);
  const UncertaintyMetrics empty = uncertainty_metrics(AnswerTrajectory({"a1"}, {}));
  EXPECT_TRUE(empty.agents.empty());
  EXPECT_FALSE(empty.final_vote);
}

// Reading guide B.8, the worked trajectory (N = 3, T = 3):
//   a1: A A A A    a2: B A A A    a3: B B B A
const testing::AnswerGrid kWorked = {{"A", "B", "B"}, {"A", "A", "B"}, {"A", "A", "B"}, {"A", "A", "A"}};

TEST(UncertaintyTrajectory, TheReadingGuidesWorkedTrajectory) {
  const UncertaintyMetrics u = uncertainty_metrics(trajectory_of(kWorked));
  EXPECT_NEAR(*u.flip_rate, 1.0 / 6.0, kEps);  // a3's B → A in 2 → 3, of 6 transitions t = 1..2
  EXPECT_NEAR(*u.belief_revision, 2.0 / 3.0, kEps);
  EXPECT_NEAR(*u.u_intra, 0.416667, 1e-6);
  ASSERT_EQ(u.conflict_by_round.size(), 4u);
  for (int t = 0; t < 3; ++t) EXPECT_NEAR(*u.conflict_by_round[t], 2.0 / 3.0, kEps) << t;
  EXPECT_EQ(*u.conflict_by_round[3], 0.0);
  EXPECT_NEAR(*u.u_inter, 0.5, kEps);
  // Every transition t = 0..2: a2's B → A and a3's B → A, of 9.
  EXPECT_NEAR(*u.transition_rate, 2.0 / 9.0, kEps);
  EXPECT_EQ(*u.entropy, 0.0);
  EXPECT_EQ(*u.disagreement, 0.0);
  EXPECT_EQ(*u.loo_instability, 0.0);
  EXPECT_EQ(*u.u_sys, 0.0);
  EXPECT_EQ(u.final_vote, "A");
}

TEST(UncertaintyTrajectory, EachAgentsShareOfTheWorkedTrajectory) {
  const UncertaintyMetrics u = uncertainty_metrics(trajectory_of(kWorked));
  ASSERT_EQ(u.agents.size(), 3u);
  // F_i over t = 1..2: only a3 changes (B → A, once of two).
  EXPECT_EQ(*u.agents[0].flip_rate, 0.0);
  EXPECT_EQ(*u.agents[1].flip_rate, 0.0);
  EXPECT_EQ(*u.agents[2].flip_rate, 0.5);
  EXPECT_EQ(*u.agents[0].belief_revision, 0.0);
  EXPECT_EQ(*u.agents[1].belief_revision, 1.0);
  EXPECT_EQ(*u.agents[2].belief_revision, 1.0);
  EXPECT_EQ(*u.agents[0].u_intra, 0.0);
  EXPECT_EQ(*u.agents[1].u_intra, 0.5);
  EXPECT_EQ(*u.agents[2].u_intra, 0.75);
  // Shares of differing peers by round: a1 1, ½, ½, 0; a2 ½, ½, ½, 0; a3 ½, 1, 1, 0.
  EXPECT_NEAR(*u.agents[0].u_inter, 0.5, kEps);
  EXPECT_NEAR(*u.agents[1].u_inter, 0.375, kEps);
  EXPECT_NEAR(*u.agents[2].u_inter, 0.625, kEps);
  for (const AgentUncertainty& agent : u.agents) EXPECT_EQ(agent.changes_vote, false);
}

TEST(UncertaintyTrajectory, FinalRoundVectorsOfTheReadingGuide) {
  // (A, A, A, B, C): K = 3 distinct answers; no single agent's absence moves ŷ = A.
  const UncertaintyMetrics first = uncertainty_metrics(trajectory_of({{"A", "A", "A", "B", "C"}}));
  EXPECT_NEAR(*first.entropy, 0.864974, 1e-6);
  EXPECT_EQ(*first.disagreement, 1.0);
  EXPECT_EQ(*first.loo_instability, 0.0);
  EXPECT_NEAR(*first.u_sys, 0.621658, 1e-6);
  // (A, A, B, B, B): ŷ = B. Without a B the vote ties 2–2 and the project's rule (U-6 reading
  // (a): summed confidence, none stated here, then first in agent order) gives A: L = 3/5.
  const UncertaintyMetrics second = uncertainty_metrics(trajectory_of({{"A", "A", "B", "B", "B"}}));
  EXPECT_NEAR(*second.entropy, 0.970951, 1e-6);
  EXPECT_EQ(*second.disagreement, 1.0);
  EXPECT_NEAR(*second.loo_instability, 0.6, kEps);
  EXPECT_EQ(second.final_vote, "B");
  const std::vector<std::optional<bool>> changes = {false, false, true, true, true};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(second.agents[i].changes_vote, changes[i]) << i;
}

TEST(UncertaintyTrajectory, TheFinalVoteUsesTheTieRulesAndNeedsOneParsedAnswer) {
  // (A, B, B, A) ties; B's summed confidence 0.9 beats A's 0.5.
  const UncertaintyMetrics tie =
      uncertainty_metrics(trajectory_of({{"A", "B", "B", "A"}}, {{0.2, 0.4, 0.5, 0.3}}));
  EXPECT_EQ(tie.final_vote, "B");
  // One parsed final answer is a vote of one, though there is no system-level uncertainty.
  const UncertaintyMetrics lone = uncertainty_metrics(trajectory_of({{"A", "B"}, {std::nullopt, "C"}}));
  EXPECT_EQ(lone.final_vote, "C");
  EXPECT_FALSE(lone.u_sys);
  EXPECT_FALSE(lone.agents[0].changes_vote);
  EXPECT_FALSE(lone.agents[1].changes_vote);
  EXPECT_FALSE(uncertainty_metrics(trajectory_of({{"A", "B"}, {std::nullopt, std::nullopt}})).final_vote);
  // Free text is voted by its normalised form, spelled as its first voter wrote it.
  const UncertaintyMetrics text =
      uncertainty_metrics(trajectory_of({{"The Paris", "paris.", "Rome"}}), {.answer_type = AnswerType::kText});
  EXPECT_EQ(text.final_vote, "The Paris");
}

TEST(UncertaintyTrajectory, TransitionRateCountsTheChangeFromTheInitialAnswers) {
  // a1: A → B → B, a2: A → A → C. F counts 1 → 2 only (1 of 2); every transition: 2 of 4.
  const UncertaintyMetrics u = uncertainty_metrics(trajectory_of({{"A", "A"}, {"B", "A"}, {"B", "C"}}));
  EXPECT_EQ(*u.flip_rate, 0.5);
  EXPECT_EQ(*u.transition_rate, 0.5);
  // One debate round: no F, but one transition per agent.
  const UncertaintyMetrics one = uncertainty_metrics(trajectory_of({{"A", "A"}, {"B", "A"}}));
  EXPECT_FALSE(one.flip_rate);
  EXPECT_EQ(*one.transition_rate, 0.5);
  EXPECT_FALSE(uncertainty_metrics(trajectory_of({{"A", "A"}})).transition_rate);
  // A missing answer takes no part: a2's 0 → 1 and 1 → 2 cannot be compared.
  const UncertaintyMetrics missing = uncertainty_metrics(trajectory_of({{"A", "A"}, {"B", std::nullopt}, {"B", "A"}}));
  EXPECT_EQ(*missing.transition_rate, 0.5);
}

TEST(UncertaintyTrajectory, AnAgentWithoutAFinalAnswerHasNoLeaveOneOutTerm) {
  //  final round: a1 B, a2 -, a3 A, a4 A  →  ŷ = A; without a3 or a4: B, A tie, B first → B.
  const UncertaintyMetrics u =
      uncertainty_metrics(trajectory_of({{"A", "A", "A", "A"}, {"B", std::nullopt, "A", "A"}}));
  EXPECT_EQ(u.agents[0].changes_vote, false);
  EXPECT_FALSE(u.agents[1].changes_vote);
  EXPECT_EQ(u.agents[2].changes_vote, true);
  EXPECT_EQ(u.agents[3].changes_vote, true);
  EXPECT_NEAR(*u.loo_instability, 2.0 / 3.0, kEps);
  // a2's conflicts: round 0 only (all agree): 0, the mean over the one round it answered in.
  EXPECT_EQ(*u.agents[1].u_inter, 0.0);
  EXPECT_FALSE(u.agents[1].belief_revision);
  EXPECT_FALSE(u.agents[1].u_intra);
}

// Reading guide B.8, P-identities: the mean over agents of the leave-one-out indicators is L
// (always); with every answer parsed the mean of u_inter is U_inter and the mean of F_i is F.
TEST(UncertaintyTrajectory, AgentsSharesAverageToTheTrajectorysUncertainty) {
  Rng rng(20240611);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t agents = 2 + rng.below(5), rounds = 1 + rng.below(5), alphabet = 1 + rng.below(4);
    const double missing = trial % 2 ? 0.0 : 0.2;
    const UncertaintyMetrics u = uncertainty_metrics(random_trajectory(rng, agents, rounds, alphabet, missing));
    double unstable = 0.0, inter = 0.0, flips = 0.0;
    int voters = 0;
    for (const AgentUncertainty& agent : u.agents) {
      if (agent.changes_vote) {
        unstable += *agent.changes_vote;
        ++voters;
      }
      if (missing == 0.0) {
        inter += *agent.u_inter;
        if (agent.flip_rate) flips += *agent.flip_rate;
      }
    }
    ASSERT_EQ(voters > 0, u.loo_instability.has_value()) << trial;
    if (voters > 0) { EXPECT_NEAR(unstable / voters, *u.loo_instability, kEps) << trial; }
    if (missing > 0.0) continue;
    EXPECT_NEAR(inter / static_cast<double>(agents), *u.u_inter, kEps) << trial;
    if (u.flip_rate) { EXPECT_NEAR(flips / static_cast<double>(agents), *u.flip_rate, kEps) << trial; }
  }
}

// Reading guide B.8, P-range and the D identities, over random trajectories with missing answers.
TEST(UncertaintyTrajectory, EveryUncertaintyIsAShare) {
  const auto in_unit = [](const std::optional<double>& value) { return !value || (*value >= 0.0 && *value <= 1.0); };
  Rng rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const UncertaintyMetrics u =
        uncertainty_metrics(random_trajectory(rng, 1 + rng.below(6), 1 + rng.below(5), 1 + rng.below(5), 0.15));
    for (const auto& value : {u.flip_rate, u.belief_revision, u.u_intra, u.u_inter, u.entropy, u.disagreement,
                              u.loo_instability, u.u_sys, u.transition_rate})
      EXPECT_TRUE(in_unit(value)) << trial;
    for (const auto& c : u.conflict_by_round) EXPECT_TRUE(in_unit(c)) << trial;
    for (const AgentUncertainty& agent : u.agents)
      for (const auto& value : {agent.flip_rate, agent.belief_revision, agent.u_intra, agent.u_inter})
        EXPECT_TRUE(in_unit(value)) << trial;
    if (u.disagreement == 0.0) { EXPECT_EQ(*u.u_sys, 0.0) << trial; }
    if (u.disagreement == 1.0) { EXPECT_GE(*u.u_sys, 1.0 / 3.0) << trial; }
  }
}

TEST(UncertaintyTrajectory, ConflictDoesNotDependOnAgentOrder) {
  const UncertaintyMetrics forward = uncertainty_metrics(trajectory_of({{"A", "B", "B", "C"}, {"A", "A", "B", std::nullopt}}));
  const UncertaintyMetrics reversed = uncertainty_metrics(trajectory_of({{"C", "B", "B", "A"}, {std::nullopt, "B", "A", "A"}}));
  EXPECT_EQ(forward.conflict_by_round, reversed.conflict_by_round);
  EXPECT_EQ(forward.u_inter, reversed.u_inter);
}

const std::vector<std::string> kUncertaintyKeys = {"flip_rate", "belief_revision", "u_intra",
                                                   "conflict",  "u_inter",         "entropy",
                                                   "disagreement", "loo_instability", "u_sys"};

TEST(AddDebateMetrics, StoresTheDefinedUncertaintyMetrics) {
  Transcript t = debate({{"A", "B", "C"}, {"B", "B", "B"}, {"B", "B", "A"}, {"A", "C", "A"}});
  add_debate_metrics(t, {.u_intra_lambda = 0.25});
  for (const auto& key : kUncertaintyKeys) EXPECT_EQ(t.metrics.count(key), 1u) << key;
  EXPECT_EQ(t.metrics.count("ncomm"), 1u);
  EXPECT_NEAR(t.metrics.at("u_intra"), 0.625, kEps);
  EXPECT_EQ(t.metrics.at("conflict"), t.metrics.at("u_inter"));  // UDPO's U_inter is the mean C_t

  Transcript single = debate({{"A"}});
  add_debate_metrics(single);
  EXPECT_EQ(single.metrics.count("ncomm"), 1u);
  EXPECT_EQ(single.metrics.at("ncomm"), 0.0);
  for (const auto& key : kUncertaintyKeys) EXPECT_EQ(single.metrics.count(key), 0u) << key;
}

}  // namespace
}  // namespace parley
