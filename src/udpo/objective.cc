// UDPO's clipped relative-update objective (udpo-uncertainty-collapse §4.3, eqs. (5)–(9), and
// Algorithm 1 lines 14–18): the trajectory ratio, the clipped surrogate and its derivative, the
// per-agent advantages, the KL anchor and its softmax-logit gradient, and eq. (6) per agent.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "parley/udpo.h"
#include "udpo/checks.h"

namespace parley::udpo {
namespace {

void check_clip_inputs(double ratio, double advantage, double clip_epsilon, std::string_view function) {
  detail::require(std::isfinite(clip_epsilon) && clip_epsilon > 0.0, function, "the clip ϵ must be finite and > 0");
  detail::require(ratio >= 0.0, function, "the ratio ρ must be ≥ 0 (and not NaN)");
  detail::require(std::isfinite(advantage), function, "the advantage Â must be finite");
}

// Entries ≥ 0 summing to 1, as kl_divergence requires of both its arguments.
void check_distribution(std::span<const double> p, std::string_view function, std::string_view name) {
  detail::require(!p.empty(), function, std::string(name) + " is empty");
  double total = 0.0;
  for (const double value : p) {
    detail::require(detail::non_negative(value), function, std::string(name) + " has a negative or non-finite entry");
    total += value;
  }
  detail::require(std::fabs(total - 1.0) <= 1e-9, function, std::string(name) + " does not sum to 1");
}

}  // namespace

double trajectory_log_probability(std::span<const double> action_log_probabilities) {
  double total = 0.0;
  for (const double log_probability : action_log_probabilities) {
    detail::require(std::isfinite(log_probability) && log_probability <= 0.0, "trajectory_log_probability",
                    "an action log-probability is positive or not finite");
    total += log_probability;
  }
  return total;
}

double likelihood_ratio(double log_probability, double reference_log_probability) {
  detail::require(std::isfinite(log_probability) && std::isfinite(reference_log_probability), "likelihood_ratio",
                  "a log-probability is not finite");
  return std::exp(log_probability - reference_log_probability);  // eq. (5)
}

double clipped_surrogate(double ratio, double advantage, double clip_epsilon) {
  check_clip_inputs(ratio, advantage, clip_epsilon, "clipped_surrogate");
  if (advantage == 0.0) return 0.0;  // also where ρ = ∞, whose product with 0 is NaN
  const double clipped = std::clamp(ratio, 1.0 - clip_epsilon, 1.0 + clip_epsilon);
  return std::min(ratio * advantage, clipped * advantage);  // eq. (7)
}

double clipped_surrogate_derivative(double ratio, double advantage, double clip_epsilon) {
  check_clip_inputs(ratio, advantage, clip_epsilon, "clipped_surrogate_derivative");
  // The unclipped branch ρÂ is the strict minimum inside the region and on its far side, where
  // the ratio moves against the advantage; the boundary itself counts as clipped.
  const bool unclipped = (advantage > 0.0 && ratio < 1.0 + clip_epsilon) || (advantage < 0.0 && ratio > 1.0 - clip_epsilon);
  return unclipped ? ratio * advantage : 0.0;  // d(ρÂ)/d log π_θ = ρÂ
}

std::vector<double> advantages(std::span<const double> agent_rewards) {
  return advantages(agent_rewards, agent_rewards.size());
}

std::vector<double> advantages(std::span<const double> agent_rewards, std::size_t baseline_count) {
  detail::require(!agent_rewards.empty(), "advantages", "the minibatch is empty");
  detail::require(baseline_count >= 1 && baseline_count <= agent_rewards.size(), "advantages",
                  "the baseline needs between 1 and all of the minibatch's rewards");
  for (const double reward : agent_rewards)
    detail::require(std::isfinite(reward), "advantages", "a reward is not finite");
  const auto counted = agent_rewards.first(baseline_count);
  const double baseline =  // b, Alg. 1 line 14
      std::accumulate(counted.begin(), counted.end(), 0.0) / static_cast<double>(baseline_count);
  std::vector<double> result;
  result.reserve(agent_rewards.size());
  for (const double reward : agent_rewards) result.push_back(reward - baseline);  // eq. (9)
  return result;
}

double kl_divergence(std::span<const double> p, std::span<const double> q) {
  detail::require(p.size() == q.size(), "kl_divergence", "p and q have different sizes");
  check_distribution(p, "kl_divergence", "p");
  check_distribution(q, "kl_divergence", "q");
  double divergence = 0.0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (p[k] == 0.0) continue;  // 0 log 0 = 0
    divergence += p[k] * std::log(p[k] / q[k]);  // q = 0 < p: log(+∞), so the sum is +∞
  }
  return std::max(divergence, 0.0);  // ≥ 0 (Gibbs); rounding may leave −1e-17
}

std::vector<double> softmax(std::span<const double> logits) {
  detail::require(!logits.empty(), "softmax", "no logits");
  for (const double z : logits) detail::require(std::isfinite(z), "softmax", "a logit is not finite");
  const double largest = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p;
  p.reserve(logits.size());
  double total = 0.0;
  for (const double z : logits) total += p.emplace_back(std::exp(z - largest));
  for (double& value : p) value /= total;
  return p;
}

std::vector<double> kl_divergence_logit_gradient(std::span<const double> logits, std::span<const double> reference) {
  detail::require(logits.size() == reference.size(), "kl_divergence_logit_gradient",
                  "the logits and the reference have different sizes");
  for (const double q : reference)
    detail::require(q > 0.0, "kl_divergence_logit_gradient", "the reference must be positive everywhere");
  const std::vector<double> p = softmax(logits);
  const double divergence = kl_divergence(p, reference);
  std::vector<double> gradient;
  gradient.reserve(p.size());
  // ∂KL/∂z_k = Σ_j (log(p_j/q_j) + 1) p_j(δ_jk − p_k) = p_k (log(p_k/q_k) − KL); 0 where p_k
  // underflowed to 0 (the limit of p log p).
  for (std::size_t k = 0; k < p.size(); ++k)
    gradient.push_back(p[k] > 0.0 ? p[k] * (std::log(p[k] / reference[k]) - divergence) : 0.0);
  return gradient;
}

AgentObjective agent_objective(std::span<const ObjectiveSample> minibatch, double eta, double clip_epsilon) {
  detail::require(!minibatch.empty(), "agent_objective", "the minibatch is empty");
  detail::require(detail::non_negative(eta), "agent_objective", "η must be finite and ≥ 0");
  const double size = static_cast<double>(minibatch.size());
  AgentObjective result;
  result.surrogate_gradient.reserve(minibatch.size());
  for (const ObjectiveSample& sample : minibatch) {
    detail::require(detail::non_negative(sample.anchor), "agent_objective", "an anchor term is negative or not finite");
    detail::require(detail::non_negative(sample.importance_weight), "agent_objective",
                    "an importance weight is negative or not finite");
    const double ratio = likelihood_ratio(sample.log_probability, sample.reference_log_probability);
    const double share = sample.importance_weight / size;
    result.surrogate += share * clipped_surrogate(ratio, sample.advantage, clip_epsilon);
    result.anchor += share * sample.anchor;
    result.surrogate_gradient.push_back(share * clipped_surrogate_derivative(ratio, sample.advantage, clip_epsilon));
  }
  result.objective = result.surrogate - eta * result.anchor;  // eq. (6)
  result.loss = -result.objective;                            // U-13: minimise −L
  return result;
}

}  // namespace parley::udpo
