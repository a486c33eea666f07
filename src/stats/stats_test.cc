// mean, quantile_sorted, wilson_interval and bootstrap_mean_ci. Expected values are worked
// out by hand (arithmetic in the comments), by exhaustive enumeration, or by exact binomial sums.

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "parley/stats.h"

namespace parley {
namespace {

TEST(Mean, AveragesAndEmptyIsZero) {
  const std::vector<double> values = {1.0, 2.0, 3.0, 4.0};
  EXPECT_DOUBLE_EQ(mean(values), 2.5);  // 10 / 4
  EXPECT_EQ(mean(std::span<const double>{}), 0.0);
}

TEST(QuantileSorted, Type7InterpolatesBetweenOrderStatistics) {
  // Type 7: h = (n - 1) p, result x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
  const std::vector<double> four = {1.0, 2.0, 3.0, 4.0};
  EXPECT_DOUBLE_EQ(quantile_sorted(four, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(four, 0.1), 1.3);    // h = 0.3
  EXPECT_DOUBLE_EQ(quantile_sorted(four, 0.25), 1.75);  // h = 0.75
  EXPECT_DOUBLE_EQ(quantile_sorted(four, 0.5), 2.5);    // h = 1.5
  EXPECT_DOUBLE_EQ(quantile_sorted(four, 1.0), 4.0);
  const std::vector<double> three = {10.0, 20.0, 40.0};
  EXPECT_DOUBLE_EQ(quantile_sorted(three, 0.75), 30.0);  // h = 1.5 → 20 + 0.5 * 20
  EXPECT_DOUBLE_EQ(quantile_sorted(three, 0.5), 20.0);   // h = 1 exactly
  const std::vector<double> one = {5.0};
  EXPECT_DOUBLE_EQ(quantile_sorted(one, 0.3), 5.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(one, 1.0), 5.0);
  // p outside [0, 1] is clamped to it.
  EXPECT_DOUBLE_EQ(quantile_sorted(three, 1.5), 40.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(three, -0.2), 10.0);
  // The top end is the last value exactly, not a + (b - a) with its rounding
  // (0.2 + (0.9 - 0.2) = 0.8999999999999999 in doubles).
  const std::vector<double> tenths = {0.2, 0.9};
  EXPECT_EQ(quantile_sorted(tenths, 1.0), 0.9);
}

TEST(Wilson, EightOfTenAt95) {
  // z = 1.959964, z² = 3.841459, p̂ = 0.8, n = 10.
  // denominator = 1 + z²/n = 1.3841459
  // centre = (0.8 + z²/20) / 1.3841459 = 0.9920729 / 1.3841459 = 0.7167402
  // half = z * sqrt(0.8*0.2/10 + z²/400) / 1.3841459
  //      = 1.959964 * sqrt(0.016 + 0.0096036) / 1.3841459 = 0.3136134 / 1.3841459 = 0.2265777
  const Interval ci = wilson_interval(8, 10);
  EXPECT_NEAR(ci.lo, 0.4901625, 1e-6);  // 0.7167402 - 0.2265777
  EXPECT_NEAR(ci.hi, 0.9433178, 1e-6);  // 0.7167402 + 0.2265777
}

TEST(Wilson, AllOrNothing) {
  // p̂ = 0: centre = half = (z²/2n) / (1 + z²/n), so hi = (z²/n) / (1 + z²/n)
  //      = 0.3841459 / 1.3841459 = 0.2775328 and lo is exactly 0.
  const Interval none = wilson_interval(0, 10);
  EXPECT_EQ(none.lo, 0.0);
  EXPECT_NEAR(none.hi, 0.2775328, 1e-6);
  // p̂ = 1 mirrors it: lo = 1 - 0.2775328.
  const Interval all = wilson_interval(10, 10);
  EXPECT_NEAR(all.lo, 0.7224672, 1e-6);
  EXPECT_EQ(all.hi, 1.0);
}

TEST(Wilson, SuccessesAreClampedToTheTrials) {
  // 12 "of 10" is read as 10 of 10 and -2 as 0: the AllOrNothing intervals.
  const Interval over = wilson_interval(12, 10);
  EXPECT_NEAR(over.lo, 0.7224672, 1e-6);
  EXPECT_EQ(over.hi, 1.0);
  const Interval under = wilson_interval(-2, 10);
  EXPECT_EQ(under.lo, 0.0);
  EXPECT_NEAR(under.hi, 0.2775328, 1e-6);
}

TEST(Wilson, NoTrialsGivesTheWholeRange) {
  const Interval ci = wilson_interval(0, 0);
  EXPECT_EQ(ci.lo, 0.0);
  EXPECT_EQ(ci.hi, 1.0);
}

TEST(Wilson, OtherLevelsAndMirrorSymmetry) {
  // 45/50 at 99%: z = 2.5758293, z² = 6.6348966, denominator = 1.1326979,
  // centre = (0.9 + 0.0663490) / 1.1326979 = 0.8531392,
  // half = 2.5758293 * sqrt(0.0018 + 0.0006635) / 1.1326979 = 0.1128700.
  const Interval ci = wilson_interval(45, 50, 0.01);
  EXPECT_NEAR(ci.lo, 0.7402692, 1e-6);
  EXPECT_NEAR(ci.hi, 0.9660091, 1e-6);
  // k successes and n - k successes give mirrored intervals.
  for (int k = 0; k <= 17; ++k) {
    const Interval a = wilson_interval(k, 17);
    const Interval b = wilson_interval(17 - k, 17);
    EXPECT_NEAR(a.lo, 1.0 - b.hi, 1e-12) << k;
    EXPECT_NEAR(a.hi, 1.0 - b.lo, 1e-12) << k;
  }
}

TEST(Wilson, MaciTable10Values) {
  // MACI App. E.7 / Table 10 winner-flip rates, as recomputed in the reading guide (A.8
  // P-stats, z = 1.959964): 2/100 and 3/100 match the paper; 47/50 is the paper's "94%" row,
  // whose printed [88%, 98%] does not follow from Wilson (M-33).
  const Interval two = wilson_interval(2, 100);
  EXPECT_NEAR(two.lo, 0.005502, 5e-7);
  EXPECT_NEAR(two.hi, 0.070012, 5e-7);
  const Interval three = wilson_interval(3, 100);
  EXPECT_NEAR(three.lo, 0.010255, 5e-7);
  EXPECT_NEAR(three.hi, 0.084519, 5e-7);
  const Interval most = wilson_interval(47, 50);
  EXPECT_NEAR(most.lo, 0.837829, 5e-7);
  EXPECT_NEAR(most.hi, 0.979385, 5e-7);
}

TEST(Wilson, ExactCoverageIsNearNominal) {
  // Exact coverage: sum of Binomial(n, p) probabilities of the k whose interval holds p.
  // Wilson's coverage oscillates around 95% and stays within a few points of it here.
  for (double p : {0.2, 0.5, 0.7}) {
    const int n = 60;
    double coverage = 0.0;
    for (int k = 0; k <= n; ++k) {
      const double log_pmf = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                             k * std::log(p) + (n - k) * std::log1p(-p);
      const Interval ci = wilson_interval(k, n);
      if (ci.lo <= p && p <= ci.hi) coverage += std::exp(log_pmf);
    }
    EXPECT_GT(coverage, 0.92) << p;
    EXPECT_LT(coverage, 0.98) << p;
  }
}

TEST(Bootstrap, EmptyAndSingleValue) {
  const Interval empty = bootstrap_mean_ci({}, 1);
  EXPECT_EQ(empty.lo, 0.0);
  EXPECT_EQ(empty.hi, 0.0);
  const std::vector<double> one = {3.25};
  const Interval single = bootstrap_mean_ci(one, 1);
  EXPECT_EQ(single.lo, 3.25);
  EXPECT_EQ(single.hi, 3.25);
}

TEST(Bootstrap, AllEqualDataGivesAZeroWidthInterval) {
  const std::vector<double> values(7, 0.7);
  const Interval ci = bootstrap_mean_ci(values, 42);
  EXPECT_EQ(ci.lo, ci.hi);  // every resample sums the same numbers in the same order
  EXPECT_NEAR(ci.lo, 0.7, 1e-12);
}

TEST(Bootstrap, IsDeterministicForASeed) {
  const std::vector<double> values = {0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0.5, 0.25, 1, 0};
  const Interval first = bootstrap_mean_ci(values, 7);
  const Interval again = bootstrap_mean_ci(values, 7);
  EXPECT_EQ(first.lo, again.lo);
  EXPECT_EQ(first.hi, again.hi);
  const Interval other = bootstrap_mean_ci(values, 8);
  EXPECT_TRUE(first.lo != other.lo || first.hi != other.hi);
  EXPECT_LT(first.lo, mean(values));
  EXPECT_GT(first.hi, mean(values));
}

TEST(Bootstrap, SeveralQuantitiesShareOneStreamOfResamples) {
  // Each interval is the one quantity's own bootstrap_mean_ci with the same seed, to the bit:
  // the same draws, summed in the same order.
  Rng rng(3);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 1 + rng.below(40);
    // Up to 19 quantities: whole chunks of 8 and every narrower tail (4, 2, 1) are summed.
    std::vector<std::vector<double>> columns(1 + rng.below(19), std::vector<double>(n));
    for (auto& column : columns)
      for (double& v : column) v = rng.uniform() < 0.3 ? std::floor(rng.uniform(0, 3)) : rng.uniform(-5, 5);
    const std::vector<std::span<const double>> spans(columns.begin(), columns.end());
    const std::uint64_t seed = rng.next();
    const int resamples = 1 + static_cast<int>(rng.below(300));
    const std::vector<Interval> together = bootstrap_mean_cis(spans, seed, resamples, 0.1);
    ASSERT_EQ(together.size(), columns.size());
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const Interval alone = bootstrap_mean_ci(columns[k], seed, resamples, 0.1);
      EXPECT_EQ(together[k].lo, alone.lo) << trial << " " << k;
      EXPECT_EQ(together[k].hi, alone.hi) << trial << " " << k;
    }
  }
}

TEST(Bootstrap, SeveralQuantitiesByHandAndEdgeCases) {
  // Two units: every resample's mean is the low value, the midpoint or the high value, with
  // 1/4 of the mass at each end, so each 95% interval is [low, high].
  const std::vector<double> a = {1.0, 3.0}, b = {10.0, -2.0};
  const std::vector<std::span<const double>> both = {a, b};
  const auto cis = bootstrap_mean_cis(both, 5);
  EXPECT_EQ(cis[0].lo, 1.0);
  EXPECT_EQ(cis[0].hi, 3.0);
  EXPECT_EQ(cis[1].lo, -2.0);
  EXPECT_EQ(cis[1].hi, 10.0);
  EXPECT_TRUE(bootstrap_mean_cis({}, 5).empty());
  const std::vector<double> none;
  const std::vector<std::span<const double>> empty_units = {none, none};
  const auto zeros = bootstrap_mean_cis(empty_units, 5);
  ASSERT_EQ(zeros.size(), 2u);
  EXPECT_EQ(zeros[1].lo, 0.0);
  EXPECT_EQ(zeros[1].hi, 0.0);
  const std::vector<std::span<const double>> ragged = {a, std::span<const double>(a).first(1)};
  EXPECT_THROW(bootstrap_mean_cis(ragged, 5), std::invalid_argument);
}

TEST(Bootstrap, ApproachesTheExactResamplingDistribution) {
  // For {1, 2, 6} the 27 equally likely resamples can be listed; their means give the exact
  // bootstrap distribution. With many resamples the percentile interval must land on the
  // exact quantile, provided p is not close to a jump of the exact CDF (checked below).
  const std::vector<double> values = {1.0, 2.0, 6.0};
  std::map<double, int> counts;  // mean → number of resamples (of 27)
  for (double a : values) {
    for (double b : values) {
      for (double c : values) ++counts[(a + b + c) / 3.0];
    }
  }
  auto exact_quantile = [&](double p) {
    int cumulative = 0;
    for (const auto& [value, count] : counts) {
      cumulative += count;
      const double cdf = cumulative / 27.0;
      EXPECT_GT(std::abs(cdf - p), 0.04) << "p too close to a CDF jump: " << p;
      if (cdf >= p) return value;
    }
    return counts.rbegin()->first;
  };
  // By hand: CDF steps (in 27ths) 1, 4, 7, 8, 11, 17, 20, 23, 26, 27 at sums 3, 4, 5, 6, 8,
  // 9, 10, 13, 14, 18; so the 10%, 20%, 80%, 90% quantiles are 4/3, 5/3, 13/3, 14/3.
  EXPECT_DOUBLE_EQ(exact_quantile(0.1), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(exact_quantile(0.9), 14.0 / 3.0);
  for (double alpha : {0.2, 0.4}) {
    const Interval ci = bootstrap_mean_ci(values, 2024, 20000, alpha);
    EXPECT_NEAR(ci.lo, exact_quantile(alpha / 2.0), 1e-12) << alpha;
    EXPECT_NEAR(ci.hi, exact_quantile(1.0 - alpha / 2.0), 1e-12) << alpha;
  }
}

TEST(Bootstrap, MatchesTheNormalApproximationForLargeSamples) {
  // With n = 400 roughly normal values the percentile interval is close to
  // mean ± 1.96 * sd / sqrt(n) (sd with divisor n, the bootstrap's own variance).
  Rng rng(99);
  std::vector<double> values(400);
  for (double& v : values) v = 10.0 + 3.0 * rng.normal();
  const double m = mean(values);
  double squares = 0.0;
  for (double v : values) squares += (v - m) * (v - m);
  const double half_width = 1.959964 * std::sqrt(squares / 400.0) / std::sqrt(400.0);
  const Interval ci = bootstrap_mean_ci(values, 5, 20000);
  EXPECT_NEAR(ci.lo, m - half_width, 0.08 * half_width);
  EXPECT_NEAR(ci.hi, m + half_width, 0.08 * half_width);
}

TEST(Bootstrap, CoversTheTrueMeanAboutAsOftenAsClaimed) {
  // 300 samples of 40 draws from N(5, 2²); a 95% interval should cover 5 in roughly 285 of
  // them (binomial sd ≈ 3.8). The percentile bootstrap undercovers slightly at n = 40.
  Rng data_rng(31337);
  int covered = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> values(40);
    for (double& v : values) v = 5.0 + 2.0 * data_rng.normal();
    const Interval ci = bootstrap_mean_ci(values, static_cast<std::uint64_t>(t), 1000);
    if (ci.lo <= 5.0 && 5.0 <= ci.hi) ++covered;
  }
  EXPECT_GE(covered, 264);  // 88%
  EXPECT_LE(covered, 297);  // 99%
}

}  // namespace
}  // namespace parley
