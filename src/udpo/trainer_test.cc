// UDPO's reference trainer: Algorithm 1 improves what it optimises on a small deterministic
// problem, is reproducible, leaves compromised agents untrained, and refuses bad setups; its
// bases, replay correction and curve are what docs/protocols.md says; and its steps (the
// baseline, the θ-gradient handed to Adam) are checked one by one.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "core/hash.h"
#include "llm/simulator_policy.h"
#include "parley/simulator.h"
#include "parley/udpo_trainer.h"
#include "udpo/trainer_steps.h"

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

constexpr int kDegenerateIterations = 1000;  // learning_rate 10 degenerates at iteration 398

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
// side effect of restructuring it (the values change only with a documented fix). Taken before
// train() was split into steps and unchanged by the split; then changed (UDPO) by the importance
// weights of expectation 1 with β_IS annealed and the baseline over the fresh trajectories;
// MAPPO's reward by the last digit only (the honest agents' mean).
TEST(UdpoTrainer, APinnedRunKeepsItsCurveAndWeights) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 5;
  s.compromised = 1;
  const auto result = train(questions(60), three_agents(), params, s);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_DOUBLE_EQ(result->curve[4].reward, 1.1774699602269447);
  EXPECT_DOUBLE_EQ(result->curve[4].objective, 0.084333454484791348);
  EXPECT_DOUBLE_EQ(result->curve[4].anchor, 0.019042739556353647);
  EXPECT_DOUBLE_EQ(result->weights.at("a1")[2], 1.7729264719105462);
  EXPECT_DOUBLE_EQ(result->weights.at("a2")[0], 0.053051326878294731);
  // A buffer smaller than what the iterations collect: replay draws from the latest 10 only.
  TrainerSettings small_buffer = s;
  small_buffer.replay_capacity = 10;
  const auto kept = train(questions(60), three_agents(), params, small_buffer);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_DOUBLE_EQ(kept->weights.at("a1")[2], 1.7881753086890377);
  EXPECT_DOUBLE_EQ(kept->curve[4].objective, -0.0097757272275107998);
  s.method = Method::kMappo;
  const auto mappo = train(questions(60), three_agents(), params, s);
  ASSERT_TRUE(mappo) << mappo.error().message;
  EXPECT_DOUBLE_EQ(mappo->curve[4].reward, 0.9722222222222221);
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
    EXPECT_TRUE(row.u_intra && row.u_inter && row.u_sys);  // T = 2, three agents: each defined
    EXPECT_GT(row.accuracy, 0.0);  // the share of the 16 fresh debates whose vote is right
    EXPECT_NEAR(row.accuracy * 16, std::round(row.accuracy * 16), 1e-9);
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

// ---- The trainer's steps (udpo/trainer_steps.h) -------------------------------------------

// A small deterministic problem: three agents, two rounds, debates played by two policies.
struct StepsProblem {
  std::vector<Task> tasks = questions(8);
  std::shared_ptr<const SimulatorParams> params = default_simulator_params();
  detail::Arena arena;
  std::vector<detail::Played> played;

  StepsProblem() {
    TrainerSettings s;
    s.rounds = 2;
    auto made = detail::make_arena(tasks, three_agents(), *params, s);
    if (!made) throw std::runtime_error(made.error().message);
    arena = std::move(*made);
    const std::vector<sim::PolicyWeights> current(3, sim::PolicyWeights{0.3, -0.2, 0.5, 0.1});
    const std::vector<sim::PolicyWeights> older(3, sim::PolicyWeights{});
    for (std::size_t k = 0; k < 8; ++k) played.push_back(detail::play(arena, k, 100 + k, k < 4 ? current : older));
  }

  // Four fresh debates (played by `current`), then four replayed ones with uneven weights.
  detail::Minibatch minibatch() const {
    detail::Minibatch batch;
    for (std::size_t m = 0; m < 4; ++m) batch.add(played[m], 1.0);
    batch.fresh = 4;
    const double weights[] = {0.7, 1.6, 0.4, 2.2};
    for (std::size_t m = 4; m < 8; ++m) batch.add(played[m], weights[m - 4]);
    return batch;
  }
};

