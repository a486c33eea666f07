// MACI's dial scheduler (App. L): the move grid, the budget filter, the reward, and the regret
// of both policies on synthetic bandits whose best arm is known.

#include <gtest/gtest.h>

#include <cmath>

#include "core/hash.h"
#include "parley/maci_scheduler.h"

namespace parley::maci {
namespace {

TEST(MaciScheduler, NineMovesOnTheGrid) {
  const std::vector<DialMove> moves = dial_moves(0.2);
  ASSERT_EQ(moves.size(), 9u);
  EXPECT_DOUBLE_EQ(moves[0].contentiousness_change, -0.2);
  EXPECT_DOUBLE_EQ(moves[0].gate_change, -0.2);
  EXPECT_DOUBLE_EQ(moves[4].contentiousness_change, 0.0);  // the no-op
  EXPECT_DOUBLE_EQ(moves[4].gate_change, 0.0);
  EXPECT_DOUBLE_EQ(moves[5].gate_change, 0.2);
  EXPECT_DOUBLE_EQ(moves[8].contentiousness_change, 0.2);
}

TEST(MaciScheduler, MovesAreClippedToTheUnitInterval) {
  const DialPosition p = apply_move({0.9, 0.1}, {0.2, -0.2});
  EXPECT_DOUBLE_EQ(p.contentiousness, 1.0);
  EXPECT_DOUBLE_EQ(p.gate_offset, 0.0);
  Rng rng(5);
  DialPosition position{0.8, 0.0};
  const std::vector<DialMove> moves = dial_moves(0.2);
  for (int i = 0; i < 1000; ++i) {
    position = apply_move(position, moves[rng.below(moves.size())]);
    ASSERT_GE(position.contentiousness, 0.0);
    ASSERT_LE(position.contentiousness, 1.0);
    ASSERT_GE(position.gate_offset, 0.0);
    ASSERT_LE(position.gate_offset, 1.0);
  }
}

TEST(MaciScheduler, RewardOfLineNine) {
  DialScheduler scheduler({});
  // 0.5·[0.3 − 0.1]_+ + 0.5·[0.5 − 0.2]_+ − 0.1·2000/4000
  EXPECT_NEAR(scheduler.reward(0.1, 0.3, 0.5, 0.2, 2000), 0.2, 1e-15);
  EXPECT_NEAR(scheduler.reward(0.3, 0.1, 0.2, 0.5, 0), 0.0, 1e-15);  // no negative progress terms
  SchedulerSettings level;
  level.reward_information_level = true;
  EXPECT_NEAR(DialScheduler(level).reward(0.1, 0.3, 0.5, 0.2, 2000), 0.25, 1e-15);
  level.cost_scale = 0;
  EXPECT_THROW(DialScheduler{level}, std::invalid_argument);
}

TEST(MaciScheduler, CostEstimatesAreConservative) {
  DialScheduler scheduler({});
  EXPECT_DOUBLE_EQ(scheduler.estimated_cost(3), 4000);  // nothing seen: C_max
  EXPECT_TRUE(scheduler.feasible(3999).empty());
  EXPECT_FALSE(scheduler.choose({}, 3999));
  scheduler.update(2, {}, 0.1, 1500);
  scheduler.update(2, {}, 0.1, 1200);
  EXPECT_DOUBLE_EQ(scheduler.estimated_cost(2), 1500);  // the largest seen for the move
  EXPECT_DOUBLE_EQ(scheduler.estimated_cost(0), 1500);  // the largest seen for any move
  scheduler.update(5, {}, 0.1, 2500);
  EXPECT_DOUBLE_EQ(scheduler.estimated_cost(0), 2500);
  EXPECT_EQ(scheduler.feasible(2000), (std::vector<std::size_t>{2}));
  EXPECT_EQ(scheduler.steps(), 3);
  EXPECT_EQ(scheduler.statistics()[2].pulls, 2);
  EXPECT_NEAR(scheduler.statistics()[2].mean_reward, 0.1, 1e-15);
}

// P-UCB: with deterministic per-move costs no larger than C_max, the chosen move is always in
// budget and the budget never goes negative.
TEST(MaciScheduler, BudgetIsNeverOverrun) {
  for (SchedulerPolicy policy : {SchedulerPolicy::kUcb, SchedulerPolicy::kLinUcb}) {
    SchedulerSettings settings;
    settings.policy = policy;
    DialScheduler scheduler(settings);
    Rng rng(9);
    std::vector<double> costs;
    for (std::size_t k = 0; k < scheduler.moves().size(); ++k) costs.push_back(500 + rng.uniform() * 3500);
    double budget = 200000;
    int rounds = 0;
    while (auto move = scheduler.choose({0.3, -0.1, 0.6, 0.0, 0.1, 0.0, budget / 200000}, budget)) {
      ASSERT_LE(scheduler.estimated_cost(*move), budget);
      budget -= costs[*move];
      ASSERT_GE(budget, 0.0);
      scheduler.update(*move, {}, rng.uniform(), costs[*move]);
      ++rounds;
    }
    EXPECT_GT(rounds, 50);
    EXPECT_LT(budget, 4000);  // it stopped because nothing more fitted
  }
}

TEST(MaciScheduler, UcbTriesEveryMoveOnceInOrderFirst) {
  DialScheduler scheduler({});
  for (std::size_t k = 0; k < 9; ++k) {
    const auto move = scheduler.choose({}, 1e9);
    ASSERT_TRUE(move);
    EXPECT_EQ(*move, k);
    scheduler.update(*move, {}, k == 6 ? 1.0 : 0.0, 100);
  }
  EXPECT_EQ(*scheduler.choose({}, 1e9), 6u);
}

// Proposition 1: on a stationary Bernoulli bandit (K = 9, T = 10^4) the pseudo-regret stays
// within sqrt(K T log T), and the regret per round falls.
TEST(MaciScheduler, UcbRegretOnAStationaryBandit) {
  const std::vector<double> means{0.2, 0.35, 0.5, 0.3, 0.45, 0.6, 0.25, 0.4, 0.55};
  const double best = 0.6;
  DialScheduler scheduler({});
  Rng rng(2024);
  double regret = 0.0, regret_at_1000 = 0.0;
  const int horizon = 10000;
  for (int t = 1; t <= horizon; ++t) {
    const std::size_t move = *scheduler.choose({}, 1e12);
    regret += best - means[move];
    scheduler.update(move, {}, rng.uniform() < means[move] ? 1.0 : 0.0, 0.0);
    if (t == 1000) regret_at_1000 = regret;
  }
  const double bound = std::sqrt(9.0 * horizon * std::log(static_cast<double>(horizon)));
  EXPECT_LT(regret, bound) << "bound " << bound;
  EXPECT_LT(regret / horizon, regret_at_1000 / 1000.0);
  EXPECT_GT(scheduler.statistics()[5].pulls, horizon / 2);
}

// LinUCB (App. L.5) on rewards linear in the context: each move's reward is θ_k·x plus noise.
TEST(MaciScheduler, LinUcbLearnsALinearReward) {
  SchedulerSettings settings;
  settings.policy = SchedulerPolicy::kLinUcb;
  DialScheduler scheduler(settings);
  Rng rng(77);
  std::vector<std::vector<double>> theta(9, std::vector<double>(kContextFeatures));
  for (auto& row : theta) {
    for (double& w : row) w = rng.uniform(-0.5, 0.5);
  }
  auto expected = [&](std::size_t k, const std::vector<double>& x) {
    double r = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) r += theta[k][i] * x[i];
    return r;
  };
  double regret = 0.0, regret_at_500 = 0.0;
  const int horizon = 3000;
  for (int t = 1; t <= horizon; ++t) {
    const SchedulerContext context{rng.uniform(), rng.uniform(-1, 1), rng.uniform(), rng.uniform(-1, 1),
                                   rng.uniform(), rng.uniform(-1, 1), rng.uniform()};
    const std::vector<double> x = context_features(context);
    double best = -1e9;
    for (std::size_t k = 0; k < 9; ++k) best = std::max(best, expected(k, x));
    const std::size_t move = *scheduler.choose(context, 1e12);
    regret += best - expected(move, x);
    scheduler.update(move, context, expected(move, x) + 0.1 * rng.normal(), 0.0);
    if (t == 500) regret_at_500 = regret;
  }
  // Õ(d sqrt(T)): far below the linear regret of a policy that does not learn.
  EXPECT_LT(regret / horizon, 0.5 * regret_at_500 / 500.0);
  EXPECT_LT(regret, static_cast<double>(kContextFeatures) * std::sqrt(static_cast<double>(horizon)));
}

TEST(MaciScheduler, StateAsJson) {
  DialScheduler scheduler({});
  scheduler.update(1, {}, 0.25, 300);
  const std::string json = scheduler.to_json();
  EXPECT_NE(json.find("\"policy\":\"ucb\""), std::string::npos);
  EXPECT_NE(json.find("\"steps\":1"), std::string::npos);
  EXPECT_NE(json.find("\"mean_reward\":0.25"), std::string::npos);
}

}  // namespace
}  // namespace parley::maci
