// Paired statistics against reference values; each test names where its numbers come from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "parley/stats.h"

namespace parley {
namespace {

// R's reference values below come from an independent python3 (standard library) reimplementation
// of R's wilcox.test(x, y, paired = TRUE) default path, run once by hand:
//   from statistics import NormalDist; import math; Phi = NormalDist().cdf
//   def r_normal(d):   # the branch R takes with ties, zeros or n >= 50
//       x = [v for v in d if v != 0]; n = len(x)
//       ranks = average ranks of [abs(v) for v in x]; ties = sum(t**3 - t over tie groups)
//       V = sum(r for r, v in zip(ranks, x) if v > 0); z = V - n*(n+1)/4
//       sigma = math.sqrt(n*(n+1)*(2*n+1)/24 - ties/48)
//       z = (z - 0.5*sign(z)) / sigma; return V, 2*min(Phi(z), 1 - Phi(z))
//   def exact(d):      # psignrank by counting subsets of {1..n} with each rank sum
//       ways = [1, 0, ...]; for k in 1..n: for s downwards: ways[s] += ways[s-k]
//       lo = min(V, n(n+1)/2 - V); return min(1, 2*sum(ways[:lo+1]) / 2**n)

TEST(Wilcoxon, HollanderWolfeDepressionDataExact) {
  // Hollander & Wolfe (1973), p. 29, the example of R's ?wilcox.test: x = first visit,
  // y = second visit. R: V = 40; alternative = "greater" p = 0.01953, two-sided p = 0.03906.
  // By enumeration of the 2^9 sign patterns of ranks 1..9 (no ties, no zeros): 10 patterns
  // reach a rank sum >= 40, so greater = 10/512 = 0.01953125 and two-sided 20/512.
  const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  std::vector<double> d;
  for (std::size_t i = 0; i < x.size(); ++i) d.push_back(x[i] - y[i]);
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(test.statistic, 40.0);
  EXPECT_EQ(test.n, 9);
  EXPECT_EQ(test.zeros, 0);
  EXPECT_FALSE(test.ties);
  EXPECT_TRUE(test.exact);
  EXPECT_NEAR(test.p, 0.0390625, 1e-12);
}

TEST(Wilcoxon, TiesUseTheCorrectedNormalApproximation) {
  // Worked by hand with the formula R's wilcox.test uses when ties prevent the exact test:
  // |d| ranks {1,1,1}->2, {2,2,2}->5, {3}->7; W+ = 26; E = 14; Var = 35 - (24 + 24)/48 = 34;
  // z = (26 - 14 - 0.5)/sqrt(34); p = 2(1 - Phi(z)) = 0.0485829... (r_normal above agrees).
  const std::vector<double> d = {1, 1, -1, 2, 2, 2, 3, 0, 0};  // zeros are dropped
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(test.statistic, 26.0);
  EXPECT_EQ(test.n, 7);
  EXPECT_EQ(test.zeros, 2);
  EXPECT_TRUE(test.ties);
  EXPECT_FALSE(test.exact);
  EXPECT_NEAR(test.p, 0.04858293092335843, 1e-12);
}

TEST(Wilcoxon, ExactNearTheCentreUsesTheWholeNullDistribution) {
  // d = 1, -2, 3, ..., 9 (odd ranks positive): W+ = 25 of 45, so the smaller tail is W+ <= 20,
  // which needs every rank up to 9. By enumeration of the 2^9 sign patterns 210 have a rank
  // sum <= 20: p = 2 · 210/512 = 0.8203125 (R: psignrank(20, 9) · 2 = 0.8203). Flipping
  // every sign gives W+ = 20 and the same p.
  std::vector<double> d;
  for (int i = 1; i <= 9; ++i) d.push_back(i % 2 == 1 ? i : -i);
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_TRUE(test.exact);
  EXPECT_DOUBLE_EQ(test.statistic, 25.0);
  EXPECT_NEAR(test.p, 0.8203125, 1e-12);
  for (double& v : d) v = -v;
  EXPECT_NEAR(wilcoxon_signed_rank(d).p, 0.8203125, 1e-12);
}

TEST(Wilcoxon, ZerosWithoutTiesUseTheNormalApproximationAsR) {
  // PRR-like differences with two zeros and no tied |d|. R drops the zeros and, because there
  // were zeros, takes the normal approximation: n = 6, ranks of |d| 0.125, 0.25, ..., 0.75 are
  // 1..6, the only negative one has rank 1, V = 20; E = 10.5, Var = 6·7·13/24 = 22.75,
  // z = (20 - 10.5 - 0.5)/sqrt(22.75) = 1.88690, p = 2(1 - Phi(z)) = 0.0591721 (r_normal).
  // The exact test R does not use here would give 2 · 2/64 = 0.0625.
  const std::vector<double> d = {0.25, 0.0, 0.5, -0.125, 0.375, 0.625, 0.75, 0.0};
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(test.statistic, 20.0);
  EXPECT_EQ(test.n, 6);
  EXPECT_EQ(test.zeros, 2);
  EXPECT_FALSE(test.ties);
  EXPECT_FALSE(test.exact);
  EXPECT_NEAR(test.p, 0.059172067825859376, 1e-12);
}

TEST(Wilcoxon, ExactBelowFiftyNormalFromFifty) {
  // Token-count differences d_i = ±i, negative when 4 divides i: no ties, no zeros.
  // n = 49: R is exact; W+ = 1225 - 4·(1 + ... + 12) = 913, p = 0.0023352991113441 (exact()).
  std::vector<double> d;
  for (int i = 1; i <= 49; ++i) d.push_back(i % 4 == 0 ? -i : i);
  const auto below = wilcoxon_signed_rank(d);
  EXPECT_TRUE(below.exact);
  EXPECT_DOUBLE_EQ(below.statistic, 913.0);
  EXPECT_NEAR(below.p, 0.0023352991113441135, 1e-12);
  // n = 50: R's exact <- (n < 50) is false. W+ = 1275 - 312 = 963, E = 637.5,
  // Var = 50·51·101/24 = 10731.25, z = (325.5 - 0.5)/103.591 = 3.13733,
  // p = 0.0017050250555131 (r_normal); the exact p would be 0.0013303578723942.
  d.push_back(50);
  const auto at = wilcoxon_signed_rank(d);
  EXPECT_FALSE(at.exact);
  EXPECT_DOUBLE_EQ(at.statistic, 963.0);
  EXPECT_NEAR(at.p, 0.0017050250555130653, 1e-12);
}

TEST(Wilcoxon, RoundingNoiseIsNeitherATieBreakerNorADifference) {
  // 0.3 - 0.1 and 0.2 differ in the last bit, as do (0.1 + 0.2) - 0.3 and 0: the documented
  // tolerance makes them a tie and a zero. So d = {0.2, 0.2, 0.5} with one zero: ranks 1.5,
  // 1.5, 3, W+ = 6, n = 3, normal approximation (tie, zero): E = 3,
  // Var = 3·4·7/24 - 6/48 = 3.375, z = (3 - 0.5)/sqrt(3.375) = 1.36083, p = 0.173568
  // (r_normal of {0.2, 0.2, 0.5, 0}). R, comparing exactly, would see four distinct non-zero
  // differences here and report the exact 2/16: the documented departure.
  const std::vector<double> d = {0.3 - 0.1, 0.2, 0.5, (0.1 + 0.2) - 0.3};
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_EQ(test.n, 3);
  EXPECT_EQ(test.zeros, 1);
  EXPECT_TRUE(test.ties);
  EXPECT_DOUBLE_EQ(test.statistic, 6.0);
  EXPECT_NEAR(test.p, 0.17356816655592144, 1e-12);
}

TEST(Wilcoxon, TheTieToleranceIsRelativeForLargeDifferences) {
  // Latency-like differences: 1500.3 - 300.1 is 1200.1999999999998, 2.3e-13 from 1200.2 —
  // within 1e-12 relative, so a tie: ranks 350.5 -> 1 (negative), 1200.2 x2 -> 2.5, 2000 -> 4,
  // W+ = 9, n = 4, normal approximation: E = 5, Var = 7.5 - 6/48 = 7.375,
  // z = (9 - 5 - 0.5)/sqrt(7.375), p = 0.197466 (r_normal of {1200.2, 1200.2, -350.5, 2000}).
  // Without the tie the exact test would give 2 · 2/16 = 0.25.
  const std::vector<double> d = {1500.3 - 300.1, 1200.2, -350.5, 2000.0};
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_TRUE(test.ties);
  EXPECT_DOUBLE_EQ(test.statistic, 9.0);
  EXPECT_NEAR(test.p, 0.1974660733580187, 1e-12);
}

TEST(Wilcoxon, NegativeStatisticSide) {
  // The mirror of the zeros case: every sign flipped, W+ = 1, z = (1 - 10.5 + 0.5)/sqrt(22.75):
  // the continuity correction moves towards E from below; same p as above (r_normal).
  const std::vector<double> d = {-0.25, 0.0, -0.5, 0.125, -0.375, -0.625, -0.75, 0.0};
  const auto test = wilcoxon_signed_rank(d);
  EXPECT_DOUBLE_EQ(test.statistic, 1.0);
  EXPECT_NEAR(test.p, 0.059172067825859376, 1e-12);
}

TEST(Wilcoxon, DegenerateInputs) {
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{}).p, 1.0);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{0, 0, 0}).p, 1.0);
  // One positive difference: W+ = 1 of n = 1; exact two-sided p = 2 · 1/2 = 1.
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{2.5}).p, 1.0);
  // Six positive differences: p = 2 / 2^6.
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{1, 2, 3, 4, 5, 6}).p, 2.0 / 64.0);
  // W+ = 3 = E for n = 3: both tails hold the centre, 2 · P(W+ <= 3) = 2 · 5/8 > 1, so p = 1
  // (R: min(2p, 1)).
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{1, 2, -3}).p, 1.0);
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