// The θ-gradient the trainer hands to Adam — the surrogate's through ∇log π plus the anchor's,
// scaled by η·w/M — is the derivative of the objective it reports, with replayed trajectories
// (w ≠ 1, ρ against an older policy) in the minibatch.
TEST(UdpoTrainerSteps, TheAssembledGradientIsTheDerivativeOfTheObjective) {
  const StepsProblem problem;
  const detail::Minibatch batch = problem.minibatch();
  const std::vector<double> advantage = {0.5, -0.3, 0.2, -0.4, 0.8, -0.6, 0.1, 0.3};
  const sim::PolicyWeights reference = {0.3, -0.2, 0.5, 0.1};
  const sim::PolicyWeights theta = {0.34, -0.17, 0.46, 0.13};
  for (const double eta : {0.0, 0.5}) {
    for (std::size_t agent = 0; agent < 3; ++agent) {
      const auto objective = [&](const sim::PolicyWeights& at) {
        return detail::agent_step(batch, agent, advantage, at, reference, eta, 0.2).objective;
      };
      const detail::AgentStep step = detail::agent_step(batch, agent, advantage, theta, reference, eta, 0.2);
      double norm = 0.0;
      for (std::size_t f = 0; f < sim::kPolicyFeatures; ++f) {
        constexpr double kH = 1e-6;
        sim::PolicyWeights up = theta, down = theta;
        up[f] += kH;
        down[f] -= kH;
        const double numeric = (objective(up) - objective(down)) / (2 * kH);
        EXPECT_NEAR(step.gradient[f], numeric, 1e-6 + 1e-5 * std::abs(numeric))
            << "η " << eta << ", agent " << agent << ", feature " << f;
        norm += numeric * numeric;
      }
      EXPECT_GT(norm, 1e-6) << "a problem without a gradient tests nothing";
    }
  }
}

// Alg. 1 line 14: b is each agent's mean over the fresh trajectories, so the fresh advantages sum
// to 0 and a replayed trajectory's advantage is its reward minus the same b.
TEST(UdpoTrainerSteps, TheBaselineIsTheFreshTrajectoriesMean) {
  const StepsProblem problem;
  const detail::Minibatch batch = problem.minibatch();
  const std::vector<AgentCoefficients> coefficients(3, AgentCoefficients{0.4, 0.3, 0.3, 1.0, 0.01});
  const detail::Advantages a = detail::udpo_advantages(batch, coefficients);
  ASSERT_EQ(a.by_agent.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    double fresh = 0.0, replayed = 0.0, fresh_advantage = 0.0;
    for (std::size_t m = 0; m < 4; ++m) {
      fresh += a.rewards[i][m] / 4;
      fresh_advantage += a.by_agent[i][m];
    }
    for (std::size_t m = 4; m < 8; ++m) replayed += a.rewards[i][m] / 4;
    ASSERT_GT(std::abs(fresh - replayed), 1e-3) << "the replayed rewards must differ for the test to tell";
    EXPECT_NEAR(fresh_advantage, 0.0, 1e-12);
    for (std::size_t m = 0; m < 8; ++m) EXPECT_NEAR(a.by_agent[i][m], a.rewards[i][m] - fresh, 1e-12);
  }
}

// The curve's reward is the honest agents' mean over the fresh debates.
TEST(UdpoTrainerSteps, TheCurvesRewardLeavesTheCompromisedAgentsOut) {
  StepsProblem problem;
  problem.arena.compromised = 1;
  detail::Advantages a;
  a.rewards = {{1.0, 2.0, 9.0}, {3.0, 4.0, 9.0}, {100.0, 100.0, 100.0}};  // a3 compromised; m = 2 is replayed
  EXPECT_DOUBLE_EQ(detail::honest_mean_reward(problem.arena, a, 2), 2.5);
}

