// `parley export-rl`'s lines against a hand-built run (tests/rl_export_runs.h), every number
// worked out by hand below; the turn mode's prompts; the options; and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parley/rl_export.h"
#include "rl_export_runs.h"

namespace parley::udpo {
namespace {

using Json = nlohmann::json;
using testing::HandDebate;
using testing::hand_built_run;

std::vector<Json> lines_of(const RlExport& e) {
  std::vector<Json> out;
  for (const std::string& line : e.lines) out.push_back(Json::parse(line));
  return out;
}

RlExport exported(const ExportOptions& options = {}, std::vector<Transcript> run = hand_built_run()) {
  auto e = export_rl(run, options);
  if (!e) ADD_FAILURE() << e.error().message;
  return e ? std::move(*e) : RlExport{};
}

// ---- The hand arithmetic ---------------------------------------------------------------------
//
// The `debate` batch is q1, q2, q3 (q4 failed, q5 budget: skipped); agents a1, a2, a3; T = 2.
//
// Trajectory quantities (docs/protocols.md, "Uncertainty metrics"; λ = 0.5):
//   q1: unanimous A throughout: F = M = 0, C_t = 0, H̃ = D = L = 0.
//       r_intra = 1 − F = 1, r_inter = 1, r_sys = 1, ŷ = A: r_task = 1.
//   q2: a1 A A A, a2 B A A (round 1 after its re-ask), a3 B B A.
//       F over t = 1 → 2: only a3 (B → A): 1/3. M: a2, a3 changed: 2/3.
//       C_0 = C_1 = 2/3 (two of three pairs differ), C_2 = 0: U_inter = 4/9.
//       Final unanimous: U_sys = 0.  r_intra = 2/3, r_inter = 5/9, r_sys = 1, r_task = 1.
//   q3: a1 A B B, a2 B B B, a3 C C A (0.9 in t = 2).
//       F: only a3 (C → A): 1/3; M: a1, a3: 2/3.
//       C_0 = 1, C_1 = 2/3, C_2 = 2/3: U_inter = 7/9.
//       Final B (0.8), B (0.8), A (0.9): ŷ = B (two votes) ≠ gold: r_task = 0.
//       H̃ = −(2/3 log2 2/3 + 1/3 log2 1/3) = log2 3 − 2/3; D = 1;
//       L: without a1 or a2 the 1–1 tie goes to the larger confidence, A (changes); without a3
//       B stays: L = 2/3. U_sys = (log2 3 − 2/3 + 1 + 2/3)/3 = log2(6)/3.
//       r_intra = 2/3, r_inter = 2/9, r_sys = s = 1 − log2(6)/3.
const double kS = 1.0 - std::log2(6.0) / 3.0;
//
// Per-agent shares (U_intra^(i) = λF_i + (1 − λ)M_i; U_inter^(i): mean over rounds of the share
// of differing peers; the leave-one-out indicator):
//        q1            q2                   q3
//   a1   0, 0, 0       0, (1+1/2+0)/3=1/2, 0     1/2, (1+1/2+1/2)/3=2/3, 1
//   a2   0, 0, 0       1/2, (1/2+1/2+0)/3=1/3, 0 0, 2/3, 1
//   a3   0, 0, 0       1, (1/2+1+0)/3=1/2, 0     1, 1, 0
// Profile (means over the batch; Ū_sys = L̄, U-7 reading (a)):
//   a1: Ū_intra = 1/6, Ū_inter = 7/18, L̄ = Ū_sys = 1/3
//   a2: Ū_intra = 1/6, Ū_inter = 1/3,  L̄ = Ū_sys = 1/3
//   a3: Ū_intra = 2/3, Ū_inter = 1/2,  L̄ = Ū_sys = 0
// Bases: Cohen's d needs two failed debates and there is one (q3): every d undefined, so the
// equal bases, 1/3 each (U-8 reading (b)); λ_base = 1, η_base = 0.01.
// Coefficients, κ = 1.5 (α = α_b(1 + κŪ_intra), β = β_b(1 + κŪ_inter), γ = γ_b(1 + κL̄),
// λ = 1/(1 + κŪ_sys), η = 0.01(1 + κŪ_sys)):
//   a1: α = 1/3 · 1.25 = 5/12, β = 1/3 · 19/12 = 19/36, γ = 1/3 · 1.5 = 1/2, λ = 2/3, η = 0.015
//   a2: α = 5/12, β = 1/3 · 1.5 = 1/2, γ = 1/2, λ = 2/3, η = 0.015
//   a3: α = 1/3 · 2 = 2/3, β = 1/3 · 1.75 = 7/12, γ = 1/3, λ = 1, η = 0.01
struct Coefficients {
  double alpha, beta, gamma, lambda, eta;
};
const Coefficients kCoefficients[3] = {{5.0 / 12, 19.0 / 36, 0.5, 2.0 / 3, 0.015},
                                       {5.0 / 12, 0.5, 0.5, 2.0 / 3, 0.015},
                                       {2.0 / 3, 7.0 / 12, 1.0 / 3, 1.0, 0.01}};
// Rewards (eq. 4), by debate and agent:
//   q1: a1 5/12 + 19/36 + 1/2 + 2/3 = 19/9; a2 5/12 + 1/2 + 1/2 + 2/3 = 25/12;
//       a3 2/3 + 7/12 + 1/3 + 1 = 31/12
//   q2: a1 5/12·2/3 + 19/36·5/9 + 1/2 + 2/3 = (90 + 95 + 162 + 216)/324 = 563/324;
//       a2 5/18 + 5/18 + 1/2 + 2/3 = 31/18; a3 4/9 + 35/108 + 1/3 + 1 = 227/108
//   q3: a1 5/18 + 19/162 + s/2 = 32/81 + s/2; a2 5/18 + 1/9 + s/2 = 7/18 + s/2;
//       a3 4/9 + 7/54 + s/3 = 31/54 + s/3
const double kReward[3][3] = {{19.0 / 9, 25.0 / 12, 31.0 / 12},
                              {563.0 / 324, 31.0 / 18, 227.0 / 108},
                              {32.0 / 81 + kS / 2, 7.0 / 18 + kS / 2, 31.0 / 54 + kS / 3}};
// Advantage (Alg. 1 line 14): the reward less the agent's mean over q1, q2, q3.
double advantage(int debate, int agent) {
  return kReward[debate][agent] - (kReward[0][agent] + kReward[1][agent] + kReward[2][agent]) / 3;
}
// Replay (eq. 15, the bases 1/3): U = (1 − r_intra + 1 − r_inter + 1 − r_sys)/3:
//   q1: 0; q2: (1/3 + 4/9 + 0)/3 = 7/27; q3: (1/3 + 7/9 + log2(6)/3)/3 = 10/27 + log2(6)/9.
// p ∝ U + 0.001 (ε_p, η = 1); w = (1/(3p))^β_IS normalised to Σ p w = 1, which at β_IS = 1
// 1/(3p) already is: w = 1/(3p) (q1's, p ≈ 0.0011, is ≈ 306.6).
const double kPriority[3] = {0.0, 7.0 / 27, 10.0 / 27 + std::log2(6.0) / 9};
double probability(int debate) {
  return (kPriority[debate] + 1e-3) / (kPriority[0] + kPriority[1] + kPriority[2] + 3e-3);
}

TEST(RlExport, TrajectoryLinesMatchTheHandArithmetic) {
  const RlExport e = exported();
  EXPECT_EQ(e.debates, 4u);
  EXPECT_EQ(e.skipped.at("failed"), 1u);
  EXPECT_EQ(e.skipped.at("budget"), 1u);
  ASSERT_EQ(e.batches.size(), 2u);
  EXPECT_EQ(e.batches[0].protocol, "debate");
  EXPECT_EQ(e.batches[0].debates, 3u);
  EXPECT_EQ(e.batches[0].bases.rule, BaseRule::kEqual);
  EXPECT_EQ(e.batches[0].agents, (std::vector<std::string>{"a1", "a2", "a3"}));
  ASSERT_EQ(e.batches[0].coefficients.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(e.batches[0].coefficients[i].alpha, kCoefficients[i].alpha, 1e-12);
    EXPECT_NEAR(e.batches[0].coefficients[i].beta, kCoefficients[i].beta, 1e-12);
    EXPECT_NEAR(e.batches[0].coefficients[i].gamma, kCoefficients[i].gamma, 1e-12);
    EXPECT_NEAR(e.batches[0].coefficients[i].lambda, kCoefficients[i].lambda, 1e-12);
    EXPECT_NEAR(e.batches[0].coefficients[i].eta, kCoefficients[i].eta, 1e-12);
  }
  const auto lines = lines_of(e);
  ASSERT_EQ(lines.size(), 10u);  // 3 debates × 3 agents, and single's one
  const double rewards[3][3] = {{1, 1, 1}, {2.0 / 3, 5.0 / 9, 1}, {2.0 / 3, 2.0 / 9, kS}};
  const double task[3] = {1, 1, 0};
  const char* agents[3] = {"a1", "a2", "a3"};
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 3; ++i) {
      const Json& line = lines[static_cast<std::size_t>(3 * k + i)];
      SCOPED_TRACE(line.dump());
      EXPECT_EQ(line["task_id"], "q" + std::to_string(k + 1));
      EXPECT_EQ(line["protocol"], "debate");
      EXPECT_EQ(line["seed"], 1);
      EXPECT_EQ(line["agent"], agents[i]);
      EXPECT_EQ(line["compromised"], i == 2);
      EXPECT_EQ(line["gold"], "A");
      EXPECT_EQ(line["final_vote"], k == 2 ? "B" : "A");
      EXPECT_NEAR(line["rewards"]["intra"].get<double>(), rewards[k][0], 1e-12);
      EXPECT_NEAR(line["rewards"]["inter"].get<double>(), rewards[k][1], 1e-12);
      EXPECT_NEAR(line["rewards"]["sys"].get<double>(), rewards[k][2], 1e-12);
      EXPECT_EQ(line["rewards"]["task"].get<double>(), task[k]);
      const Coefficients& c = kCoefficients[i];
      EXPECT_NEAR(line["coefficients"]["alpha"].get<double>(), c.alpha, 1e-12);
      EXPECT_NEAR(line["coefficients"]["beta"].get<double>(), c.beta, 1e-12);
      EXPECT_NEAR(line["coefficients"]["gamma"].get<double>(), c.gamma, 1e-12);
      EXPECT_NEAR(line["coefficients"]["lambda"].get<double>(), c.lambda, 1e-12);
      EXPECT_NEAR(line["coefficients"]["eta"].get<double>(), c.eta, 1e-12);
      EXPECT_NEAR(line["reward_components"]["intra"].get<double>(), c.alpha * rewards[k][0], 1e-12);
      EXPECT_NEAR(line["reward_components"]["inter"].get<double>(), c.beta * rewards[k][1], 1e-12);
      EXPECT_NEAR(line["reward_components"]["sys"].get<double>(), c.gamma * rewards[k][2], 1e-12);
      EXPECT_NEAR(line["reward_components"]["task"].get<double>(), c.lambda * task[k], 1e-12);
      EXPECT_NEAR(line["reward"].get<double>(), kReward[k][i], 1e-12);
      EXPECT_NEAR(line["advantage"].get<double>(), advantage(k, i), 1e-12);
      EXPECT_NEAR(line["replay"]["uncertainty"].get<double>(), kPriority[k], 1e-12);
      EXPECT_NEAR(line["replay"]["probability"].get<double>(), probability(k), 1e-12);
      EXPECT_NEAR(line["replay"]["importance_weight"].get<double>(), 1.0 / (3.0 * probability(k)), 1e-9);
      ASSERT_EQ(line["turns"].size(), 3u);
      for (int t = 0; t < 3; ++t) EXPECT_EQ(line["turns"][static_cast<std::size_t>(t)]["round"], t);
    }
  }
  // The advantages of each agent sum to 0 over the batch; the probabilities to 1.
  EXPECT_NEAR(advantage(0, 0) + advantage(1, 0) + advantage(2, 0), 0.0, 1e-12);
  EXPECT_NEAR(probability(0) + probability(1) + probability(2), 1.0, 1e-12);

