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

}  // namespace parley