// Under attack the warm-up's Cohen's d of U_inter and U_sys are negative (the never-yielding
// adversary leaves a dissenter exactly when the honest agents win): the Cohen's d rule clips
// β_base and γ_base to 0, a double ablation nobody asked for. It is kept (a negative d says the
// term rewards failure) but never silent: a warning, the reason and the d values.
TEST(UdpoTrainer, BasesThatTheCohensDRuleClipsToZeroAreReported) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 1;
  s.compromised = 1;
  s.warmup_share = 0.5;
  const auto attacked = train(questions(80), three_agents(), params, s);
  ASSERT_TRUE(attacked) << attacked.error().message;
  ASSERT_TRUE(attacked->warmup_d.u_sys.has_value());
  EXPECT_LT(*attacked->warmup_d.u_sys, 0.0);
  ASSERT_TRUE(attacked->bases);
  EXPECT_EQ(attacked->bases->rule, BaseRule::kCohensD);
  EXPECT_EQ(attacked->bases->beta, 0.0);
  EXPECT_EQ(attacked->bases->gamma, 0.0);
  EXPECT_DOUBLE_EQ(attacked->bases->alpha, 1.0);
  ASSERT_EQ(attacked->warnings.size(), 1u);
  EXPECT_NE(attacked->warnings[0].find("set β_base and γ_base to 0"), std::string::npos) << attacked->warnings[0];
  EXPECT_NE(attacked->warnings[0].find("U_sys -"), std::string::npos) << attacked->warnings[0];
  EXPECT_EQ(attacked->bases_reason, attacked->warnings[0]);
  // An ablation asked for is not reported as one: without U_sys only β_base is.
  s.ablation = Ablation::kWithoutSys;
  const auto ablated_run = train(questions(80), three_agents(), params, s);
  ASSERT_TRUE(ablated_run);
  ASSERT_EQ(ablated_run->warnings.size(), 1u);
  EXPECT_NE(ablated_run->warnings[0].find("set β_base to 0"), std::string::npos) << ablated_run->warnings[0];
  // Equal bases asked for: every term kept, no warning, no d.
  s.ablation = Ablation::kNone;
  s.equal_bases = true;
  const auto equal = train(questions(80), three_agents(), params, s);
  ASSERT_TRUE(equal);
  EXPECT_TRUE(equal->warnings.empty());
  EXPECT_DOUBLE_EQ(equal->bases->gamma, 1.0 / 3.0);
  EXPECT_FALSE(equal->warmup_d.u_sys.has_value());
  EXPECT_EQ(equal->bases_reason, "bases: equal (U-8 reading (b))");
}

// Natural debates of the paper's N = 5, T = 5 on 200 warm-up tasks: every d is positive, the rule
// is Cohen's d, silently.
TEST(UdpoTrainer, PositiveWarmUpEffectsSetTheBasesByCohensD) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 1;
  s.warmup_share = 0.5;
  s.rounds = 5;
  const std::vector<TrainingAgent> five = {{"a1"}, {"a2"}, {"a3"}, {"a4"}, {"a5"}};
  const auto result = train(questions(400), five, params, s);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->bases->rule, BaseRule::kCohensD) << result->bases_reason;
  EXPECT_TRUE(result->warnings.empty());
  EXPECT_NEAR(result->bases->alpha + result->bases->beta + result->bases->gamma, 1.0, 1e-12);
  for (const auto& d : {result->warmup_d.u_intra, result->warmup_d.u_inter, result->warmup_d.u_sys}) {
    ASSERT_TRUE(d.has_value());
    EXPECT_GT(*d, 0.0);
  }
}

// T = 1 leaves r_intra (1 − F) undefined: refused before any debate unless the term is ablated
// or read over all transitions; then U_intra is undefined on the curve, not 0.
TEST(UdpoTrainer, OneRoundNeedsAnRIntraThatIsDefined) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 2;
  s.rounds = 1;
  s.equal_bases = true;
  const auto refused = train(questions(40), three_agents(), params, s);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("rounds: 1 leaves r_intra undefined"), std::string::npos);
  s.equal_bases = false;
  s.warmup_share = 0.0;
  EXPECT_FALSE(train(questions(40), three_agents(), params, s));
  s.intra_reward = IntraReward::kAllTransitions;
  const auto all = train(questions(40), three_agents(), params, s);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->warmup_debates, 0u);
  for (const auto& row : all->curve) {
    EXPECT_FALSE(row.u_intra.has_value());  // F needs two rounds
    EXPECT_TRUE(row.u_inter.has_value());
  }
  s.intra_reward = IntraReward::kOneMinusFlipRate;
  s.ablation = Ablation::kWithoutIntra;
  EXPECT_TRUE(train(questions(40), three_agents(), params, s));
  s.method = Method::kMappo;  // its reward has no r_intra
  s.ablation = Ablation::kNone;
  EXPECT_TRUE(train(questions(40), three_agents(), params, s));
}

