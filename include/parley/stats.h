#pragma once
// Statistics used by reports: seeded bootstrap percentile intervals and Wilson score
// intervals. Pure functions; deterministic for a given seed; safe from any thread.

#include <cstdint>
#include <span>
#include <vector>

namespace parley {

struct Interval {
  double lo = 0.0;
  double hi = 0.0;
};

// Percentile bootstrap CI of the mean of `values`: `resamples` resamples with replacement
// drawn with parley's Rng seeded by `seed`; the interval is the (alpha/2, 1-alpha/2)
// quantiles of the resampled means (linear interpolation between order statistics, the
// "type 7" rule). Empty input gives {0, 0}.
Interval bootstrap_mean_ci(std::span<const double> values, std::uint64_t seed,
                           int resamples = 2000, double alpha = 0.05);

// Wilson score interval for `successes` out of `n` at level 1 - alpha (z from the normal
// quantile). n = 0 gives {0, 1}.
Interval wilson_interval(std::int64_t successes, std::int64_t n, double alpha = 0.05);

// Quantile of sorted data with linear interpolation (type 7). Requires non-empty input.
double quantile_sorted(std::span<const double> sorted, double p);

// Standard normal quantile (inverse CDF), |error| < 1e-9.
double normal_quantile(double p);

double mean(std::span<const double> values);

// Standard normal CDF.
double normal_cdf(double x);

// ---- Paired comparisons over matched units (differences d_i = a_i - b_i) --------------------

// Bootstrap CIs of the mean difference: `resamples` resamples of the units with parley's Rng
// seeded by `seed`. `percentile` is the (alpha/2, 1-alpha/2) type-7 quantile interval; `bca`
// the bias-corrected and accelerated interval (Efron 1987): bias z0 from the share of resampled
// means below the observed one, acceleration from the jackknife. All-equal differences give
// the zero-width interval at that value.
struct PairedBootstrap {
  double mean_difference = 0.0;
  Interval percentile;
  Interval bca;
};
PairedBootstrap paired_bootstrap(std::span<const double> differences, std::uint64_t seed,
                                 int resamples = 10000, double alpha = 0.05);

// The BCa ingredients, exposed for tests: jackknife acceleration of the mean,
// a = sum (d_i - mean)^3 / (6 (sum (d_i - mean)^2)^(3/2)), and the adjusted quantile levels
// Phi(z0 + (z0 + z_p) / (1 - a (z0 + z_p))) for p = alpha/2 and 1 - alpha/2.
double jackknife_acceleration_of_mean(std::span<const double> differences);
Interval bca_levels(double z0, double acceleration, double alpha);

// Two-sided paired permutation (sign-flip) test of mean difference = 0. Exact over all 2^n
// sign patterns when n <= exact_limit; otherwise Monte Carlo with `resamples` random patterns
// and p = (1 + #{|T*| >= |T|}) / (1 + resamples). Zero differences take part (they flip to
// themselves). Empty input gives p = 1.
double paired_permutation_p(std::span<const double> differences, std::uint64_t seed, int resamples = 10000,
                            int exact_limit = 20);

// Wilcoxon signed-rank test, two-sided. Zero differences are dropped (Wilcoxon's method); tied
// |d| get average ranks. `statistic` is W+ (the sum of the ranks of positive differences, R's
// V). Exact p from the null distribution when no ties and n <= 50; otherwise the normal
// approximation with tie correction and continuity correction. n = 0 gives p = 1.
struct SignedRankTest {
  double statistic = 0.0;
  std::int64_t n = 0;  // non-zero differences
  double p = 1.0;
  bool exact = false;
};
SignedRankTest wilcoxon_signed_rank(std::span<const double> differences);

// Family-wise adjustments of p-values, returned in the input order.
std::vector<double> holm_adjust(std::span<const double> p_values);                // Holm 1979
std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values);  // BH 1995 (FDR)

}  // namespace parley