  // single: one agent, one round — r_intra, r_inter and r_sys undefined (null, their terms 0);
  // the coefficients are the bases (every share undefined counts as 0): α = β = γ = 1/3, λ = 1,
  // η = 0.01; reward = λ r_task = 1; one debate: advantage 0, U = 0, p = 1, w = 1.
  const Json& single = lines[9];
  EXPECT_EQ(single["protocol"], "single");
  EXPECT_TRUE(single["rewards"]["intra"].is_null());
  EXPECT_TRUE(single["rewards"]["inter"].is_null());
  EXPECT_TRUE(single["rewards"]["sys"].is_null());
  EXPECT_EQ(single["rewards"]["task"], 1.0);
  EXPECT_TRUE(single["reward_components"]["intra"].is_null());
  EXPECT_EQ(single["reward_components"]["task"], 1.0);
  EXPECT_NEAR(single["coefficients"]["alpha"].get<double>(), 1.0 / 3, 1e-15);
  EXPECT_EQ(single["coefficients"]["lambda"], 1.0);
  EXPECT_EQ(single["reward"], 1.0);
  EXPECT_EQ(single["advantage"], 0.0);
  EXPECT_EQ(single["replay"]["uncertainty"], 0.0);
  EXPECT_EQ(single["replay"]["probability"], 1.0);
  EXPECT_EQ(single["replay"]["importance_weight"], 1.0);
  EXPECT_EQ(single["compromised"], false);
}

