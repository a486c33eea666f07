// UDPO's rewards, eqs. (1)–(4): the reading guide's worked trajectory (B.8), the U-1 readings,
// the identities with the uncertainty metrics, P-range and P-unanimous.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/hash.h"
#include "parley/udpo.h"
#include "trajectory_support.h"

namespace parley::udpo {
namespace {

using testing::random_trajectory;
using testing::trajectory_of;

constexpr double kEps = 1e-12;

Task task_with_gold(std::string gold, AnswerType type = AnswerType::kChoice) {
  Task task;
  task.answer = std::move(gold);
  task.answer_type = type;
  return task;
}

// Reading guide B.8 (N = 3, T = 3): a1 A A A A, a2 B A A A, a3 B B B A.
const testing::AnswerGrid kWorked = {{"A", "B", "B"}, {"A", "A", "B"}, {"A", "A", "B"}, {"A", "A", "A"}};

TEST(UdpoRewards, TheWorkedTrajectoryUnderEachReadingOfEquationOne) {
  const AnswerTrajectory worked = trajectory_of(kWorked);
  const Task gold_a = task_with_gold("A");
  // (a) 1 − F = 1 − 1/6; (b) 1 − 2/(N·T) = 1 − 2/9; (c) literal 1 − 2/(N(T−1)) = 1 − 2/6.
  EXPECT_NEAR(*trajectory_rewards(worked, gold_a).intra, 0.833333, 1e-6);
  EXPECT_NEAR(*trajectory_rewards(worked, gold_a, IntraReward::kOneMinusFlipRate).intra, 5.0 / 6.0, kEps);
  EXPECT_NEAR(*trajectory_rewards(worked, gold_a, IntraReward::kAllTransitions).intra, 0.777778, 1e-6);
  EXPECT_NEAR(*trajectory_rewards(worked, gold_a, IntraReward::kLiteral).intra, 0.666667, 1e-6);
  const TrajectoryRewards rewards = trajectory_rewards(worked, gold_a);
  EXPECT_NEAR(*rewards.inter, 0.5, kEps);
  EXPECT_EQ(*rewards.sys, 1.0);  // unanimous final round
  EXPECT_EQ(rewards.task, 1.0);
  EXPECT_EQ(rewards.final_vote, "A");
  EXPECT_EQ(trajectory_rewards(worked, task_with_gold("B")).task, 0.0);
}

TEST(UdpoRewards, ReadingsNeedTheirRounds) {
  // T = 1: F sums nothing and the literal normaliser N(T − 1) is 0; reading (b) has one transition.
  const AnswerTrajectory one_round = trajectory_of({{"A", "B"}, {"A", "A"}});
  const Task gold = task_with_gold("A");
  EXPECT_FALSE(trajectory_rewards(one_round, gold, IntraReward::kOneMinusFlipRate).intra);
  EXPECT_EQ(*trajectory_rewards(one_round, gold, IntraReward::kAllTransitions).intra, 0.5);
  EXPECT_FALSE(trajectory_rewards(one_round, gold, IntraReward::kLiteral).intra);
  // T = 0: no transition at all; r_inter and r_sys from the one round.
  const TrajectoryRewards initial = trajectory_rewards(trajectory_of({{"A", "B"}}), gold, IntraReward::kAllTransitions);
  EXPECT_FALSE(initial.intra);
  EXPECT_EQ(*initial.inter, 0.0);
  EXPECT_TRUE(initial.sys);
}

TEST(UdpoRewards, TheLiteralReadingGoesBelowZero) {
  // Every agent changes at every transition, T = 2: literal 1 − 2N/(N·1) = −1, the floor
  // 1 − T/(T − 1); the other readings stay at 0.
  const AnswerTrajectory restless = trajectory_of({{"A", "B", "C"}, {"B", "C", "A"}, {"C", "A", "B"}});
  const Task gold = task_with_gold("A");
  EXPECT_EQ(*trajectory_rewards(restless, gold, IntraReward::kLiteral).intra, -1.0);
  EXPECT_EQ(*trajectory_rewards(restless, gold, IntraReward::kAllTransitions).intra, 0.0);
  EXPECT_EQ(*trajectory_rewards(restless, gold, IntraReward::kOneMinusFlipRate).intra, 0.0);
}

TEST(UdpoRewards, TheLiteralReadingScalesTheComparedShareWhenAnswersAreMissing) {
  // a1: A → B → B; a2: A → - → A. Comparable transitions: a1's two (one change). Share ½ over
  // T = 2: literal 1 − ½ · 2/1 = 0; reading (b) 1 − ½.
  const AnswerTrajectory missing = trajectory_of({{"A", "A"}, {"B", std::nullopt}, {"B", "A"}});
  const Task gold = task_with_gold("A");
  EXPECT_EQ(*trajectory_rewards(missing, gold, IntraReward::kLiteral).intra, 0.0);
  EXPECT_EQ(*trajectory_rewards(missing, gold, IntraReward::kAllTransitions).intra, 0.5);
}

TEST(UdpoRewards, RewardsAreOneMinusTheUncertaintiesExactly) {
  Rng rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    const AnswerTrajectory trajectory = random_trajectory(rng, 2 + rng.below(4), 1 + rng.below(5), 1 + rng.below(4), 0.1);
    const Task gold = task_with_gold("A");
    const UncertaintyMetrics u = uncertainty_metrics(trajectory, {.answer_type = gold.answer_type});
    const TrajectoryRewards r = trajectory_rewards(trajectory, gold);
    ASSERT_EQ(r.inter.has_value(), u.u_inter.has_value());
    ASSERT_EQ(r.sys.has_value(), u.u_sys.has_value());
    ASSERT_EQ(r.intra.has_value(), u.flip_rate.has_value());
    if (r.inter) { EXPECT_EQ(*r.inter, 1.0 - *u.u_inter); }
    if (r.sys) { EXPECT_EQ(*r.sys, 1.0 - *u.u_sys); }
    if (r.intra) { EXPECT_EQ(*r.intra, 1.0 - *u.flip_rate); }
    EXPECT_EQ(r.final_vote, u.final_vote);
    EXPECT_EQ(r.task, u.final_vote == "A" ? 1.0 : 0.0);
  }
}

// P-range: r_inter, r_sys ∈ [0, 1]; r_intra ∈ [0, 1] under readings (a) and (b), and at least
// 1 − T/(T − 1) under (c).
TEST(UdpoRewards, RewardsStayInRange) {
  Rng rng(3);
  const Task gold = task_with_gold("B");
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rounds = 1 + rng.below(6);
    const AnswerTrajectory trajectory = random_trajectory(rng, 1 + rng.below(5), rounds, 1 + rng.below(4), 0.1);
    const TrajectoryRewards a = trajectory_rewards(trajectory, gold, IntraReward::kOneMinusFlipRate);
    const TrajectoryRewards b = trajectory_rewards(trajectory, gold, IntraReward::kAllTransitions);
    const TrajectoryRewards c = trajectory_rewards(trajectory, gold, IntraReward::kLiteral);
    for (const auto& reward : {a.intra, b.intra, a.inter, a.sys})
      if (reward) {
        EXPECT_GE(*reward, 0.0);
        EXPECT_LE(*reward, 1.0);
      }
    if (c.intra) {
      const double debate_rounds = static_cast<double>(rounds - 1);
      EXPECT_GE(*c.intra, 1.0 - debate_rounds / (debate_rounds - 1.0) - kEps);
      EXPECT_LE(*c.intra, 1.0);
    }
    EXPECT_TRUE(a.task == 0.0 || a.task == 1.0);
  }
}

