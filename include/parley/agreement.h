#pragma once
// Agreement between raters (judges) scoring the same units: Krippendorff's alpha, Pearson and
// Spearman correlation, the mean pairwise correlation with a Fisher-z bootstrap interval, and
// the order-invariance summary of MACI's CRIT reliability table (Chang & Chang, App. E.7,
// Table 10). Used by reports. Pure functions, deterministic for a seed, safe from any thread.
//
// Choices (MACI leaves them open; reading guide A.5, A.6 M-33):
// - Ratings are rows of units, one column per rater; a missing rating is std::nullopt (never
//   NaN: a NaN from a failed computation must not pass for "not rated"). A non-finite rating,
//   like any malformed input (lengths that differ), throws std::invalid_argument.
// - Krippendorff's alpha follows Krippendorff (2011), "Computing Krippendorff's Alpha-
//   Reliability": units with fewer than 2 values are dropped; alpha = 1 - D_o / D_e over the
//   pairable values. Undefined (NaN) when no two values are pairable or all of them are equal.
//   Its bootstrap resamples the pairable units (not pairs of values, as Hayes & Krippendorff
//   2007 do), percentile interval.
// - Correlations with fewer than 2 points or a constant side are undefined (NaN); such a pair
//   of raters is left out of the mean pairwise correlation, its SD and its Fisher-z average, as
//   is a pair rated together on fewer than 3 distinct units (any 2 points correlate ±1), in the
//   data or in a bootstrap resample.
// - Fisher z = atanh(r) with |r| clamped to 1 - 1e-12 (|z| <= 14.2), so a perfect pair stays
//   finite. Bootstrap: units resampled with parley's Rng; per resample the mean z over the
//   defined pairs; the type-7 percentile interval of those means, taken on the z scale and
//   back-transformed with tanh. Resamples with no defined pair are skipped.
// - Intervals are at level 1 - ci_alpha; an interval with no estimate to rest on is {NaN, NaN}.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "parley/stats.h"

namespace parley {

// ratings[u][r]: rater r's value for unit u, std::nullopt when r did not rate u.
using RatingRow = std::vector<std::optional<double>>;

// The metric of the difference between two values (Krippendorff 2011, §C).
enum class MeasurementLevel {
  kNominal,   // delta = 0 if equal, else 1
  kInterval,  // delta = (a - b)^2
};

// Krippendorff's alpha over `ratings` (rows may differ in length). NaN when undefined.
double krippendorff_alpha(std::span<const RatingRow> ratings, MeasurementLevel level);

// Percentile bootstrap interval of krippendorff_alpha: `resamples` draws of the pairable units
// with replacement (parley's Rng seeded by `seed`); resamples with alpha undefined are skipped.
Interval krippendorff_alpha_ci(std::span<const RatingRow> ratings, MeasurementLevel level, std::uint64_t seed,
                               int resamples = 2000, double ci_alpha = 0.05);

// Pearson's r of paired values (equal lengths), clamped to [-1, 1]. NaN when undefined (or
// given a NaN).
double pearson_correlation(std::span<const double> x, std::span<const double> y);

// Ranks 1..n in the input order; tied values share the mean of their ranks. NaN throws.
std::vector<double> average_ranks(std::span<const double> values);

// Spearman's rho: Pearson's r of the average ranks (ties averaged). NaN when undefined.
double spearman_correlation(std::span<const double> x, std::span<const double> y);

enum class CorrelationKind { kPearson, kSpearman };

// Correlation across raters, MACI Table 10 "Pearson (avg pairwise) 0.71 (±0.05) [0.66, 0.76]".
struct PairwiseCorrelation {
  double mean = 0.0;         // arithmetic mean of the defined pairwise r (the paper's 0.71)
  double sd = 0.0;           // their sample SD (n - 1), the paper's ±; NaN with fewer than 2
  double fisher_mean = 0.0;  // tanh(mean atanh r), the centre of the interval's scale
  Interval ci;               // Fisher-z bootstrap over units (see the header comment)
  int pairs = 0;             // rater pairs with a defined correlation
};

// Over the R(R-1)/2 pairs of raters (R = the rows' common length, at least 2), each on the
// units both rated. No units: nothing defined (pairs = 0, NaN).
PairwiseCorrelation mean_pairwise_correlation(std::span<const RatingRow> ratings, CorrelationKind kind,
                                              std::uint64_t seed, int resamples = 2000,
                                              double ci_alpha = 0.05);

// Scores of the same items presented in two orders (A->B, then B->A), MACI Table 10's order
// invariance: |delta| = |forward - reverse| per item.
struct OrderInvariance {
  double mean_abs_difference = 0.0;
  double sd_abs_difference = 0.0;   // sample SD (n - 1); NaN with fewer than 2 items
  Interval mean_abs_difference_ci;  // bootstrap_mean_ci of the |delta|
  double share_within = 0.0;        // share of |delta| < threshold (strict)
  Interval share_within_ci;         // wilson_interval of that count
  PairwiseCorrelation spearman;     // forward vs reverse as two raters
};
OrderInvariance order_invariance(std::span<const double> forward, std::span<const double> reverse,
                                 std::uint64_t seed, double threshold = 0.05, int resamples = 2000,
                                 double ci_alpha = 0.05);

}  // namespace parley
