// UDPO's clipped objective, eqs. (5)–(9): values by hand, P-clip, derivatives against central
// finite differences, the KL anchor and its logit gradient, advantages, eq. (6) per agent.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "parley/udpo.h"

namespace parley::udpo {
namespace {

constexpr double kEps = 1e-12;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

TEST(UdpoObjective, TheTrajectoryRatio) {
  const std::vector<double> actions = {-0.5, -1.25, -0.25};
  EXPECT_DOUBLE_EQ(trajectory_log_probability(actions), -2.0);
  EXPECT_EQ(trajectory_log_probability(std::vector<double>{}), 0.0);
  EXPECT_EQ(trajectory_log_probability(std::vector<double>{0.0, -1.0}), -1.0);  // a certain action
  EXPECT_THROW(trajectory_log_probability(std::vector<double>{-0.1, 0.2}), std::invalid_argument);
  EXPECT_THROW(trajectory_log_probability(std::vector<double>{-kInfinity}), std::invalid_argument);
  EXPECT_DOUBLE_EQ(likelihood_ratio(-2.0, -2.5), std::exp(0.5));
  EXPECT_EQ(likelihood_ratio(-3.0, -3.0), 1.0);
  EXPECT_THROW(likelihood_ratio(-kInfinity, -1.0), std::invalid_argument);
  EXPECT_THROW(likelihood_ratio(-1.0, NAN), std::invalid_argument);
}

TEST(UdpoObjective, ClippedSurrogateByHand) {
  // ϵ = 0.2: the region [0.8, 1.2].
  EXPECT_DOUBLE_EQ(clipped_surrogate(1.5, 2.0), 2.4);    // min(3, 1.2 · 2): clipped
  EXPECT_DOUBLE_EQ(clipped_surrogate(1.1, 2.0), 2.2);    // inside
  EXPECT_DOUBLE_EQ(clipped_surrogate(0.5, 1.0), 0.5);    // min(0.5, 0.8): unclipped below
  EXPECT_DOUBLE_EQ(clipped_surrogate(0.5, -1.0), -0.8);  // min(−0.5, −0.8): clipped
  EXPECT_DOUBLE_EQ(clipped_surrogate(1.5, -1.0), -1.5);  // min(−1.5, −1.2): unclipped above
  EXPECT_DOUBLE_EQ(clipped_surrogate(1.5, 2.0, 0.6), 3.0);  // a wider region: inside
  EXPECT_DOUBLE_EQ(clipped_surrogate(0.5, -1.0, 0.1), -0.9);
  EXPECT_EQ(clipped_surrogate(kInfinity, 1.0), 1.2);
  EXPECT_EQ(clipped_surrogate(kInfinity, 0.0), 0.0);
  EXPECT_EQ(clipped_surrogate(0.0, 1.0), 0.0);
}

TEST(UdpoObjective, BadClipInputsAreRefused) {
  EXPECT_THROW(clipped_surrogate(1.0, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate(1.0, 1.0, -0.2), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate(1.0, 1.0, NAN), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate(-0.1, 1.0), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate(NAN, 1.0), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate(1.0, kInfinity), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate_derivative(1.0, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate_derivative(-1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(clipped_surrogate_derivative(1.0, NAN), std::invalid_argument);
}

// P-clip: ℓ_clip ≤ ρÂ; at ρ = 1, ℓ_clip = Â; no slope past the region in the advantage's direction.
TEST(UdpoObjective, ClipProperties) {
  for (const double epsilon : {0.1, 0.2, 0.5})
    for (double advantage = -2.0; advantage <= 2.0; advantage += 0.25)
      for (double ratio = 0.0; ratio <= 3.0; ratio += 0.05) {
        EXPECT_LE(clipped_surrogate(ratio, advantage, epsilon), ratio * advantage + kEps);
        const double derivative = clipped_surrogate_derivative(ratio, advantage, epsilon);
        if ((advantage > 0.0 && ratio > 1.0 + epsilon) || (advantage < 0.0 && ratio < 1.0 - epsilon)) {
          EXPECT_EQ(derivative, 0.0) << ratio << " " << advantage;
        }
        if (advantage == 0.0) { EXPECT_EQ(derivative, 0.0); }
      }
  for (const double advantage : {-1.5, -0.1, 0.0, 0.3, 2.0}) EXPECT_EQ(clipped_surrogate(1.0, advantage), advantage);
}

// The derivative with respect to log π_θ against central differences of ℓ_clip(exp(x − x_ref)),
// away from the kinks at ρ = 1 ± ϵ.
TEST(UdpoObjective, TheDerivativeMatchesFiniteDifferences) {
  constexpr double kStep = 1e-6;
  const double reference = -3.0;
  for (const double epsilon : {0.1, 0.2})
    for (const double advantage : {-1.7, -0.4, 0.6, 2.3})
      for (double log_ratio = -1.0; log_ratio <= 1.0; log_ratio += 0.0625) {
        const double ratio = std::exp(log_ratio);
        if (std::fabs(ratio - (1.0 + epsilon)) < 1e-3 || std::fabs(ratio - (1.0 - epsilon)) < 1e-3) continue;
        const auto surrogate = [&](double log_probability) {
          return clipped_surrogate(likelihood_ratio(log_probability, reference), advantage, epsilon);
        };
        const double x = reference + log_ratio;
        const double numeric = (surrogate(x + kStep) - surrogate(x - kStep)) / (2.0 * kStep);
        EXPECT_NEAR(clipped_surrogate_derivative(ratio, advantage, epsilon), numeric, 1e-6)
            << "ρ = " << ratio << ", Â = " << advantage << ", ϵ = " << epsilon;
      }
}

// The boundary ρ = 1 ± ϵ: the clipped side (0), our documented choice.
TEST(UdpoObjective, TheClipBoundaryTakesTheClippedSide) {
  EXPECT_EQ(clipped_surrogate_derivative(1.25, 2.0, 0.25), 0.0);
  EXPECT_EQ(clipped_surrogate_derivative(0.75, -2.0, 0.25), 0.0);
  // Just inside, the unclipped slope ρÂ.
  EXPECT_DOUBLE_EQ(clipped_surrogate_derivative(1.2, 2.0, 0.25), 2.4);
  EXPECT_DOUBLE_EQ(clipped_surrogate_derivative(0.8, -2.0, 0.25), -1.6);
  // The far side of the region keeps the slope: the ratio moved against the advantage.
  EXPECT_DOUBLE_EQ(clipped_surrogate_derivative(0.75, 2.0, 0.25), 1.5);
  EXPECT_DOUBLE_EQ(clipped_surrogate_derivative(1.25, -2.0, 0.25), -2.5);
  // Â = 0 has no slope, also at ρ = ∞ (whose product with 0 is NaN).
  EXPECT_EQ(clipped_surrogate_derivative(kInfinity, 0.0), 0.0);
  EXPECT_EQ(clipped_surrogate_derivative(0.0, 0.0), 0.0);
}

TEST(UdpoObjective, AdvantagesAreCentredPerAgent) {
  const std::vector<double> rewards = {1.0, 2.5, 0.5, 4.0};  // b = 2
  const std::vector<double> a = advantages(rewards);
  EXPECT_EQ(a, (std::vector<double>{-1.0, 0.5, -1.5, 2.0}));
  EXPECT_EQ(advantages(std::vector<double>{3.0}), (std::vector<double>{0.0}));
  const std::vector<double> uneven = advantages(std::vector<double>{0.1, 0.7, 0.35, 1.9, -0.4});
  EXPECT_NEAR(std::accumulate(uneven.begin(), uneven.end(), 0.0), 0.0, kEps);
  EXPECT_THROW(advantages(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(advantages(std::vector<double>{1.0, NAN}), std::invalid_argument);
}

// Alg. 1 line 14 with replay: b over the fresh rewards (listed first) only, subtracted from all.
TEST(UdpoObjective, TheBaselineMayCountOnlyTheFreshRewards) {
  const std::vector<double> rewards = {1.0, 3.0, 10.0, -4.0};  // two fresh (b = 2), two replayed
  EXPECT_EQ(advantages(rewards, 2), (std::vector<double>{-1.0, 1.0, 8.0, -6.0}));
  EXPECT_EQ(advantages(rewards, 4), advantages(rewards));
  EXPECT_THROW(advantages(rewards, 0), std::invalid_argument);
  EXPECT_THROW(advantages(rewards, 5), std::invalid_argument);
  EXPECT_THROW(advantages(std::vector<double>{1.0, NAN}, 1), std::invalid_argument);  // a replayed one too
}

TEST(UdpoObjective, KlDivergenceByHand) {
  const std::vector<double> p = {0.5, 0.5}, q = {0.25, 0.75};
  EXPECT_NEAR(kl_divergence(p, q), 0.5 * std::log(2.0) + 0.5 * std::log(2.0 / 3.0), kEps);
  EXPECT_NEAR(kl_divergence(q, p), 0.25 * std::log(0.5) + 0.75 * std::log(1.5), kEps);
  // P-clip: ℓ_anchor = 0 when π_θ = π_ref.
  for (const std::vector<double>& same : {p, q, std::vector<double>{0.2, 0.3, 0.5}, std::vector<double>{1.0, 0.0}})
    EXPECT_EQ(kl_divergence(same, same), 0.0);
  // 0 log 0 = 0; q = 0 < p is infinite.
  EXPECT_NEAR(kl_divergence(std::vector<double>{0.0, 1.0}, q), std::log(1.0 / 0.75), kEps);
  EXPECT_EQ(kl_divergence(q, std::vector<double>{0.0, 1.0}), kInfinity);
  EXPECT_EQ(kl_divergence(std::vector<double>{0.2, 0.3, 0.5}, std::vector<double>{0.5, 0.5, 0.0}), kInfinity);
}

TEST(UdpoObjective, KlDivergenceRefusesWhatIsNotADistribution) {
  const std::vector<double> p = {0.5, 0.5};
  EXPECT_THROW(kl_divergence(p, std::vector<double>{0.2, 0.3, 0.5}), std::invalid_argument);
  EXPECT_THROW(kl_divergence(p, std::vector<double>{0.6, 0.6}), std::invalid_argument);
  EXPECT_THROW(kl_divergence(std::vector<double>{1.5, -0.5}, p), std::invalid_argument);
  EXPECT_THROW(kl_divergence(std::vector<double>{}, std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(kl_divergence(std::vector<double>{0.5, NAN}, p), std::invalid_argument);
  // Sums are checked to within 1e-9.
  EXPECT_NO_THROW(kl_divergence(std::vector<double>{0.5, 0.5 + 5e-10}, p));
  EXPECT_THROW(kl_divergence(std::vector<double>{0.5, 0.5 + 2e-9}, p), std::invalid_argument);
}

TEST(UdpoObjective, SoftmaxIsStable) {
  const std::vector<double> p = softmax(std::vector<double>{1000.0, 1000.0 + std::log(3.0)});
  EXPECT_NEAR(p[0], 0.25, kEps);
  EXPECT_NEAR(p[1], 0.75, kEps);
  const std::vector<double> three = softmax(std::vector<double>{0.0, std::log(2.0), std::log(5.0)});
  EXPECT_NEAR(three[0], 0.125, kEps);
  EXPECT_NEAR(three[1], 0.25, kEps);
  EXPECT_NEAR(three[2], 0.625, kEps);
  EXPECT_THROW(softmax(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(softmax(std::vector<double>{0.0, kInfinity}), std::invalid_argument);
}

TEST(UdpoObjective, TheKlGradientMatchesFiniteDifferences) {
  constexpr double kStep = 1e-6;
  const std::vector<double> reference = {0.1, 0.2, 0.3, 0.4};
  for (const std::vector<double>& logits : {std::vector<double>{0.3, -1.2, 2.0, 0.5}, std::vector<double>{0.0, 0.0, 0.0, 0.0},
                                           std::vector<double>{-3.0, 4.0, 1.0, 1.5}}) {
    const std::vector<double> gradient = kl_divergence_logit_gradient(logits, reference);
    ASSERT_EQ(gradient.size(), logits.size());
    for (std::size_t k = 0; k < logits.size(); ++k) {
      std::vector<double> up = logits, down = logits;
      up[k] += kStep;
      down[k] -= kStep;
      const double numeric = (kl_divergence(softmax(up), reference) - kl_divergence(softmax(down), reference)) / (2.0 * kStep);
      EXPECT_NEAR(gradient[k], numeric, 1e-7) << k;
    }
    // A shift of every logit leaves p unchanged: the gradient sums to 0.
    EXPECT_NEAR(std::accumulate(gradient.begin(), gradient.end(), 0.0), 0.0, kEps);
  }
  // At p = q the KL is minimal: gradient 0.
  const std::vector<double> at_reference = {std::log(0.1), std::log(0.2), std::log(0.3), std::log(0.4)};
  for (const double g : kl_divergence_logit_gradient(at_reference, reference)) EXPECT_NEAR(g, 0.0, kEps);
  // A probability that underflowed to 0 has no slope (p log p → 0).
  const std::vector<double> saturated = kl_divergence_logit_gradient(std::vector<double>{0.0, -800.0}, std::vector<double>{0.5, 0.5});
  EXPECT_EQ(saturated[1], 0.0);
  EXPECT_TRUE(std::isfinite(saturated[0]));
  EXPECT_THROW(kl_divergence_logit_gradient(std::vector<double>{0.0, 0.0}, std::vector<double>{1.0, 0.0}),
               std::invalid_argument);
  EXPECT_THROW(kl_divergence_logit_gradient(std::vector<double>{0.0}, reference), std::invalid_argument);
}

TEST(UdpoObjective, EquationSixByHand) {
  // Two trajectories, ϵ = 0.2, η = 0.016:
  //   τ1: ρ = e^{0.5} = 1.6487 > 1.2, Â = 1: ℓ_clip = 1.2, slope 0; anchor 0.3, w = 1.
  //   τ2: ρ = e^{−0.1} = 0.9048, Â = −0.5: ℓ_clip = −0.4524, slope −0.4524; anchor 0.1, w = 0.5.
  const std::vector<ObjectiveSample> minibatch = {
      {.log_probability = -1.5, .reference_log_probability = -2.0, .advantage = 1.0, .anchor = 0.3},
      {.log_probability = -2.1, .reference_log_probability = -2.0, .advantage = -0.5, .anchor = 0.1,
       .importance_weight = 0.5},
  };
  const AgentObjective objective = agent_objective(minibatch, 0.016);
  const double second = -0.5 * std::exp(-0.1);
  EXPECT_NEAR(objective.surrogate, (1.2 + 0.5 * second) / 2.0, kEps);
  EXPECT_NEAR(objective.anchor, (0.3 + 0.5 * 0.1) / 2.0, kEps);
  EXPECT_NEAR(objective.objective, objective.surrogate - 0.016 * objective.anchor, kEps);
  EXPECT_EQ(objective.loss, -objective.objective);
  ASSERT_EQ(objective.surrogate_gradient.size(), 2u);
  EXPECT_EQ(objective.surrogate_gradient[0], 0.0);
  EXPECT_NEAR(objective.surrogate_gradient[1], 0.5 * second / 2.0, kEps);
  // η = 0: the surrogate alone.
  EXPECT_EQ(agent_objective(minibatch, 0.0).objective, objective.surrogate);
}

TEST(UdpoObjective, EquationSixsGradientMatchesFiniteDifferences) {
  constexpr double kStep = 1e-6;
  std::vector<ObjectiveSample> minibatch = {
      {.log_probability = -4.0, .reference_log_probability = -4.1, .advantage = 0.7, .anchor = 0.02},
      {.log_probability = -2.0, .reference_log_probability = -1.9, .advantage = -1.1, .anchor = 0.05,
       .importance_weight = 0.4},
      {.log_probability = -6.0, .reference_log_probability = -5.0, .advantage = 0.3, .anchor = 0.4},
  };
  const AgentObjective objective = agent_objective(minibatch, 0.01);
  for (std::size_t m = 0; m < minibatch.size(); ++m) {
    std::vector<ObjectiveSample> up = minibatch, down = minibatch;
    up[m].log_probability += kStep;
    down[m].log_probability -= kStep;
    const double numeric = (agent_objective(up, 0.01).objective - agent_objective(down, 0.01).objective) / (2.0 * kStep);
    EXPECT_NEAR(objective.surrogate_gradient[m], numeric, 1e-7) << m;
  }
}

TEST(UdpoObjective, BadMinibatchesAreRefused) {
  const std::vector<ObjectiveSample> one = {{.log_probability = -1.0, .reference_log_probability = -1.0, .advantage = 1.0}};
  EXPECT_THROW(agent_objective(std::vector<ObjectiveSample>{}, 0.01), std::invalid_argument);
  EXPECT_THROW(agent_objective(one, -0.01), std::invalid_argument);
  EXPECT_THROW(agent_objective(one, 0.01, 0.0), std::invalid_argument);
  EXPECT_THROW(agent_objective(std::vector<ObjectiveSample>{{.advantage = 1.0, .anchor = -0.1}}, 0.01),
               std::invalid_argument);
  EXPECT_THROW(agent_objective(std::vector<ObjectiveSample>{{.advantage = 1.0, .importance_weight = -1.0}}, 0.01),
               std::invalid_argument);
  EXPECT_THROW(agent_objective(std::vector<ObjectiveSample>{{.advantage = 1.0, .anchor = kInfinity}}, 0.01),
               std::invalid_argument);
  EXPECT_NO_THROW(agent_objective(one, 0.0));
}

}  // namespace
}  // namespace parley::udpo