// P-unanimous: a constant, unanimous trajectory has every reward 1 and replay uncertainty 0.
TEST(UdpoRewards, AConstantUnanimousDebateEarnsEveryReward) {
  const AnswerTrajectory settled = trajectory_of({{"C", "C", "C"}, {"C", "C", "C"}, {"C", "C", "C"}});
  for (const IntraReward reading : {IntraReward::kOneMinusFlipRate, IntraReward::kAllTransitions, IntraReward::kLiteral}) {
    const TrajectoryRewards r = trajectory_rewards(settled, task_with_gold("C"), reading);
    EXPECT_EQ(*r.intra, 1.0);
    EXPECT_EQ(*r.inter, 1.0);
    EXPECT_EQ(*r.sys, 1.0);
    EXPECT_EQ(r.task, 1.0);
    EXPECT_EQ(replay_uncertainty(r, BaseCoefficients{}), 0.0);
  }
}

TEST(UdpoRewards, TheTaskRewardMatchesTheGoldAsTheProjectDoes) {
  // Numbers match by value (answers_match), as Transcript::correct does.
  EXPECT_EQ(trajectory_rewards(trajectory_of({{"18", "18", "7"}}), task_with_gold("18.0", AnswerType::kNumber)).task, 1.0);
  // Free text by its normalised form.
  EXPECT_EQ(trajectory_rewards(trajectory_of({{"The Paris", "paris"}}), task_with_gold("Paris.", AnswerType::kText)).task,
            1.0);
  // An unparsed final round has no ŷ and is never correct.
  const TrajectoryRewards unparsed =
      trajectory_rewards(trajectory_of({{"A", "A"}, {std::nullopt, std::nullopt}}), task_with_gold("A"));
  EXPECT_FALSE(unparsed.final_vote);
  EXPECT_EQ(unparsed.task, 0.0);
  // ŷ of a tie follows the vote: with no confidence the first answer in agent order (A)...
  EXPECT_EQ(trajectory_rewards(trajectory_of({{"A", "B", "B", "A"}}), task_with_gold("B")).task, 0.0);
  // ...with stated confidence the larger sum (B: 0.9 against 0.5).
  EXPECT_EQ(trajectory_rewards(trajectory_of({{"A", "B", "B", "A"}}, {{0.2, 0.4, 0.5, 0.3}}), task_with_gold("B")).task,
            1.0);
}

