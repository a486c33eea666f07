// UDPO's uncertainty-driven replay (App. A.3, eq. (15)): priorities, probabilities and importance
// weights by hand, and P-replay's frequency test of the seeded sampler.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/hash.h"
#include "parley/udpo.h"

namespace parley::udpo {
namespace {

constexpr double kEps = 1e-12;

TrajectoryRewards rewards_of(std::optional<double> intra, std::optional<double> inter, std::optional<double> sys) {
  TrajectoryRewards r;
  r.intra = intra;
  r.inter = inter;
  r.sys = sys;
  return r;
}

TEST(UdpoReplay, EquationFifteenUsesTheBaseCoefficients) {
  // U = 0.3 (1 − 0.8) + 0.1 (1 − 0.5) + 0.6 (1 − 0.25) = 0.06 + 0.05 + 0.45 = 0.56.
  const BaseCoefficients base{.alpha = 0.3, .beta = 0.1, .gamma = 0.6};
  EXPECT_NEAR(replay_uncertainty(rewards_of(0.8, 0.5, 0.25), base), 0.56, kEps);
  // Equal bases: the mean uncertainty.
  EXPECT_NEAR(replay_uncertainty(rewards_of(0.8, 0.5, 0.25), BaseCoefficients{}), (0.2 + 0.5 + 0.75) / 3.0, kEps);
  // An ablated term leaves the priority, also where its reward is undefined; a weighted
  // undefined reward is refused.
  EXPECT_NEAR(replay_uncertainty(rewards_of(std::nullopt, 0.5, 0.25), ablated(base, Ablation::kWithoutIntra)), 0.5,
              kEps);
  EXPECT_NEAR(replay_uncertainty(rewards_of(0.8, std::nullopt, 0.25), ablated(base, Ablation::kWithoutInter)), 0.51,
              kEps);
  EXPECT_NEAR(replay_uncertainty(rewards_of(0.8, 0.5, std::nullopt), ablated(base, Ablation::kWithoutSys)), 0.11, kEps);
  EXPECT_THROW(replay_uncertainty(rewards_of(std::nullopt, 0.5, 0.25), base), std::invalid_argument);
  EXPECT_THROW(replay_uncertainty(rewards_of(0.8, std::nullopt, 0.25), base), std::invalid_argument);
  EXPECT_THROW(replay_uncertainty(rewards_of(0.8, 0.5, std::nullopt), base), std::invalid_argument);
}

TEST(UdpoReplay, ProbabilitiesByHand) {
  // U = (0, 0.5, 1.5), ε_p = 1e-3, η = 1: priorities 0.001, 0.501, 1.501 of 2.003.
  const std::vector<double> u = {0.0, 0.5, 1.5};
  const std::vector<double> p = replay_probabilities(u);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_NEAR(p[0], 0.001 / 2.003, kEps);
  EXPECT_NEAR(p[1], 0.501 / 2.003, kEps);
  EXPECT_NEAR(p[2], 1.501 / 2.003, kEps);
  // η = 2: squared priorities.
  const std::vector<double> squared = replay_probabilities(u, {.priority_exponent = 2.0});
  const double total = 0.001 * 0.001 + 0.501 * 0.501 + 1.501 * 1.501;
  EXPECT_NEAR(squared[1], 0.501 * 0.501 / total, kEps);
  EXPECT_NEAR(squared[2], 1.501 * 1.501 / total, kEps);
  // ε_p = 0: a certain trajectory is never replayed.
  const std::vector<double> strict = replay_probabilities(u, {.priority_floor = 0.0});
  EXPECT_EQ(strict[0], 0.0);
  EXPECT_NEAR(strict[1], 0.25, kEps);
  EXPECT_NEAR(strict[2], 0.75, kEps);
  // ε_p = 0.5 raises every priority by the same amount: (0.5, 1, 2) / 3.5.
  const std::vector<double> floored = replay_probabilities(u, {.priority_floor = 0.5});
  EXPECT_NEAR(floored[0], 0.5 / 3.5, kEps);
  EXPECT_NEAR(floored[2], 2.0 / 3.5, kEps);
}

// P-replay: p sums to 1; η = 0 is uniform, even with ε_p = 0 and U = 0.
TEST(UdpoReplay, ProbabilitiesSumToOneAndZeroExponentIsUniform) {
  const std::vector<double> u = {0.0, 0.2, 0.9, 1.4, 0.05};
  for (const double eta : {0.0, 0.5, 1.0, 3.0}) {
    const std::vector<double> p = replay_probabilities(u, {.priority_exponent = eta});
    double total = 0.0;
    for (const double value : p) total += value;
    EXPECT_NEAR(total, 1.0, kEps) << eta;
  }
  for (const ReplayOptions& options : {ReplayOptions{.priority_exponent = 0.0},
                                       ReplayOptions{.priority_floor = 0.0, .priority_exponent = 0.0}})
    for (const double value : replay_probabilities(u, options)) EXPECT_NEAR(value, 0.2, kEps);
}

TEST(UdpoReplay, BadBuffersAreRefused) {
  EXPECT_THROW(replay_probabilities(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(replay_probabilities(std::vector<double>{0.5, -0.1}), std::invalid_argument);
  EXPECT_THROW(replay_probabilities(std::vector<double>{0.5, NAN}), std::invalid_argument);
  EXPECT_THROW(replay_probabilities(std::vector<double>{0.5}, {.priority_floor = -1e-3}), std::invalid_argument);
  EXPECT_THROW(replay_probabilities(std::vector<double>{0.5}, {.priority_exponent = -1.0}), std::invalid_argument);
  EXPECT_THROW(replay_probabilities(std::vector<double>{0.0, 0.0}, {.priority_floor = 0.0}), std::invalid_argument);
  EXPECT_THROW(importance_weights(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(importance_weights(std::vector<double>{0.5, 0.5}, 1.5), std::invalid_argument);
  EXPECT_THROW(importance_weights(std::vector<double>{0.5, 0.5}, -0.1), std::invalid_argument);
  EXPECT_THROW(importance_weights(std::vector<double>{1.5, -0.5}), std::invalid_argument);
  EXPECT_THROW(importance_weights(std::vector<double>{0.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(ReplaySampler(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(ReplaySampler(std::vector<double>{0.5}, {.correction_exponent = 2.0}), std::invalid_argument);
}

TEST(UdpoReplay, ImportanceWeightsByHand) {
  // |B| = 4, p = (0.1, 0.2, 0.3, 0.4): 1/(|B| p) = (2.5, 1.25, 0.8333, 0.625), whose expectation
  // under p is Σ p/(|B| p) = 1 already.
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4};
  const std::vector<double> w = importance_weights(p);
  EXPECT_NEAR(w[0], 2.5, kEps);
  EXPECT_NEAR(w[1], 1.25, kEps);
  EXPECT_NEAR(w[2], 1.0 / 1.2, kEps);
  EXPECT_NEAR(w[3], 0.625, kEps);
  // β_IS = ½: (1/(4p))^½ = 1/(2√p), over E_p = Σ √p / 2.
  const std::vector<double> half = importance_weights(p, 0.5);
  const double expectation = (std::sqrt(0.1) + std::sqrt(0.2) + std::sqrt(0.3) + std::sqrt(0.4)) / 2;
  EXPECT_NEAR(half[1], 1 / (2 * std::sqrt(0.2)) / expectation, kEps);
  EXPECT_NEAR(half[3], 1 / (2 * std::sqrt(0.4)) / expectation, kEps);
  // β_IS = 0: no correction.
  for (const double value : importance_weights(p, 0.0)) EXPECT_NEAR(value, 1.0, kEps);
  // Uniform p needs no correction; a p = 0 entry gets weight 0 and is never drawn, so the others
  // are corrected towards the uniform mean over the two drawable ones: 1/(2p).
  for (const double value : importance_weights(std::vector<double>{0.25, 0.25, 0.25, 0.25})) EXPECT_NEAR(value, 1.0, kEps);
  const std::vector<double> with_zero = importance_weights(std::vector<double>{0.0, 0.25, 0.75});
  EXPECT_EQ(with_zero[0], 0.0);
  EXPECT_NEAR(with_zero[1], 2.0, kEps);
  EXPECT_NEAR(with_zero[2], 2.0 / 3.0, kEps);
}

// The property the weights are for: their expectation under p is 1 for every β_IS (a replayed
// trajectory counts on average as much as a fresh one), and at β_IS = 1 the weighted expectation
// of any per-trajectory quantity is its plain mean over the buffer — also for draws from the
// sampler, with the ε_p = 1e-3 floor that gives a certain trajectory a tiny p.
TEST(UdpoReplay, ImportanceWeightsHaveExpectationOneAndUndoThePrioritisationAtFullCorrection) {
  const std::vector<double> u = {0.0, 0.05, 0.3, 0.9, 0.0, 0.6, 0.2, 1.1};
  const std::vector<double> f = {1.0, -2.0, 0.5, 3.0, 2.0, -1.0, 0.25, 0.75};  // e.g. an advantage
  const double plain_mean = std::accumulate(f.begin(), f.end(), 0.0) / static_cast<double>(f.size());
  const std::vector<double> p = replay_probabilities(u);
  for (const double beta : {0.0, 0.4, 0.7, 1.0}) {
    const std::vector<double> w = importance_weights(p, beta);
    double expectation = 0.0, weighted = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) {
      expectation += p[k] * w[k];
      weighted += p[k] * w[k] * f[k];
    }
    EXPECT_NEAR(expectation, 1.0, 1e-12) << beta;
    if (beta == 1.0) {
      EXPECT_NEAR(weighted, plain_mean, 1e-12);
    }
    if (beta == 0.0) {
      EXPECT_GT(std::abs(weighted - plain_mean), 0.1);  // the prioritisation left in
    }
  }
  const ReplaySampler sampler(u, {.correction_exponent = 1.0});
  Rng rng(11);
  double weight_sum = 0.0, weighted_sum = 0.0;
  constexpr int kDraws = 400000;
  for (const ReplaySampler::Draw& draw : sampler.draw(kDraws, rng)) {
    weight_sum += draw.weight;
    weighted_sum += draw.weight * f[draw.index];
  }
  EXPECT_NEAR(weight_sum / kDraws, 1.0, 0.05);
  EXPECT_NEAR(weighted_sum / kDraws, plain_mean, 0.05);
}

TEST(UdpoReplay, ABufferOfOneIsAlwaysDrawnAtFullWeight) {
  const ReplaySampler sampler(std::vector<double>{0.4});
  EXPECT_EQ(sampler.probabilities(), (std::vector<double>{1.0}));
  EXPECT_EQ(sampler.weights(), (std::vector<double>{1.0}));
  Rng rng(1);
  for (const ReplaySampler::Draw& draw : sampler.draw(10, rng)) {
    EXPECT_EQ(draw.index, 0u);
    EXPECT_EQ(draw.weight, 1.0);
  }
}

TEST(UdpoReplay, TheSamplerCarriesItsProbabilitiesAndWeights) {
  const std::vector<double> u = {0.2, 0.0, 0.7};
  const ReplaySampler sampler(u, {.correction_exponent = 0.5});
  EXPECT_EQ(sampler.probabilities(), replay_probabilities(u));
  EXPECT_EQ(sampler.weights(), importance_weights(replay_probabilities(u), 0.5));
  Rng rng(5);
  for (const ReplaySampler::Draw& draw : sampler.draw(200, rng)) {
    ASSERT_LT(draw.index, u.size());
    EXPECT_EQ(draw.weight, sampler.weights()[draw.index]);
  }
  Rng again(5), same(5);
  const auto first = sampler.draw(50, again);
  const auto second = sampler.draw(50, same);
  for (std::size_t k = 0; k < first.size(); ++k) EXPECT_EQ(first[k].index, second[k].index);
  EXPECT_TRUE(sampler.draw(0, rng).empty());
}

// P-replay: over many draws with a fixed seed the frequencies follow U^η / Σ U^η (χ² test).
TEST(UdpoReplay, DrawFrequenciesFollowTheProbabilities) {
  const std::vector<double> u = {0.05, 0.4, 0.0, 1.2, 0.8, 0.15};
  const ReplaySampler sampler(u);
  Rng rng(20240611);
  constexpr std::size_t kDraws = 200000;
  std::vector<double> counts(u.size(), 0.0);
  for (const ReplaySampler::Draw& draw : sampler.draw(kDraws, rng)) ++counts[draw.index];
  double chi_square = 0.0;
  for (std::size_t k = 0; k < u.size(); ++k) {
    const double expected = kDraws * sampler.probabilities()[k];
    chi_square += (counts[k] - expected) * (counts[k] - expected) / expected;
  }
  // 5 degrees of freedom: the 0.999 quantile is 20.515.
  EXPECT_LT(chi_square, 20.515);
  // And the uniform sampler (η = 0) is uniform.
  const ReplaySampler uniform(u, {.priority_exponent = 0.0});
  std::vector<double> uniform_counts(u.size(), 0.0);
  for (const ReplaySampler::Draw& draw : uniform.draw(kDraws, rng)) ++uniform_counts[draw.index];
  double uniform_chi_square = 0.0;
  const double expected = kDraws / static_cast<double>(u.size());
  for (const double count : uniform_counts) uniform_chi_square += (count - expected) * (count - expected) / expected;
  EXPECT_LT(uniform_chi_square, 20.515);
}

TEST(UdpoReplay, AZeroProbabilityEntryIsNeverDrawn) {
  // ε_p = 0: the certain trajectories (U = 0), first, in the middle and last, are never drawn.
  const ReplaySampler sampler(std::vector<double>{0.0, 0.3, 0.0, 0.6, 0.0}, {.priority_floor = 0.0});
  Rng rng(11);
  std::vector<int> counts(5, 0);
  for (const ReplaySampler::Draw& draw : sampler.draw(20000, rng)) ++counts[draw.index];
  EXPECT_EQ(counts[0], 0);
  EXPECT_EQ(counts[2], 0);
  EXPECT_EQ(counts[4], 0);
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[3], counts[1]);
}

}  // namespace
}  // namespace parley::udpo
