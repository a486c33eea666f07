// UDPO's uncertainty-driven replay (udpo-uncertainty-collapse App. A.3, eq. (15)): priorities,
// sampling probabilities, importance-sampling corrections as in prioritised experience replay
// (Schaul et al.; the paper names the correction but not its form), and a seeded sampler.
#include <algorithm>
#include <cmath>

#include "core/hash.h"
#include "parley/udpo.h"
#include "udpo/checks.h"

namespace parley::udpo {
namespace {

// base × (1 − reward), where a zero base drops the term even if its reward is undefined.
double uncertainty_term(double base, const std::optional<double>& reward, std::string_view reason) {
  if (base == 0.0) return 0.0;
  detail::require(reward.has_value(), "replay_uncertainty", reason);
  return base * (1.0 - *reward);
}

}  // namespace

double replay_uncertainty(const TrajectoryRewards& rewards, const BaseCoefficients& base) {
  return uncertainty_term(base.alpha, rewards.intra, "r_intra is undefined but α_base is not 0") +
         uncertainty_term(base.beta, rewards.inter, "r_inter is undefined but β_base is not 0") +
         uncertainty_term(base.gamma, rewards.sys, "r_sys is undefined but γ_base is not 0");  // eq. (15)
}

std::vector<double> replay_probabilities(std::span<const double> uncertainties, const ReplayOptions& options) {
  detail::require(!uncertainties.empty(), "replay_probabilities", "the replay buffer is empty");
  detail::require(detail::non_negative(options.priority_floor), "replay_probabilities", "ε_p must be finite and ≥ 0");
  detail::require(detail::non_negative(options.priority_exponent), "replay_probabilities",
                  "the priority exponent η must be finite and ≥ 0");
  std::vector<double> probabilities;
  probabilities.reserve(uncertainties.size());
  double total = 0.0;
  for (const double uncertainty : uncertainties) {
    detail::require(detail::non_negative(uncertainty), "replay_probabilities", "an uncertainty U(τ) is negative or not finite");
    // p ∝ (U + ε_p)^η; std::pow(0, 0) = 1, so η = 0 is uniform even at U + ε_p = 0.
    probabilities.push_back(std::pow(uncertainty + options.priority_floor, options.priority_exponent));
    total += probabilities.back();
  }
  detail::require(total > 0.0 && std::isfinite(total), "replay_probabilities",
                  "every priority is 0 (U(τ) = 0 with ε_p = 0) or they overflow");
  for (double& p : probabilities) p /= total;
  return probabilities;
}

std::vector<double> importance_weights(std::span<const double> probabilities, double correction_exponent) {
  detail::require(!probabilities.empty(), "importance_weights", "the replay buffer is empty");
  detail::require(std::isfinite(correction_exponent) && correction_exponent >= 0.0 && correction_exponent <= 1.0,
                  "importance_weights", "β_IS must be in [0, 1]");
  const double buffer_size = static_cast<double>(probabilities.size());
  std::vector<double> weights;
  weights.reserve(probabilities.size());
  double expectation = 0.0;  // E_p[w] before the normalisation
  for (const double p : probabilities) {
    detail::require(detail::non_negative(p) && p <= 1.0, "importance_weights", "a probability is outside [0, 1]");
    // (1/(|B| p))^β_IS; a trajectory that is never drawn needs no correction. (After the
    // normalisation below, |B| cancels: it is kept so that the weights read as PER writes them.)
    weights.push_back(p > 0.0 ? std::pow(buffer_size * p, -correction_exponent) : 0.0);
    expectation += p * weights.back();
  }
  detail::require(expectation > 0.0, "importance_weights", "every probability is 0");
  for (double& w : weights) w /= expectation;  // Σ p w = 1
  return weights;
}

ReplaySampler::ReplaySampler(std::span<const double> uncertainties, const ReplayOptions& options)
    : probabilities_(replay_probabilities(uncertainties, options)),
      weights_(importance_weights(probabilities_, options.correction_exponent)) {
  cumulative_.reserve(probabilities_.size());
  double running = 0.0;
  for (const double p : probabilities_) cumulative_.push_back(running += p);
}

std::vector<ReplaySampler::Draw> ReplaySampler::draw(std::size_t count, Rng& rng) const {
  // Inverse CDF: the first index whose running sum exceeds u·total, u ∈ [0, 1 − 2⁻⁵³]. In
  // rounding to nearest u·total < total for any total > 0, so that index exists (scaling by the
  // last running sum, 1 up to rounding, rather than by 1 is what guarantees it); a zero-
  // probability entry, whose running sum equals its predecessor's, is never the first to exceed.
  std::vector<Draw> draws;
  draws.reserve(count);
  const double total = cumulative_.back();
  for (std::size_t k = 0; k < count; ++k) {
    const double target = rng.uniform() * total;
    const auto index = static_cast<std::size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), target) -
                                                cumulative_.begin());
    draws.push_back(Draw{index, weights_[index]});
  }
  return draws;
}

}  // namespace parley::udpo