TEST(RlExport, TrajectoryMessagesAreTheLastPromptAndItsCompletionWithEveryTurn) {
  const auto lines = lines_of(exported());
  // q2's a2: its round-1 turn is call 4 (unparsed) and its re-ask, call 5; its last call is 8,
  // which extends call 4 with the reply kept (call 5's), as parley lays re-asks out.
  const Json& a2 = lines[4];
  ASSERT_EQ(a2["task_id"], "q2");
  ASSERT_EQ(a2["agent"], "a2");
  const Json expected = Json::array({
      {{"role", "system"}, {"content", "You are a2."}},
      {{"role", "user"}, {"content", "Question q2"}},
      {{"role", "assistant"}, {"content", "Reasoning of a2.\nAnswer: B"}},
      {{"role", "user"}, {"content", "Round 1: peers said ..."}},
      {{"role", "assistant"}, {"content", "Reasoning of a2.\nAnswer: A"}},  // the kept reply, call 5
      {{"role", "user"}, {"content", "Round 2: peers said ..."}},
      {{"role", "assistant"}, {"content", "Reasoning of a2.\nAnswer: A"}},
  });
  EXPECT_EQ(a2["messages"], expected);
  const Json& turn = a2["turns"][1];
  EXPECT_EQ(turn["call"], 5);
  EXPECT_EQ(turn["round"], 1);
  EXPECT_EQ(turn["role"], "revise");
  EXPECT_EQ(turn["answer"], "A");
  EXPECT_EQ(turn["confidence"], 0.8);
  EXPECT_EQ(turn["calls"], 2);
  EXPECT_EQ(turn["prompt_tokens"], 104 + 105);  // HandDebate: 100 + id
  EXPECT_EQ(turn["completion_tokens"], 14 + 15);
  EXPECT_EQ(a2["turns"][0]["answer"], "B");
  // q3: the judge is no agent of the trajectory.
  for (const Json& line : lines) EXPECT_NE(line["agent"], "j1");
}