// Efron's BCa on the complete ("ideal") bootstrap: all n^n resamples of a small sample, each
// once. Reference values from an independent python3 (standard library) computation:
//   from itertools import product; from bisect import bisect_left, bisect_right
//   from statistics import NormalDist; N = NormalDist()
//   means = sorted(sum(c) / n for c in product(d, repeat=n)); B = len(means); m = sum(d) / n
//   z0 = N.inv_cdf((bisect_left(means, m) + bisect_right(means, m)) / 2 / B)
//   dev = [v - m for v in d]; a = sum(x**3 for x in dev) / (6 * sum(x*x for x in dev)**1.5)
//   level(p) = N.cdf(z0 + (z0 + N.inv_cdf(p)) / (1 - a * (z0 + N.inv_cdf(p))))
//   interval = type-7 quantiles of means at level(alpha/2), level(1 - alpha/2)
// It also gives the distance from each level to the nearest jump of the exact bootstrap CDF,
// which the Monte Carlo test below needs to be large.
std::vector<double> every_resample_mean(const std::vector<double>& d) {
  const std::size_t n = d.size();
  std::size_t total = 1;
  for (std::size_t i = 0; i < n; ++i) total *= n;
  std::vector<double> means;
  for (std::size_t code = 0; code < total; ++code) {
    double sum = 0.0;
    for (std::size_t i = 0, rest = code; i < n; ++i, rest /= n) sum += d[rest % n];
    means.push_back(sum / static_cast<double>(n));
  }
  std::sort(means.begin(), means.end());
  return means;
}