// Too large a learning rate drives the weights until an action's probability underflows to 0:
// a clear error naming the iteration and the agent, not an internal error.
TEST(UdpoTrainer, ADegeneratePolicyStopsTrainingWithAClearError) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.learning_rate = 10.0;
  s.iterations = kDegenerateIterations;
  const auto result = train(questions(80), three_agents(), params, s);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("iteration "), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("lower training.learning_rate (now 10)"), std::string::npos)
      << result.error().message;
}

// β_IS is annealed linearly from replay_correction_start to replay.correction_exponent.
TEST(UdpoTrainer, TheImportanceCorrectionIsAnnealed) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 5;
  const auto result = train(questions(60), three_agents(), params, s);
  ASSERT_TRUE(result);
  EXPECT_DOUBLE_EQ(result->curve[0].correction_exponent, 0.0);  // nothing replayed yet
  EXPECT_DOUBLE_EQ(result->curve[1].correction_exponent, 0.55);
  EXPECT_DOUBLE_EQ(result->curve[4].correction_exponent, 1.0);
}

// The seat-count checks: two agents at least; m < N to train, m ≤ N to evaluate.
TEST(UdpoTrainer, SeatCountsAreChecked) {
  const auto params = default_simulator_params();
  TrainerSettings s = small(Method::kUdpo);
  s.iterations = 1;
  s.compromised = -1;
  EXPECT_FALSE(train(questions(20), three_agents(), params, s));
  s.compromised = 2;
  EXPECT_TRUE(train(questions(20), three_agents(), params, s));
  s.compromised = 3;
  EXPECT_TRUE(evaluate(questions(5), three_agents(), params, {}, s));  // every seat an adversary
  s.compromised = 4;
  EXPECT_FALSE(evaluate(questions(5), three_agents(), params, {}, s));
  s.compromised = 0;
  EXPECT_FALSE(evaluate(questions(5), {{"a1"}}, params, {}, s));
  EXPECT_FALSE(evaluate({}, three_agents(), params, {}, s));
  EXPECT_FALSE(evaluate(questions(5), three_agents(), nullptr, {}, s));
  EXPECT_FALSE(train(questions(20), three_agents(), nullptr, s));
}

// Adam with the gradient clipped at norm 1, by hand (docs/protocols.md: β = 0.9, 0.999): a
// gradient of norm 0.8 is not rescaled, one of norm 5 is scaled to norm 1.
// The update reads the replayed trajectories with the sampler's weights at this iteration's β_IS:
// priorities 0, 0.5, 1 (ε_p = 1e-3), K = 5, β_IS from 0.4 to 1, so 0.7 at iteration 3.
TEST(UdpoTrainerSteps, TheMinibatchCarriesTheReplayWeightsAtTheAnnealedCorrection) {
  std::vector<detail::Played> buffer(3), fresh(2);
  const std::vector<double> priorities = {0.0, 0.5, 1.0};
  for (std::size_t i = 0; i < 3; ++i) buffer[i].replay_priority = priorities[i];
  TrainerSettings settings;
  settings.iterations = 5;
  settings.replay_draws = 300;
  settings.replay_correction_start = 0.4;
  settings.replay.correction_exponent = 1.0;
  EXPECT_DOUBLE_EQ(detail::correction_exponent(settings, 1), 0.4);
  EXPECT_DOUBLE_EQ(detail::correction_exponent(settings, 3), 0.7);
  EXPECT_DOUBLE_EQ(detail::correction_exponent(settings, 5), 1.0);
  ReplayOptions at_three = settings.replay;
  at_three.correction_exponent = 0.7;
  const std::vector<double> expected = importance_weights(replay_probabilities(priorities, at_three), 0.7);
  Rng rng(7);
  const detail::Minibatch batch = detail::assemble(fresh, buffer, settings, 3, rng);
  EXPECT_EQ(batch.fresh, 2u);
  EXPECT_DOUBLE_EQ(batch.correction_exponent, 0.7);
  ASSERT_EQ(batch.size(), 302u);
  std::array<int, 3> drawn{};
  for (std::size_t m = 0; m < batch.size(); ++m) {
    if (m < 2) {
      EXPECT_EQ(batch.trajectories[m], &fresh[m]);
      EXPECT_EQ(batch.importance[m], 1.0);
      continue;
    }
    const auto index = static_cast<std::size_t>(batch.trajectories[m] - buffer.data());
    ASSERT_LT(index, 3u);
    ++drawn[index];
    EXPECT_DOUBLE_EQ(batch.importance[m], expected[index]) << index;
  }
  EXPECT_GT(drawn[2], drawn[1]);  // drawn by priority
  EXPECT_GT(drawn[1], drawn[0]);
  // MAPPO replays nothing.
  settings.method = Method::kMappo;
  EXPECT_EQ(detail::assemble(fresh, buffer, settings, 3, rng).size(), 2u);
}