TEST(RlExport, TurnLinesArePromptCompletionPairsWithTheRebuiltPrompts) {
  ExportOptions options;
  options.unit = ExportUnit::kTurn;
  const auto run = hand_built_run();
  const auto turns = lines_of(exported(options, run));
  const auto trajectories = lines_of(exported({}, run));
  ASSERT_EQ(turns.size(), 28u);  // 27 turns of 3 debates (q2's re-ask folded, q3's judge left out) + 1
  for (const Json& line : turns) {
    SCOPED_TRACE(line.dump());
    const Transcript* t = nullptr;
    for (const Transcript& debate : run)
      if (debate.task_id == line["task_id"] && debate.protocol == line["protocol"]) t = &debate;
    ASSERT_NE(t, nullptr);
    const MessageRecord& call = t->messages.at(line["call"].get<std::size_t>());
    Json prompt = Json::array();
    const auto rebuilt = rebuild_prompt(*t, call.id);
    ASSERT_TRUE(rebuilt) << rebuilt.error().message;
    for (const ChatMessage& m : *rebuilt) prompt.push_back({{"role", m.role}, {"content", m.content.str()}});
    EXPECT_EQ(line["prompt"], prompt);
    EXPECT_EQ(line["completion"], Json::array({{{"role", "assistant"}, {"content", call.text}}}));
    EXPECT_EQ(line["agent"], call.agent);
    EXPECT_EQ(line["round"], call.round);
    // The turn's parsed answer and confidence: its reply's (q2's a2 in round 1: the re-ask's A).
    EXPECT_EQ(line["answer"], call.answer ? Json(*call.answer) : Json(nullptr));
    EXPECT_EQ(line["confidence"], call.confidence ? Json(*call.confidence) : Json(nullptr));
    ASSERT_TRUE(call.answer);  // every turn of the hand-built run ends parsed
    // A re-ask is its turn's reply, named by the turn's role.
    EXPECT_EQ(line["role"], call.repeats ? t->messages[static_cast<std::size_t>(*call.repeats)].role : call.role);
    // The reward fields are the trajectory line's of the same (debate, agent).
    for (const Json& trajectory : trajectories) {
      if (trajectory["task_id"] != line["task_id"] || trajectory["protocol"] != line["protocol"] ||
          trajectory["agent"] != line["agent"])
        continue;
      for (const char* key : {"rewards", "reward", "reward_components", "coefficients", "advantage", "replay", "compromised"})
        EXPECT_EQ(line[key], trajectory[key]) << key;
    }
  }
  EXPECT_EQ(turns[13]["call"], 5);  // q2 (lines 9..17): a1 r0-r2, then a2's round-1 turn's reply
  EXPECT_EQ(turns[13]["role"], "revise");
  EXPECT_EQ(turns[13]["answer"], "A");
  EXPECT_EQ(turns[12]["answer"], "B");  // a2's round-0 turn
  EXPECT_EQ(turns[13]["prompt"].size(), 6u);
}

