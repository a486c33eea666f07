#pragma once
// The steps of UDPO's reference trainer (parley/udpo_trainer.h; src/udpo/trainer.cc): the
// simulator's side of a run, one debate as the update reads it, a minibatch, and one agent's
// objective with its θ-gradient. Internal to src/udpo: exposed so that the trainer's tests can
// check each step (the gradient against finite differences of the objective it ascends).

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "llm/simulator_policy.h"
#include "parley/result.h"
#include "parley/udpo.h"
#include "parley/udpo_trainer.h"

namespace parley::udpo::detail {

using sim::PolicyWeights;

// One revision turn of an honest agent: what it chose between, and what it chose.
struct Step {
  sim::RevisionChoice choice;
  std::size_t chosen = 0;
};

// One debate, as the update reads it.
struct Played {
  AnswerTrajectory answers = AnswerTrajectory({}, {});
  std::vector<std::vector<Step>> steps;          // per agent (empty for compromised agents)
  std::vector<double> behaviour_log_probability;  // per agent: log π of its steps under the policy that played
  TrajectoryRewards rewards;
  UncertaintyMetrics uncertainty;
  std::array<double, 4> state{};  // MAPPO's centralised critic input, from the initial answers
  double replay_priority = 0.0;   // eq. (15), UDPO: set once, when the trajectory enters the buffer
};

// The simulator's side of a training run: parameters, each agent's profile, the tasks.
struct Arena {
  const SimulatorParams* params = nullptr;
  std::vector<TrainingAgent> agents;
  std::vector<const SimulatorProfile*> profiles;
  std::size_t compromised = 0;  // the last m agents
  int rounds = 5;
  DebateMetricsOptions metrics;
  IntraReward intra_reward = IntraReward::kOneMinusFlipRate;

  std::vector<std::shared_ptr<const Task>> tasks;  // views of the caller's tasks
  std::vector<sim::TaskLatents> latents;           // one per task

  bool honest(std::size_t agent) const { return agent + compromised < agents.size(); }
};

Result<Arena> make_arena(const std::vector<Task>& tasks, const std::vector<TrainingAgent>& agents,
                         const SimulatorParams& params, const TrainerSettings& settings);

// Standard MAD on arena.tasks[task]: round 0 independent answers, then `rounds` revisions, each
// agent shown every other agent's previous answer and confidence (as the `debate` protocol shows
// them); honest agents revise by `weights`.
Played play(const Arena& arena, std::size_t task, std::uint64_t debate_seed, const std::vector<PolicyWeights>& weights);

// log π_θ of an agent's steps in one debate (U-11: the sum over its revision turns).
double log_probability_of(const std::vector<Step>& steps, const PolicyWeights& weights);

// Eq. (8), ℓ_anchor, of an agent's steps, and its θ-gradient.
struct Anchor {
  double value = 0.0;
  PolicyWeights gradient{};
};
Anchor anchor_of(const std::vector<Step>& steps, const PolicyWeights& weights, const PolicyWeights& reference);

// What one update reads: the fresh debates first, then the replayed ones with their importance
// weights (1 for a fresh debate).
struct Minibatch {
  std::vector<const Played*> trajectories;
  std::vector<double> importance;
  std::size_t fresh = 0;
  double correction_exponent = 0.0;  // β_IS of the replayed trajectories' weights

  std::size_t size() const { return trajectories.size(); }
  void add(const Played& played, double weight) {
    trajectories.push_back(&played);
    importance.push_back(weight);
  }
};

// β_IS at `iteration` (1..K): linear from replay_correction_start to replay.correction_exponent.
double correction_exponent(const TrainerSettings& settings, int iteration);

// The update's minibatch: `fresh`, then (UDPO) replay_draws trajectories drawn from `buffer` by
// eq. (15) with their importance weights at this iteration's β_IS.
Minibatch assemble(const std::vector<Played>& fresh, const std::vector<Played>& buffer, const TrainerSettings& settings,
                   int iteration, Rng& rng);

// Every agent's reward and advantage on every trajectory of a minibatch ([agent][trajectory]).
struct Advantages {
  std::vector<std::vector<double>> rewards;
  std::vector<std::vector<double>> by_agent;
};

// UDPO: eq. (4) per agent with its coefficients; Â = r − b, b the agent's mean reward over the
// minibatch's fresh trajectories (eq. 9, Alg. 1 line 14, U-15), for fresh and replayed ones.
Advantages udpo_advantages(const Minibatch& batch, const std::vector<AgentCoefficients>& coefficients);

// The curve's reward: the mean over the honest agents and the first `fresh` trajectories of the
// agent's reward (the compromised agents' rewards left out).
double honest_mean_reward(const Arena& arena, const Advantages& advantage, std::size_t fresh);

// Adam (ascent; β = 0.9, 0.999, ε = 1e-8) on one agent's four weights, with App. A.1's gradient
// clipping at norm 1.
struct Adam {
  PolicyWeights first{}, second{};
  int steps = 0;
  void ascend(PolicyWeights& weights, PolicyWeights gradient, double learning_rate);
};

// The MAPPO-style baseline's centralised value V(s) = w·s, fitted by least squares (a ridge of
// 1e-6 keeps it defined).
struct LinearValue {
  std::array<double, 4> w{};
  double operator()(const std::array<double, 4>& s) const;
  void fit(const std::vector<std::array<double, 4>>& states, const std::vector<double>& targets);
};

// Thrown by agent_step when an action's log-probability or the anchor is not finite at θ.
struct DegeneratePolicy {};

// Eq. (6) for one agent on a minibatch at θ = `weights` — L^(i) = (1/M) Σ w ℓ_clip − η (1/M) Σ w
// ℓ_anchor, ρ against the policy that played each debate, the anchor against `reference` — and
// its θ-gradient: Σ_m ∂L/∂log π(τ_m) ∇log π(τ_m) − η w_m/M ∇ℓ_anchor(τ_m). η = 0 skips the anchor.
// Throws DegeneratePolicy (above).
struct AgentStep {
  double objective = 0.0;
  PolicyWeights gradient{};
};
AgentStep agent_step(const Minibatch& batch, std::size_t agent, std::span<const double> advantage,
                     const PolicyWeights& weights, const PolicyWeights& reference, double eta, double clip_epsilon);

}  // namespace parley::udpo::detail