TEST(UdpoTrainerSteps, AdamClipsTheGradientAtNormOne) {
  detail::Adam adam;
  sim::PolicyWeights weights{};
  adam.ascend(weights, {0.8, 0.0, 0.0, 0.0}, 1.0);
  EXPECT_NEAR(weights[0], 1.0, 1e-7);  // the first step is the learning rate, whatever the scale
  adam.ascend(weights, {-0.4, 0.0, 0.0, 0.0}, 1.0);
  adam.ascend(weights, {3.0, 4.0, 0.0, 0.0}, 1.0);
  EXPECT_NEAR(weights[0], 1.7933577876542492, 1e-9);  // clipping at 0.5 instead would give 1.89
  EXPECT_NEAR(weights[1], 0.6388135855747108, 1e-9);
  EXPECT_EQ(weights[2], 0.0);
  EXPECT_EQ(adam.steps, 3);
}

// MAPPO's critic recovers a value that is exactly linear in the state.
TEST(UdpoTrainerSteps, TheCriticFitsALinearValue) {
  const std::array<double, 4> truth = {0.3, -1.2, 0.8, 2.5};
  std::vector<std::array<double, 4>> states;
  std::vector<double> targets;
  for (int m = 0; m < 12; ++m) {
    states.push_back({1.0, 0.1 * m, std::sin(m), 0.5 + 0.05 * m * m});
    targets.push_back(std::inner_product(truth.begin(), truth.end(), states.back().begin(), 0.0));
  }
  detail::LinearValue value;
  value.fit(states, targets);
  for (std::size_t f = 0; f < 4; ++f) EXPECT_NEAR(value.w[f], truth[f], 1e-4) << f;
  EXPECT_NEAR(value(states[5]), targets[5], 1e-4);  // up to the ridge
}

// Every setting the trainer reads is checked at the boundary, before any debate.
TEST(UdpoTrainer, EverySettingIsChecked) {
  const auto params = default_simulator_params();
  const auto tasks = questions(20);
  const auto refused = [&](const std::function<void(TrainerSettings&)>& change) {
    TrainerSettings s = small(Method::kUdpo);
    s.iterations = 1;
    change(s);
    return !train(tasks, three_agents(), params, s);
  };
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.rounds = 0; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.iterations = 0; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.batch = 0; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.epochs = 0; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.learning_rate = 0.0; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.kappa = -0.5; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.warmup_share = 1.0; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.warmup_share = -0.1; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.replay_draws = -1; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.replay_correction_start = 1.5; }));
  EXPECT_TRUE(refused([](TrainerSettings& s) { s.replay_correction_start = -0.1; }));
  // The edges that are allowed.
  EXPECT_FALSE(refused([](TrainerSettings& s) { s.replay_correction_start = 1.0; }));
  EXPECT_FALSE(refused([](TrainerSettings& s) { s.replay_correction_start = 0.0; }));
  EXPECT_FALSE(refused([](TrainerSettings& s) { s.replay_draws = 0; }));
  EXPECT_FALSE(refused([](TrainerSettings& s) { s.kappa = 0.0; }));
  EXPECT_FALSE(refused([](TrainerSettings& s) { s.batch = 1; }));
  EXPECT_FALSE(refused([](TrainerSettings& s) { s.epochs = 1; }));
  EXPECT_FALSE(refused([](TrainerSettings& s) { s.rounds = 1; s.ablation = Ablation::kWithoutIntra; }));
}

}  // namespace
}  // namespace parley::udpo