TEST(RlExport, OptionsReachTheUdpoFunctions) {
  const auto run = hand_built_run();
  ExportOptions options;
  options.protocol = "debate";
  options.kappa = 0.0;  // no asymmetry: every agent's coefficients are the bases
  const auto flat = lines_of(exported(options, run));
  ASSERT_EQ(flat.size(), 9u);
  for (const Json& line : flat) {
    EXPECT_NEAR(line["coefficients"]["alpha"].get<double>(), 1.0 / 3, 1e-15);
    EXPECT_EQ(line["coefficients"]["lambda"], 1.0);
  }
  // r_intra by U-1 reading (b): 1 − changes over all transitions / (N·T); q2 has a2 B→A, a3 B→B→A
  // over 0→1→2: 2 changes of 6: 2/3; reading (c): 1 − (2/6)·T/(T − 1) = 1/3.
  options.intra_reward = IntraReward::kAllTransitions;
  EXPECT_NEAR(lines_of(exported(options, run))[3]["rewards"]["intra"].get<double>(), 2.0 / 3, 1e-12);
  options.intra_reward = IntraReward::kLiteral;
  EXPECT_NEAR(lines_of(exported(options, run))[3]["rewards"]["intra"].get<double>(), 1.0 / 3, 1e-12);
  // Replay: η = 0 is uniform; β_IS = 0 weighs every debate 1.
  options = {};
  options.replay.priority_exponent = 0.0;
  options.replay.correction_exponent = 0.0;
  for (const Json& line : lines_of(exported(options, run))) {
    if (line["protocol"] != "debate") continue;
    EXPECT_NEAR(line["replay"]["probability"].get<double>(), 1.0 / 3, 1e-15);
    EXPECT_EQ(line["replay"]["importance_weight"], 1.0);
  }
  // λ of U_intra = 1: Ū_intra^(i) is the mean F_i: a1 0, a3 (0 + 1 + 1)/3 = 2/3: α = 1/3 · 2.
  options = {};
  options.u_intra_lambda = 1.0;
  const auto by_flips = lines_of(exported(options, run));
  EXPECT_NEAR(by_flips[0]["coefficients"]["alpha"].get<double>(), 1.0 / 3, 1e-15);
  EXPECT_NEAR(by_flips[2]["coefficients"]["alpha"].get<double>(), 2.0 / 3, 1e-15);
  // Ū_sys^(i) by the trajectory mean (U-7 (b)): (0 + 0 + log2(6)/3)/3 for every agent.
  options = {};
  options.system_profile = SystemProfile::kTrajectoryMean;
  const double u_sys = std::log2(6.0) / 9;
  for (const Json& line : lines_of(exported(options, run))) {
    if (line["protocol"] != "debate") continue;
    EXPECT_NEAR(line["coefficients"]["lambda"].get<double>(), 1.0 / (1.0 + 1.5 * u_sys), 1e-12);
  }
}

