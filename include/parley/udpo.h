#pragma once
// UDPO, Uncertainty-Driven Policy Optimization (Tang et al., "The Value of Variance: Mitigating
// Debate Collapse in Multi-Agent Systems via Uncertainty-Driven Policy Optimization"; the paper
// is udpo-uncertainty-collapse, §4 and App. A), as pure functions over in-memory debate
// trajectories: the rewards (eqs. 1–4), the agent-tailored coefficients (eqs. 10–14), the
// uncertainty-driven replay (eq. 15, App. A.3) and the clipped objective with its KL anchor
// (eqs. 5–9). A trainer calls these; nothing here runs a debate or owns model parameters. Every
// uncertainty comes from uncertainty_metrics (parley/metrics.h), the same implementation the
// transcript metrics use. Plain values and pure functions, safe from any thread; ReplaySampler
// is immutable and draws from the Rng it is handed. Bad inputs (sizes that differ, ϵ ≤ 0, κ < 0,
// a reward term that is undefined but weighted) throw std::invalid_argument with the reason.
// Every choice where the paper leaves room is listed in docs/protocols.md, "UDPO".

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "parley/metrics.h"
#include "parley/task.h"

namespace parley {

class Rng;  // src/core/hash.h

namespace udpo {

// ---- Rewards, eqs. (1)–(4) (§4.2, §4.3) -----------------------------------------------------

// Reading guide U-1: eq. (1) sums the T transitions t = 0..T−1 but divides by N(T−1), §2's
// normaliser for F, which sums t = 1..T−1. With missing answers each reading is a share of the
// transitions that could be compared (as F is), scaled as the reading's normaliser scales it.
enum class IntraReward {
  kOneMinusFlipRate,  // (a), default: r_intra = 1 − F, as §2's indicator; needs T ≥ 2
  kAllTransitions,    // (b): 1 − Σ_{t=0}^{T−1} changes / (N·T), 0 → 1 included; needs T ≥ 1
  kLiteral,           // (c), as printed: 1 − Σ_{t=0}^{T−1} changes / (N(T−1)); may be < 0; T ≥ 2
};

// The trajectory-level rewards, shared by every agent (the asymmetry is in the coefficients).
// A reward whose uncertainty is undefined for the trajectory (too few rounds, agents or parsed
// answers; parley/metrics.h) is nullopt.
struct TrajectoryRewards {
  std::optional<double> intra;  // r_intra, eq. (1), by the IntraReward reading
  std::optional<double> inter;  // r_inter = 1 − U_inter, eq. (2)
  std::optional<double> sys;    // r_sys = 1 − U_sys, eqs. (3) and (20)
  double task = 0.0;            // r_task = 1[ŷ(τ) = y*] (§4.3): 0 when no final answer parsed
  std::optional<std::string> final_vote;  // ŷ(τ), UncertaintyMetrics::final_vote
};

// The rewards of uncertainty metrics already computed for the trajectory; ŷ is compared with the
// task's gold as Transcript::correct is (answers_match), so an unparsed answer is never correct.
TrajectoryRewards trajectory_rewards(const UncertaintyMetrics& uncertainty, const Task& task,
                                     IntraReward reading = IntraReward::kOneMinusFlipRate);
// The same from the trajectory: uncertainty_metrics with the task's answer type and labels.
TrajectoryRewards trajectory_rewards(const AnswerTrajectory& trajectory, const Task& task,
                                     IntraReward reading = IntraReward::kOneMinusFlipRate);

// Agent i's coefficients of eq. (4) and its anchoring weight of eq. (6).
struct AgentCoefficients {
  double alpha = 0.0;   // α^(i), the weight of r_intra
  double beta = 0.0;    // β^(i), of r_inter
  double gamma = 0.0;   // γ^(i), of r_sys
  double lambda = 1.0;  // λ^(i), of r_task
  double eta = 0.01;    // η^(i), of the KL anchor in eq. (6)
};

// Eq. (4): r_UDPO^(i) = α r_intra + β r_inter + γ r_sys + λ r_task, with its weighted terms. A
// term whose coefficient is 0 (an ablation) contributes 0 even where its reward is undefined;
// a weighted undefined reward throws.
struct AgentReward {
  double intra = 0.0;  // α^(i) r_intra
  double inter = 0.0;  // β^(i) r_inter
  double sys = 0.0;    // γ^(i) r_sys
  double task = 0.0;   // λ^(i) r_task
  double total = 0.0;  // their sum
};
AgentReward agent_reward(const TrajectoryRewards& rewards, const AgentCoefficients& coefficients);

// ---- Agent-tailored coefficients, eqs. (10)–(14) (App. A.2) ---------------------------------

// Failure-vs-success Cohen's d of each uncertainty on the warm-up set, (mean_fail − mean_succ) /
// s_pooled (§3.2); computed by the caller. nullopt or not finite: undefined.
struct CohensD {
  std::optional<double> u_intra;
  std::optional<double> u_inter;
  std::optional<double> u_sys;
};

enum class BaseRule {
  kCohensD,  // U-8 reading (a): α, β, γ ∝ max(d, 0) of U_intra, U_inter, U_sys, summing to 1
  kEqual,    // U-8 reading (b): 1/3 each
};

struct BaseCoefficients {
  double alpha = 1.0 / 3.0;  // α_base
  double beta = 1.0 / 3.0;   // β_base
  double gamma = 1.0 / 3.0;  // γ_base
  double lambda = 1.0;       // λ_base (App. A.2)
  double eta = 0.01;         // η_base (App. A.2)
  BaseRule rule = BaseRule::kEqual;  // how α, β, γ were set
};

// App. A.2's "Cohen's d normalization" (U-8): reading (a) when any d is defined and positive,
// else reading (b); `rule` records which. Throws for a negative λ_base or η_base.
BaseCoefficients base_coefficients(const CohensD& d, double lambda_base = 1.0, double eta_base = 0.01);

// Table 2's ablations "w/o L_intra / L_inter / L_sys" (U-24): drop the reward term by setting its
// base coefficient to 0, so that α^(i), β^(i) or γ^(i) is 0 for every agent and the term leaves
// the replay priority (eq. 15) too.
enum class Ablation { kNone, kWithoutIntra, kWithoutInter, kWithoutSys };
BaseCoefficients ablated(BaseCoefficients base, Ablation ablation);

// U-7: Ū_sys^(i) of eqs. (13)–(14) is never defined per agent.
enum class SystemProfile {
  kLeaveOneOut,     // (a), default: Ū_sys^(i) = L̄^(i)
  kTrajectoryMean,  // (b): the mean U_sys(τ), the same for every agent
  kMixed,           // (c): the mean of (H̃(τ) + D(τ) + 1[ŷ(τ) ≠ ŷ(τ^{-i})]) / 3
};

// Phase 1 of App. A.2, one agent's means over the warm-up trajectories (reading guide B.2's
// suggested definitions, AgentUncertainty in parley/metrics.h), each over the trajectories where
// the agent's quantity is defined; nullopt where it never is.
struct AgentProfile {
  std::string agent;
  std::optional<double> u_intra;          // Ū_intra^(i): mean λF_i + (1 − λ)M_i
  std::optional<double> u_inter;          // Ū_inter^(i): mean share of differing peers
  std::optional<double> loo_instability;  // L̄^(i): mean 1[ŷ(τ) ≠ ŷ(τ^{-i})]
  std::optional<double> u_sys;            // Ū_sys^(i), by the SystemProfile reading
};

struct ProfileOptions {
  DebateMetricsOptions metrics;  // λ of U_intra, and how answers compare
  SystemProfile system = SystemProfile::kLeaveOneOut;
};

// One profile per agent, in the trajectories' agent order. Throws when there is no trajectory or
// the trajectories' agents (names, in order) differ.
std::vector<AgentProfile> warmup_profile(std::span<const AnswerTrajectory> warmup, const ProfileOptions& options = {});

// Phase 2, eqs. (10)–(14): α = α_base(1 + κŪ_intra), β = β_base(1 + κŪ_inter),
// γ = γ_base(1 + κL̄), λ = λ_base / (1 + κŪ_sys), η = η_base(1 + κŪ_sys); κ = 1.5 (App. A.2).
// Throws for κ < 0 (or not finite), or when a mean that a non-zero base needs is undefined.
AgentCoefficients agent_coefficients(const AgentProfile& profile, const BaseCoefficients& base, double kappa = 1.5);

// ---- Uncertainty-driven replay, eq. (15) (App. A.3) -----------------------------------------

// Eq. (15): U(τ) = α(1 − r_intra) + β(1 − r_inter) + γ(1 − r_sys), α, β, γ the base
// coefficients (U-9: the per-agent ones would give one priority per agent for one trajectory).
// A term whose base is 0 contributes 0; a weighted undefined reward throws.
double replay_uncertainty(const TrajectoryRewards& rewards, const BaseCoefficients& base);

struct ReplayOptions {
  double priority_floor = 1e-3;     // ε_p: p ∝ (U + ε_p)^η, so a certain trajectory is still drawn
  double priority_exponent = 1.0;   // η of eq. (15), ≥ 0 (0: uniform); not the anchor's η^(i)
  double correction_exponent = 1.0; // β_IS of the importance weights, in [0, 1] (a trainer may anneal it)
};

// p(τ) ∝ (U(τ) + ε_p)^η over the buffer, summing to 1. Throws for an empty buffer, a negative or
// non-finite U, ε_p < 0, η < 0, or every priority 0.
std::vector<double> replay_probabilities(std::span<const double> uncertainties, const ReplayOptions& options = {});

// Importance-sampling corrections as in prioritised experience replay (Schaul et al. 2016; App.
// A.3 gives no form): w(τ) = (1 / (|B| p(τ)))^β_IS, normalised so that their expectation under p
// is 1, Σ_τ p(τ) w(τ) = 1: a replayed trajectory counts on average as much as a fresh one, and a
// trajectory's weight does not depend on what else was drawn. At β_IS = 1, E_p[w f] is the plain
// mean of f over the buffer's drawable trajectories (no bias from the prioritisation); β_IS = 0
// gives w = 1. 0 for a trajectory with p = 0.
std::vector<double> importance_weights(std::span<const double> probabilities, double correction_exponent = 1.0);

// Draws buffer indices with replacement by p(τ), each with its importance weight.
class ReplaySampler {
 public:
  struct Draw {
    std::size_t index = 0;  // into the buffer
    double weight = 1.0;    // importance_weights()[index]
  };

