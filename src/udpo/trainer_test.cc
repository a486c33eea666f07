// UDPO's reference trainer: Algorithm 1 improves what it optimises on a small deterministic
// problem, is reproducible, leaves compromised agents untrained, and refuses bad setups.
#include <gtest/gtest.h>

#include "llm/simulator_policy.h"
#include "parley/simulator.h"
#include "parley/udpo_trainer.h"

namespace parley::udpo {
namespace {

// Four-option questions of middling difficulty, gold rotating over the letters.
std::vector<Task> questions(int count, int offset = 0) {
  std::vector<Task> tasks;
  for (int i = offset; i < offset + count; ++i) {
    Task t;
    t.id = "q" + std::to_string(i);
    t.question = "Question " + std::to_string(i) + ": which option holds?";
    t.options = {"first", "second", "third", "fourth"};
    t.answer_type = AnswerType::kChoice;
    t.answer = std::string(1, static_cast<char>('A' + i % 4));
    t.difficulty = 0.55;
    tasks.push_back(std::move(t));
  }
  return tasks;
}

std::vector<TrainingAgent> three_agents() { return {{"a1"}, {"a2"}, {"a3"}}; }

TrainerSettings small(Method method) {
  TrainerSettings s;
  s.method = method;
  s.rounds = 2;
  s.iterations = 25;
  s.batch = 16;
  s.replay_draws = 8;
  s.learning_rate = 0.1;
  return s;
}

// Algorithm 1 improves its objective: on held-out questions and the same debate seeds, the
// trained policies reach the majority's right answer more often than the untrained ones, and
// the per-agent reward it maximises rises between the first and the last iterations.
TEST(UdpoTrainer, TrainingRaisesAccuracyOnHeldOutQuestionsOnTheSameDraws) {
  const auto params = default_simulator_params();
  const auto training = questions(200);
  const auto held_out = questions(300, 1000);
  const auto result = train(training, three_agents(), params, small(Method::kUdpo));
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->curve.size(), 25u);
  const auto before = evaluate(held_out, three_agents(), params, {}, small(Method::kUdpo));
  const auto after = evaluate(held_out, three_agents(), params, result->weights, small(Method::kUdpo));
  ASSERT_TRUE(before && after);
  EXPECT_GT(after->accuracy, before->accuracy + 0.02) << before->accuracy << " -> " << after->accuracy;
  EXPECT_LT(after->u_sys, before->u_sys);
  double early = 0.0, late = 0.0;
  for (int k = 0; k < 5; ++k) {
    early += result->curve[k].reward;
    late += result->curve[result->curve.size() - 1 - k].reward;
  }
  EXPECT_GT(late, early);
  // The warm-up profiled the agents: eqs. (10)–(14) with κ = 1.5 give λ^(i) < λ_base = 1 and
  // η^(i) ≥ η_base = 0.01 wherever the agent's L̄ is positive.
  ASSERT_EQ(result->coefficients.size(), 3u);
  EXPECT_EQ(result->warmup_debates, 20u);
  for (const auto& [agent, c] : result->coefficients) {
    EXPECT_LE(c.lambda, 1.0);
    EXPECT_GE(c.eta, 0.01);
    EXPECT_NEAR(c.eta / 0.01, 1.0 / c.lambda, 1e-12);  // both are 1 + κŪ_sys^(i)
  }
}

// A pinned run: a change to these values is a change to what the trainer computes, never a
// side effect of restructuring it (the values change only with a documented fix).
TEST(UdpoTrainer, APinnedRunKeepsItsCurveAndWeights) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 5;
  s.compromised = 1;
  const auto result = train(questions(60), three_agents(), params, s);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_DOUBLE_EQ(result->curve[4].reward, 1.1762933497375088);
  EXPECT_DOUBLE_EQ(result->curve[4].objective, -0.055704539736294356);
  EXPECT_DOUBLE_EQ(result->curve[4].anchor, 0.021448359463825801);
  EXPECT_DOUBLE_EQ(result->weights.at("a1")[2], 1.7672165165613249);
  EXPECT_DOUBLE_EQ(result->weights.at("a2")[0], 0.024058789334191762);
  s.method = Method::kMappo;
  const auto mappo = train(questions(60), three_agents(), params, s);
  ASSERT_TRUE(mappo) << mappo.error().message;
  EXPECT_DOUBLE_EQ(mappo->curve[4].reward, 0.97222222222222265);
  EXPECT_DOUBLE_EQ(mappo->curve[4].objective, 0.017995368868926366);
  EXPECT_DOUBLE_EQ(mappo->weights.at("a1")[2], 0.78502944412633291);
  EXPECT_DOUBLE_EQ(mappo->weights.at("a2")[0], 0.045071248696489596);
}