// With two failed and two successful debates, Cohen's d is defined and sets the bases (U-8 (a)).
TEST(RlExport, CohensDBasesComeFromTheExportedDebates) {
  auto run = hand_built_run();
  // q6 fails unanimously: a1 B B B, a2 B B B, a3 A B B.
  run.insert(run.begin() + 3, HandDebate("q6", "debate")
                                  .call("a1", 0, "B").call("a2", 0, "B").call("a3", 0, "A")
                                  .call("a1", 1, "B").call("a2", 1, "B").call("a3", 1, "B")
                                  .call("a1", 2, "B").call("a2", 2, "B").call("a3", 2, "B")
                                  .done("B"));
  // U_inter of q1, q2 (successes): 0, 4/9; of q3, q6 (failures): 7/9, (2/3 + 0 + 0)/3 = 2/9.
  // mean_fail = 1/2, mean_succ = 2/9; SDs: failures √((5/18)² · 2) = 5√2/18, successes
  // √((2/9)² · 2) = 2√2/9 = 4√2/18; pooled √((50 + 32)/324 / 2)... computed: s_p² = ((7/9 − 1/2)² +
  // (2/9 − 1/2)² + (0 − 2/9)² + (4/9 − 2/9)²)/2 = (25/324 + 25/324 + 16/324 + 16/324)/2 = 41/324;
  // d_inter = (1/2 − 2/9)/√(41/324) = (5/18)·18/√41 = 5/√41.
  // U_intra: successes 0, 1/2; failures q3 1/2, q6 (F 0, M a3 A→B 1/3): 1/6. mean_fail 1/3,
  // mean_succ 1/4; s_p² = ((1/6)² + (1/6)² + (1/4)² + (1/4)²)/2 = (1/18 + 1/8)/2 = 13/144;
  // d_intra = (1/12)/(√13/12) = 1/√13.
  // U_sys: successes 0, 0 (constant); failures log2(6)/3, 0: s_p² = ((log2(6)/6)²·2 + 0)/2,
  // s_p = log2(6)/6; d_sys = (log2(6)/6 − 0)/(log2(6)/6) = 1.
  // Bases ∝ (1/√13, 5/√41, 1).
  const RlExport e = exported({}, run);
  const BaseCoefficients& b = e.batches[0].bases;
  EXPECT_EQ(b.rule, BaseRule::kCohensD);
  const double sum = 1 / std::sqrt(13.0) + 5 / std::sqrt(41.0) + 1;
  EXPECT_NEAR(b.alpha, 1 / std::sqrt(13.0) / sum, 1e-12);
  EXPECT_NEAR(b.beta, 5 / std::sqrt(41.0) / sum, 1e-12);
  EXPECT_NEAR(b.gamma, 1 / sum, 1e-12);
  ExportOptions equal;
  equal.bases = BaseRule::kEqual;
  EXPECT_EQ(exported(equal, run).batches[0].bases.rule, BaseRule::kEqual);
}

TEST(RlExport, DebatesSeatingOtherAgentsAreABatchOfTheirOwn) {
  auto run = hand_built_run();
  run.insert(run.begin() + 3, HandDebate("q7", "debate").call("b1", 0, "A").call("b2", 0, "B").done("A"));
  const RlExport e = exported({}, run);
  ASSERT_EQ(e.batches.size(), 3u);
  EXPECT_EQ(e.batches[1].agents, (std::vector<std::string>{"b1", "b2"}));
  EXPECT_EQ(e.batches[1].debates, 1u);
  EXPECT_EQ(e.batches[0].debates, 3u);  // the hand arithmetic's batch is unchanged
  EXPECT_NEAR(Json::parse(e.lines[0])["advantage"].get<double>(), advantage(0, 0), 1e-12);
}