TEST(Bca, IntervalOnTheCompleteBootstrapMatchesEfron) {
  // {-1, 0, 0, 2, 9}, 3125 resamples: share below 2.0 = 0.54032, z0 = 0.10124,
  // a = 0.093251, levels 0.06905 and 0.99601: BCa [-0.2, 7.2] (percentile [-0.4, 5.6]).
  const std::vector<double> skewed = {-1, 0, 0, 2, 9};
  const Interval a = bca_interval(skewed, every_resample_mean(skewed), 0.05);
  EXPECT_NEAR(a.lo, -0.2, 1e-12);
  EXPECT_NEAR(a.hi, 7.2, 1e-12);
  // {0, 1, 1, 2, 7} at 90%: share 0.53248, z0 = 0.08151, a = 0.094072, levels 0.10003 and
  // 0.98393: BCa [0.8, 4.8] (percentile [0.6, 4.4]).
  const std::vector<double> other = {0, 1, 1, 2, 7};
  const Interval b = bca_interval(other, every_resample_mean(other), 0.1);
  EXPECT_NEAR(b.lo, 0.8, 1e-12);
  EXPECT_NEAR(b.hi, 4.8, 1e-12);
}

TEST(Bca, BiasShareIsKeptOffZero) {
  // Every resampled mean above the observed 0.5 (a sample too small to reach it): the share
  // below is 0, kept at 0.5/B = 0.125, z0 = Phi^-1(0.125) = -1.1503494; a = 0 for {0, 1};
  // levels Phi(2 z0 -/+ 1.959964) = 1.01911e-5 and 0.366652; type-7 quantiles of
  // {0.6, 0.7, 0.8, 0.9}: 0.6000030573, 0.7099954884 (python, as above).
  const std::vector<double> values = {0, 1};
  const std::vector<double> means = {0.6, 0.7, 0.8, 0.9};
  const Interval ci = bca_interval(values, means, 0.05);
  EXPECT_NEAR(ci.lo, 0.6000030573240173, 1e-12);
  EXPECT_NEAR(ci.hi, 0.7099954883988029, 1e-12);
}

TEST(PairedBootstrap, ConvergesToTheCompleteBootstrapIntervals) {
  // With 200,000 random resamples the empirical distribution of the means is within about
  // 0.001 of the exact one, and z0 within about 0.003; every level below is more than 0.01
  // from a jump of the exact CDF (python above), so both intervals land exactly on the
  // complete-bootstrap values.
  // {0, 0, 0, 1, 5} at 80%: levels 0.17425, 0.95818; BCa [0.2, 3.0], percentile [0.2, 2.2].
  const auto a = paired_bootstrap(std::vector<double>{0, 0, 0, 1, 5}, 17, 200000, 0.2);
  EXPECT_DOUBLE_EQ(a.mean_difference, 1.2);
  EXPECT_NEAR(a.percentile.lo, 0.2, 1e-12);
  EXPECT_NEAR(a.percentile.hi, 2.2, 1e-12);
  EXPECT_NEAR(a.bca.lo, 0.2, 1e-12);
  EXPECT_NEAR(a.bca.hi, 3.0, 1e-12);
  // {0, 0, 0, 2, 7} at 80%: levels 0.17115, 0.95573; BCa [0.4, 4.2], percentile [0.4, 3.2].
  const auto b = paired_bootstrap(std::vector<double>{0, 0, 0, 2, 7}, 18, 200000, 0.2);
  EXPECT_NEAR(b.percentile.lo, 0.4, 1e-12);
  EXPECT_NEAR(b.percentile.hi, 3.2, 1e-12);
  EXPECT_NEAR(b.bca.lo, 0.4, 1e-12);
  EXPECT_NEAR(b.bca.hi, 4.2, 1e-12);
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