TEST(UdpoTrainer, ARunIsReproducibleAndItsPolicyFileReadsBack) {
  const auto params = default_simulator_params();
  const auto tasks = questions(60);
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 4;
  const auto first = train(tasks, three_agents(), params, s);
  const auto second = train(tasks, three_agents(), params, s);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->weights, second->weights);
  s.seed = 2;
  EXPECT_NE(train(tasks, three_agents(), params, s)->weights, first->weights);

  const auto policies = sim::parse_revision_policies(policy_file_json(first->weights, R"({"iterations": 4})"));
  ASSERT_TRUE(policies) << policies.error().message;
  for (const auto& [agent, w] : first->weights) {
    ASSERT_NE(policies->find(agent), nullptr);
    EXPECT_EQ(*policies->find(agent), w);
  }
}

TEST(UdpoTrainer, CompromisedAgentsAreNotTrainedAndMappoTrainsTheOthers) {
  const auto params = default_simulator_params();
  const auto tasks = questions(60);
  TrainerSettings s = small(Method::kMappo);
  s.iterations = 5;
  s.compromised = 1;
  const auto result = train(tasks, three_agents(), params, s);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->weights.count("a3"), 0u);
  ASSERT_EQ(result->weights.count("a1"), 1u);
  EXPECT_NE(result->weights.at("a1"), (std::array<double, 4>{}));
  EXPECT_TRUE(result->coefficients.empty());  // MAPPO has no agent-tailored coefficients
  for (const auto& row : result->curve) EXPECT_EQ(row.replayed, 0);
}

TEST(UdpoTrainer, ReplayDrawsEarlierTrajectoriesFromTheSecondIteration) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 3;
  const auto result = train(questions(60), three_agents(), params, s);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->curve[0].replayed, 0);
  EXPECT_EQ(result->curve[1].replayed, 8);
  EXPECT_EQ(result->curve[2].replayed, 8);
}

// The curve's bookkeeping: objective before the update, anchor and clipped share after it.
TEST(UdpoTrainer, TheCurveRecordsTheUpdate) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 6;
  const auto result = train(questions(80), three_agents(), params, s);
  ASSERT_TRUE(result);
  bool moved = false;
  for (const auto& row : result->curve) {
    EXPECT_GE(row.anchor, 0.0);
    EXPECT_GE(row.clipped_share, 0.0);
    EXPECT_LE(row.clipped_share, 1.0);
    EXPECT_EQ(row.weights.size(), 3u);
    moved = moved || row.anchor > 0.0;  // the update moved the policy away from θ_ref
    // At θ = θ_ref on the fresh samples ρ = 1, so L^(i) before the update is the mean
    // advantage of fresh and replayed samples weighted by w, which is 0 on the first iteration.
  }
  EXPECT_TRUE(moved);
  EXPECT_NEAR(result->curve[0].objective, 0.0, 1e-12);
  const auto evaluation = evaluate(questions(30), three_agents(), params, result->weights, s);
  ASSERT_TRUE(evaluation);
  EXPECT_EQ(evaluation->debates, 30u);
}

TEST(UdpoTrainer, TheWarmUpMayLeaveOneTaskAndKappaMayBeZero) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 1;
  s.warmup_share = 0.5;
  EXPECT_TRUE(train(questions(2), three_agents(), params, s));   // 1 warm-up task, 1 to train on
  EXPECT_FALSE(train(questions(1), three_agents(), params, s));  // ⌈0.5⌉ = 1 warm-up, none left
  s.warmup_share = 0.1;
  s.kappa = 0.0;  // no asymmetry: every agent gets the bases
  const auto flat = train(questions(40), three_agents(), params, s);
  ASSERT_TRUE(flat) << flat.error().message;
  for (const auto& [agent, c] : flat->coefficients) {
    EXPECT_EQ(c.lambda, 1.0);
    EXPECT_EQ(c.eta, 0.01);
  }
}

TEST(UdpoTrainer, BadSetupsAreErrors) {
  const auto params = default_simulator_params();
  const auto tasks = questions(20);
  TrainerSettings s = small(Method::kUdpo);
  EXPECT_FALSE(train(tasks, {{"a1"}}, params, s));
  s.compromised = 3;
  EXPECT_NE(train(tasks, three_agents(), params, s).error().message.find("leaves no agent to train"), std::string::npos);
  s.compromised = 0;
  EXPECT_NE(train(questions(1), three_agents(), params, s).error().message.find("none to train on"), std::string::npos);
  EXPECT_NE(train(tasks, {{"a1", "genius"}, {"a2"}}, params, s).error().message.find("unknown simulator profile"),
            std::string::npos);
  s.clip_epsilon = 0.0;
  EXPECT_FALSE(train(tasks, three_agents(), params, s));
}

}  // namespace
}  // namespace parley::udpo