// wr, cr and ra_cr draw the speaking order per debate: a batch is the set of agents. q2 with a3
// speaking first in every round has no vote tie to break, so every number stays as worked out.
TEST(RlExport, ABatchIsTheSetOfAgentsWhateverTheirOrder) {
  auto run = hand_built_run();
  run[1] = HandDebate("q2", "debate")
               .compromised("a3")
               .call("a3", 0, "B").call("a1", 0, "A").call("a2", 0, "B")
               .call("a3", 1, "B").call("a1", 1, "A").call("a2", 1, std::nullopt).call("a2", 1, "A", 0.8, "reask", 5)
               .call("a3", 2, "A").call("a1", 2, "A").call("a2", 2, "A")
               .done("A");
  const RlExport e = exported({}, run);
  ASSERT_EQ(e.batches.size(), 2u);
  EXPECT_EQ(e.batches[0].agents, (std::vector<std::string>{"a1", "a2", "a3"}));
  const auto lines = lines_of(e);
  ASSERT_EQ(lines.size(), 10u);
  const char* order[3] = {"a3", "a1", "a2"};  // q2's lines follow its own order
  for (int j = 0; j < 3; ++j) {
    const Json& line = lines[static_cast<std::size_t>(3 + j)];
    const int i = order[j][1] - '1';
    EXPECT_EQ(line["agent"], order[j]);
    EXPECT_NEAR(line["coefficients"]["beta"].get<double>(), kCoefficients[i].beta, 1e-12);
    EXPECT_NEAR(line["reward"].get<double>(), kReward[1][i], 1e-12);
    EXPECT_NEAR(line["advantage"].get<double>(), advantage(1, i), 1e-12);
  }
}

// r_task and ŷ are the run's verdict on the protocol's own final answer, not a vote recomputed
// from the trajectory: a self_consistency debate's samples are one agent's turns of round 0, so
// the trajectory holds the last sample (A), while the protocol answered the samples' vote (E).
TEST(RlExport, TheTaskRewardIsTheRunsVerdictOnTheProtocolsFinalAnswer) {
  HandDebate sampled("s1", "self_consistency");
  for (const char* sample : {"D", "E", "E", "E", "A"}) sampled.call("a1", 0, sample, 0.8, "sample");
  Transcript t = sampled.done("E");
  t.gold = "E";
  t.correct = true;
  const Json line = Json::parse(exported({}, {t}).lines[0]);
  EXPECT_EQ(line["final_vote"], "E");
  EXPECT_EQ(line["rewards"]["task"], 1.0);
  EXPECT_EQ(line["reward"], 1.0);  // λ r_task alone: one agent has no r_inter, r_sys; one round no r_intra

  // A number task the run scored within its tolerance: correct, whatever the strings.
  Transcript n = HandDebate("n1", "single").call("a1", 0, "10.3").done("10.3");
  n.gold = "10";
  n.answer_type = AnswerType::kNumber;
  n.tolerance = 0.5;
  n.correct = true;
  EXPECT_EQ(Json::parse(exported({}, {n}).lines[0])["rewards"]["task"], 1.0);
  n.correct = false;
  EXPECT_EQ(Json::parse(exported({}, {n}).lines[0])["rewards"]["task"], 0.0);
}

// Text is written as UTF-8, not as \u escapes, in both kinds of line; an attack event whose
// detail is not the JSON it should be marks no seat (and does not stop the export).
TEST(RlExport, TextStaysUtf8AndAMalformedAttackEventMarksNoSeat) {
  Transcript t = HandDebate("q\u00e9", "single").call("a1", 0, "A").done("A");
  t.messages[0].text = "Caf\u00e9 \u2014 Answer: A";
  t.events.push_back({0, "attack", "{not json"});
  t.events.push_back({0, "attack", R"({"compromised": "a1"})"});
  ExportOptions turn;
  turn.unit = ExportUnit::kTurn;
  for (const ExportOptions& options : {ExportOptions{}, turn}) {
    const RlExport e = exported(options, {t});
    ASSERT_EQ(e.lines.size(), 1u);
    EXPECT_NE(e.lines[0].find("Caf\u00e9 \u2014 Answer: A"), std::string::npos) << e.lines[0];
    EXPECT_NE(e.lines[0].find("\"task_id\":\"q\u00e9\""), std::string::npos) << e.lines[0];
    EXPECT_EQ(Json::parse(e.lines[0])["compromised"], false);
  }
}

