// Paired statistics against reference values; each test names where its numbers come from.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "parley/stats.h"

namespace parley {
namespace {

TEST(Wilcoxon, HollanderWolfeDepressionDataExact) {
  // Hollander & Wolfe (1973), p. 29, the example of R's ?wilcox.test: x = first visit,
  // y = second visit; R reports V = 40 and, two-sided, p = 0.0390625 (= 2 · 10 / 512).
  const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  std::vector<double> d;
  for (std::size_t i = 0; i < x.size(); ++i) d.push_back(x[i] - y[i]);
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(test.statistic, 40.0);
  EXPECT_EQ(test.n, 9);
  EXPECT_TRUE(test.exact);
  EXPECT_NEAR(test.p, 0.0390625, 1e-12);
}

TEST(Wilcoxon, TiesUseTheCorrectedNormalApproximation) {
  // Worked by hand with the formula R's wilcox.test uses when ties prevent the exact test:
  // |d| ranks {1,1,1}->2, {2,2,2}->5, {3}->7; W+ = 26; E = 14; Var = 35 - (24 + 24)/48 = 34;
  // z = (26 - 14 - 0.5)/sqrt(34); p = 2(1 - Phi(z)) = 0.0485829...
  const std::vector<double> d = {1, 1, -1, 2, 2, 2, 3, 0, 0};  // zeros are dropped
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(test.statistic, 26.0);
  EXPECT_EQ(test.n, 7);
  EXPECT_FALSE(test.exact);
  EXPECT_NEAR(test.p, 0.04858293092335843, 1e-12);
}

TEST(Wilcoxon, DegenerateInputs) {
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{}).p, 1.0);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{0, 0, 0}).p, 1.0);
  // One positive difference: W+ = 1 of n = 1; exact two-sided p = 2 · 1/2 = 1.
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{2.5}).p, 1.0);
  // Six positive differences: p = 2 / 2^6.
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{1, 2, 3, 4, 5, 6}).p, 2.0 / 64.0);
}

TEST(PermutationTest, ExactByEnumerationWorkedByHand) {
  // {1,2,3}: of the 8 sign patterns only +++ and --- reach |sum| = 6: p = 2/8.
  EXPECT_DOUBLE_EQ(paired_permutation_p(std::vector<double>{1, 2, 3}, 1), 0.25);
  // {2,1,1}: |sum| = 4 only for +++ and ---, again 2/8 (the two ±1 patterns give 0 or 2).
  EXPECT_DOUBLE_EQ(paired_permutation_p(std::vector<double>{2, 1, 1}, 1), 0.25);
  // {1,-1}: the observed sum is 0, every pattern is at least as extreme.
  EXPECT_DOUBLE_EQ(paired_permutation_p(std::vector<double>{1, -1}, 1), 1.0);
  EXPECT_DOUBLE_EQ(paired_permutation_p(std::vector<double>{}, 1), 1.0);
}

TEST(PermutationTest, MonteCarloAgreesWithTheExactTest) {
  const std::vector<double> d = {0.3, -0.1, 0.8, 0.2, 0.5, -0.4, 0.9, 0.1, 0.0, 0.6, -0.2, 0.7};
  const double exact = paired_permutation_p(d, 1);
  const double sampled = paired_permutation_p(d, 7, 40000, /*exact_limit=*/0);
  EXPECT_NEAR(sampled, exact, 0.01);
  // Thirty equal positive differences: no random pattern reaches the observed sum, so the
  // Monte Carlo p is its floor 1 / (1 + resamples).
  const std::vector<double> ones(30, 1.0);
  EXPECT_DOUBLE_EQ(paired_permutation_p(ones, 3, 999), 1.0 / 1000.0);
}

TEST(Adjustments, BenjaminiHochberg1995Example) {
  // The 15 p-values of Benjamini & Hochberg (1995), §4.2: at q = 0.05 BH rejects the first
  // four, Holm (step-down Bonferroni) the first three. Adjusted values worked by hand:
  // BH_(i) = min_{j>=i} m p_(j) / j, Holm_(i) = max_{j<=i} (m - j + 1) p_(j).
  const std::vector<double> p = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                                 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000};
  const auto bh = benjamini_hochberg_adjust(p);
  const auto holm = holm_adjust(p);
  const std::vector<double> bh_expected = {0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.063857142857142857,
                                           0.063857142857142857, 0.0645, 0.0765, 0.486, 0.58118181818181818,
                                           0.714875, 0.75323076923076923, 0.81321428571428571, 1.0};
  const std::vector<double> holm_expected = {0.0015, 0.0056, 0.0247, 0.114, 0.2211, 0.278, 0.278, 0.278,
                                             0.3213, 1, 1, 1, 1, 1, 1};
  int bh_rejected = 0, holm_rejected = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    EXPECT_NEAR(bh[i], bh_expected[i], 1e-12) << i;
    EXPECT_NEAR(holm[i], holm_expected[i], 1e-12) << i;
    bh_rejected += bh[i] <= 0.05;
    holm_rejected += holm[i] <= 0.05;
  }
  EXPECT_EQ(bh_rejected, 4);
  EXPECT_EQ(holm_rejected, 3);
}