TEST(UdpoRewards, EquationFourWeighsEachTerm) {
  TrajectoryRewards r;
  r.intra = 0.8;
  r.inter = 0.5;
  r.sys = 0.25;
  r.task = 1.0;
  const AgentReward reward = agent_reward(r, {.alpha = 0.5, .beta = 2.0, .gamma = 4.0, .lambda = 0.625, .eta = 0.016});
  EXPECT_DOUBLE_EQ(reward.intra, 0.4);
  EXPECT_DOUBLE_EQ(reward.inter, 1.0);
  EXPECT_DOUBLE_EQ(reward.sys, 1.0);
  EXPECT_DOUBLE_EQ(reward.task, 0.625);
  EXPECT_DOUBLE_EQ(reward.total, 3.025);
  r.task = 0.0;
  EXPECT_DOUBLE_EQ(agent_reward(r, {.alpha = 0.5, .beta = 2.0, .gamma = 4.0, .lambda = 0.625}).total, 2.4);
}

TEST(UdpoRewards, AnUndefinedRewardCountsOnlyWhenItsTermIsOff) {
  TrajectoryRewards r;  // nothing defined: one answer in one round
  r.task = 1.0;
  EXPECT_THROW(agent_reward(r, {.alpha = 1.0}), std::invalid_argument);
  EXPECT_THROW(agent_reward(r, {.beta = 1.0}), std::invalid_argument);
  EXPECT_THROW(agent_reward(r, {.gamma = 1.0}), std::invalid_argument);
  const AgentReward task_only = agent_reward(r, {.lambda = 0.5});
  EXPECT_EQ(task_only.intra + task_only.inter + task_only.sys, 0.0);
  EXPECT_EQ(task_only.total, 0.5);
}

}  // namespace
}  // namespace parley::udpo