TEST(RlExport, RefusalsSayWhyAndExportNothing) {
  auto message = [](std::vector<Transcript> run, const ExportOptions& options = {}) {
    auto e = export_rl(run, options);
    EXPECT_FALSE(e);
    return e ? std::string() : e.error().message;
  };
  EXPECT_EQ(message({}), "the run has no debates");
  ExportOptions unknown;
  unknown.protocol = "udpo";
  EXPECT_EQ(message(hand_built_run(), unknown), "no protocol \"udpo\" in the run (it has: debate, single)");
  // Stored before prompts were: every call's prompt missing in two debates.
  auto old = hand_built_run();
  for (int k : {0, 2})
    for (MessageRecord& m : old[static_cast<std::size_t>(k)].messages) m.prompt.reset(), m.prompt_extends.reset();
  EXPECT_EQ(message(old),
            "2 of the 6 debates to export were stored without the prompts their agents were sent (by a parley older "
            "than the prompt record); run the experiment again with this parley");
  ExportOptions single_only;
  single_only.protocol = "single";
  EXPECT_TRUE(export_rl(old, single_only));  // the other protocol's debates are not looked at
  auto no_type = hand_built_run();
  no_type[1].answer_type.reset();
  EXPECT_EQ(message(no_type), "debate (q2, debate, seed 1): it has prompts but no answer_type");
  // Part of the prompts missing is damage, named by the call, not an older parley.
  auto partial = hand_built_run();
  partial[0].messages[1].prompt.reset();
  EXPECT_NE(message(partial).find("debate (q1, debate, seed 1): call 1 has no stored prompt"), std::string::npos)
      << message(partial);
  // Nothing completed.
  std::vector<Transcript> stopped = {HandDebate("q", "debate").call("a1", 0, "A").done("A", DebateStatus::kFailed)};
  EXPECT_EQ(message(stopped), "none of the 1 debates to export completed");
  // A dangling link: the rebuilt prompt's error, naming the debate.
  auto dangling = hand_built_run();
  dangling[0].messages[4].prompt_extends = 40;
  EXPECT_EQ(message(dangling), "debate (q1, debate, seed 1): call 4's prompt_extends names call 40, which is not in the "
                               "transcript");
  // An option the udpo functions refuse.
  ExportOptions negative;
  negative.kappa = -1.0;
  EXPECT_EQ(message(hand_built_run(), negative), "udpo::agent_coefficients: κ must be finite and ≥ 0");
}

// An agent turn without a parsed answer is still a turn (its reward says what it earned); a
// completed debate without any agent turn (only a judge's call) has nothing to export.
TEST(RlExport, UnparsedTurnsAreExportedAndADebateWithoutAgentTurnsIsSkipped) {
  auto run = hand_built_run();
  run.push_back(HandDebate("q8", "single").call("a1", 0, std::nullopt).done(std::nullopt));
  run.push_back(HandDebate("q9", "single").judge().done(std::nullopt));
  const RlExport e = exported({}, run);
  EXPECT_EQ(e.skipped.at("no agent turns"), 1u);
  ASSERT_EQ(e.lines.size(), 11u);
  // The single batch is now q1 (correct) and q8 (unparsed: ŷ undefined, r_task = 0): rewards 1
  // and 0, advantages ±1/2.
  const Json q8 = Json::parse(e.lines[10]);
  EXPECT_EQ(q8["task_id"], "q8");
  EXPECT_TRUE(q8["final_vote"].is_null());
  EXPECT_TRUE(q8["turns"][0]["answer"].is_null());
  EXPECT_EQ(q8["reward"], 0.0);
  EXPECT_EQ(q8["advantage"], -0.5);
  EXPECT_EQ(Json::parse(e.lines[9])["advantage"], 0.5);
}

}  // namespace
}  // namespace parley::udpo