TEST(Adjustments, KeepTheInputOrder) {
  const std::vector<double> p = {0.04, 0.01, 0.03};
  // Sorted 0.01, 0.03, 0.04: Holm 0.03, 0.06, 0.06; BH 0.03, 0.04, 0.04.
  EXPECT_EQ(holm_adjust(p), (std::vector<double>{0.06, 0.03, 0.06}));
  const auto bh = benjamini_hochberg_adjust(p);
  EXPECT_NEAR(bh[0], 0.04, 1e-15);
  EXPECT_NEAR(bh[1], 0.03, 1e-15);
  EXPECT_NEAR(bh[2], 0.04, 1e-15);
  EXPECT_TRUE(holm_adjust(std::vector<double>{}).empty());
}

TEST(Bca, AccelerationAndLevelsWorkedByHand) {
  // {0, 0, 1}: deviations -1/3, -1/3, 2/3; sum cubes 2/9, sum squares 2/3;
  // a = (2/9) / (6 (2/3)^1.5) = 0.0680413817...
  EXPECT_NEAR(jackknife_acceleration_of_mean(std::vector<double>{0, 0, 1}), 0.06804138174397718, 1e-12);
  EXPECT_DOUBLE_EQ(jackknife_acceleration_of_mean(std::vector<double>{2, 2}), 0.0);
  // No bias, no acceleration: the percentile levels.
  const Interval plain = bca_levels(0.0, 0.0, 0.05);
  EXPECT_NEAR(plain.lo, 0.025, 1e-9);
  EXPECT_NEAR(plain.hi, 0.975, 1e-9);
  // z0 = 0.1, a = 0.05: Phi(0.1 + (0.1 + z)/(1 - 0.05 (0.1 + z))) at z = -1.95996, +1.95996.
  const Interval shifted = bca_levels(0.1, 0.05, 0.05);
  EXPECT_NEAR(shifted.lo, 0.05461007689835956, 1e-9);
  EXPECT_NEAR(shifted.hi, 0.9917237368688839, 1e-9);
}

TEST(PairedBootstrap, DegenerateAndSymmetricCases) {
  const auto constant = paired_bootstrap(std::vector<double>{1, 1, 1, 1}, 5);
  EXPECT_DOUBLE_EQ(constant.mean_difference, 1.0);
  EXPECT_DOUBLE_EQ(constant.percentile.lo, 1.0);
  EXPECT_DOUBLE_EQ(constant.bca.hi, 1.0);
  // Symmetric differences: no skew (a = 0) and little bias, so BCa stays near the percentile
  // interval, and both contain the mean.
  std::vector<double> symmetric;
  for (int i = -20; i <= 20; ++i) symmetric.push_back(i);
  const auto b = paired_bootstrap(symmetric, 11, 4000);
  EXPECT_DOUBLE_EQ(b.mean_difference, 0.0);
  EXPECT_LT(b.percentile.lo, 0.0);
  EXPECT_GT(b.percentile.hi, 0.0);
  EXPECT_NEAR(b.bca.lo, b.percentile.lo, 0.5);
  EXPECT_NEAR(b.bca.hi, b.percentile.hi, 0.5);
  // Right-skewed differences: BCa shifts both ends up relative to the percentile interval.
  std::vector<double> skewed;
  for (int i = 0; i < 40; ++i) skewed.push_back(std::exp(i / 8.0));
  const auto s = paired_bootstrap(skewed, 11, 4000);
  EXPECT_GT(s.bca.lo, s.percentile.lo);
  EXPECT_GT(s.bca.hi, s.percentile.hi);
  // Deterministic for a seed.
  const auto again = paired_bootstrap(skewed, 11, 4000);
  EXPECT_EQ(again.bca.lo, s.bca.lo);
  EXPECT_EQ(again.percentile.hi, s.percentile.hi);
}

}  // namespace
}  // namespace parley