  explicit ReplaySampler(std::span<const double> uncertainties, const ReplayOptions& options = {});

  const std::vector<double>& probabilities() const { return probabilities_; }
  const std::vector<double>& weights() const { return weights_; }
  // `count` independent draws; deterministic for a given Rng state.
  std::vector<Draw> draw(std::size_t count, Rng& rng) const;

 private:
  std::vector<double> probabilities_;
  std::vector<double> weights_;
  std::vector<double> cumulative_;  // running sums of probabilities_
};

// ---- The clipped objective, eqs. (5)–(9) (§4.3, Algorithm 1) --------------------------------

// log π^(i)(τ): the sum of agent i's action log-probabilities in τ, every round (U-11).
double trajectory_log_probability(std::span<const double> action_log_probabilities);

// Eq. (5): ρ = exp(log π_θ − log π_ref).
double likelihood_ratio(double log_probability, double reference_log_probability);

// Eq. (7): ℓ_clip = min(ρÂ, clip(ρ, 1 − ϵ, 1 + ϵ)Â); ϵ = 0.2 (U-14). 0 when Â = 0 (also for
// ρ = ∞). Throws for ϵ ≤ 0, ρ < 0 or NaN, Â not finite.
double clipped_surrogate(double ratio, double advantage, double clip_epsilon = 0.2);

// ∂ℓ_clip/∂ log π_θ (dρ/d log π_θ = ρ): ρÂ where the unclipped branch is the minimum, 0 where
// the clipped one is (Â > 0 and ρ ≥ 1 + ϵ, or Â < 0 and ρ ≤ 1 − ϵ). At the boundary ρ = 1 ± ϵ
// the two one-sided derivatives differ; we take the clipped side, 0: no push past the region.
double clipped_surrogate_derivative(double ratio, double advantage, double clip_epsilon = 0.2);

// Eq. (9) and Algorithm 1 lines 14–15: Â_m = r_m − b over one agent's rewards in a minibatch,
// b their mean (U-15: a baseline per agent). Throws for an empty minibatch or a reward that is
// not finite.
std::vector<double> advantages(std::span<const double> agent_rewards);
// The same with b the mean of the first `baseline_count` rewards only — a minibatch's fresh
// trajectories, listed before the replayed ones (line 14 averages the M sampled trajectories) —
// and Â_m = r_m − b for every m. Throws also when baseline_count is 0 or more than the rewards.
std::vector<double> advantages(std::span<const double> agent_rewards, std::size_t baseline_count);

// Eq. (8)'s KL(p ‖ q) for categorical distributions, in nats; terms with p = 0 contribute 0,
// +∞ when q = 0 < p. Throws when the sizes differ or either is not a distribution (entries ≥ 0
// summing to 1 within 1e-9).
double kl_divergence(std::span<const double> p, std::span<const double> q);

// softmax(z), shifted by max z so that it does not overflow.
std::vector<double> softmax(std::span<const double> logits);

// ∂KL(softmax(z) ‖ q)/∂z_k = p_k (log(p_k / q_k) − KL(p ‖ q)). q must be positive everywhere
// (a softmax p is), else throws.
std::vector<double> kl_divergence_logit_gradient(std::span<const double> logits, std::span<const double> reference);

// One trajectory of agent i's minibatch, as eq. (6) reads it.
struct ObjectiveSample {
  double log_probability = 0.0;            // log π_θ^(i)(τ)
  double reference_log_probability = 0.0;  // log π_ref^(i)(τ)
  double advantage = 0.0;                  // Â^(i)(τ), eq. (9)
  double anchor = 0.0;                     // ℓ_anchor^(i)(τ) ≥ 0, eq. (8)
  double importance_weight = 1.0;          // w(τ) of a replayed trajectory; 1 when fresh
};

// Eq. (6) over a minibatch of M trajectories, each term weighted by its importance weight:
// surrogate = (1/M) Σ w ℓ_clip, anchor = (1/M) Σ w ℓ_anchor, objective = L_UDPO^(i) =
// surrogate − η anchor, to be maximised (Algorithm 1 line 18); loss = −L_UDPO^(i), to be
// minimised (§4.1's wording; U-13).
struct AgentObjective {
  double surrogate = 0.0;
  double anchor = 0.0;
  double objective = 0.0;
  double loss = 0.0;
  // ∂L_UDPO^(i)/∂ log π_θ(τ_m) through the surrogate: (w_m / M) ∂ℓ_clip/∂ log π_θ. The anchor
  // reaches θ through its own logits (kl_divergence_logit_gradient), scaled by −η w_m / M.
  std::vector<double> surrogate_gradient;
};
// Throws for an empty minibatch, η < 0, a negative anchor or weight, or a bad ϵ.
AgentObjective agent_objective(std::span<const ObjectiveSample> minibatch, double eta, double clip_epsilon = 0.2);

}  // namespace udpo
}  // namespace parley
