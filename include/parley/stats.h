#pragma once
// Statistics used by reports: seeded bootstrap percentile intervals and Wilson score
// intervals; paired tests; two-sample t-tests, Cohen's d and the test of a Pearson correlation;
// scores of belief distributions (Acc@k, MRR, Brier) and the binned calibration error. Pure
// functions; deterministic for a given seed; safe from any thread.
// Agreement between raters (Krippendorff's alpha, correlations) is in parley/agreement.h.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace parley {

struct Interval {
  double lo = 0.0;
  double hi = 0.0;
};

// The means of `resamples` (at least 1) resamples of `values` with replacement, each drawing
// n indices with parley's Rng seeded by `seed`, in ascending order. Empty input gives none.
std::vector<double> bootstrap_means(std::span<const double> values, std::uint64_t seed, int resamples);

// Percentile bootstrap CI of the mean of `values`: the (alpha/2, 1-alpha/2) quantiles of
// bootstrap_means(values, seed, resamples) (linear interpolation between order statistics,
// the "type 7" rule), alpha in (0, 1). Empty input gives {0, 0}.
Interval bootstrap_mean_ci(std::span<const double> values, std::uint64_t seed,
                           int resamples = 2000, double alpha = 0.05);

// bootstrap_mean_ci of several quantities over the same units at once: `quantities[k][i]` is
// quantity k of unit i (every quantity has the same number of units). One stream of resamples
// (each drawing the unit indices as bootstrap_means does with `seed`) serves all of them, so
// interval k is exactly bootstrap_mean_ci(quantities[k], seed, resamples, alpha), for the
// draws of one quantity (a NaN bound may differ in sign: vector adds may swap NaN operands).
std::vector<Interval> bootstrap_mean_cis(std::span<const std::span<const double>> quantities, std::uint64_t seed,
                                         int resamples = 2000, double alpha = 0.05);

// Wilson score interval for `successes` out of `n` at level 1 - alpha (z from the normal
// quantile); `successes` is clamped to [0, n]. n = 0 gives {0, 1}.
Interval wilson_interval(std::int64_t successes, std::int64_t n, double alpha = 0.05);

// Quantile of sorted data with linear interpolation (type 7), p clamped to [0, 1]. Requires
// non-empty input.
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

// The BCa steps, exposed for tests. The interval from the sorted resampled means of `values`
// (any resampling: paired_bootstrap's random one, or a test's complete enumeration): z0 =
// Phi^-1(share of the means below mean(values), ties counting half, kept within
// [0.5/B, 1 - 0.5/B]), then the type-7 quantiles at bca_levels(z0, acceleration). The jackknife
// acceleration of the mean, a = sum (d_i - mean)^3 / (6 (sum (d_i - mean)^2)^(3/2)). The
// adjusted quantile levels Phi(z0 + (z0 + z_p) / (1 - a (z0 + z_p))), p = alpha/2, 1 - alpha/2.
Interval bca_interval(std::span<const double> values, std::span<const double> sorted_means, double alpha);
double jackknife_acceleration_of_mean(std::span<const double> differences);
Interval bca_levels(double z0, double acceleration, double alpha);

// Two-sided paired permutation (sign-flip) test of mean difference = 0. Exact over all 2^n
// sign patterns when n <= exact_limit; otherwise Monte Carlo with `resamples` random patterns
// and p = (1 + #{|T*| >= |T|}) / (1 + resamples). Zero differences take part (they flip to
// themselves). Empty input gives p = 1.
double paired_permutation_p(std::span<const double> differences, std::uint64_t seed, int resamples = 10000,
                            int exact_limit = 20);

// Wilcoxon signed-rank test, two-sided, as R's wilcox.test(x, y, paired = TRUE) with its
// defaults (exact = NULL, correct = TRUE, zero.method = "Wilcoxon"): zero differences are
// dropped; tied |d| get average ranks; `statistic` is W+ (the sum of the ranks of the positive
// differences, R's V). The p-value is exact (the null distribution of W+) only when fewer than
// 50 differences remain and none were zero or tied; otherwise it is the normal approximation
// with the tie-corrected variance n(n+1)(2n+1)/24 - sum(t^3 - t)/48 and the continuity
// correction: z = (W+ - n(n+1)/4 - sign(W+ - n(n+1)/4)/2) / sd, p = 2 Phi(-|z|).
// Departures from R: |d| within 1e-12 (relative to max(1, |d|)) of each other count as tied
// and |d| <= 1e-12 as zero, so rounding noise in metric differences neither breaks a tie nor
// makes a zero (R compares exactly); no difference left gives p = 1 (R stops with an error).
struct SignedRankTest {
  double statistic = 0.0;
  std::int64_t n = 0;      // non-zero differences
  std::int64_t zeros = 0;  // differences dropped as zero
  bool ties = false;       // two non-zero |d| share a rank
  double p = 1.0;
  bool exact = false;
};
SignedRankTest wilcoxon_signed_rank(std::span<const double> differences);

// Family-wise adjustments of p-values, returned in the input order.
std::vector<double> holm_adjust(std::span<const double> p_values);                // Holm 1979
std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values);  // BH 1995 (FDR)

// ---- Two independent samples, and the test of a correlation --------------------------------
// UDPO's diagnosis (§3.2, Fig. 2–3; reading guide U-20): failed against successful debates, and
// the correlation of uncertainty with correctness. p-values are two-sided, from Student's t
// distribution (Boost.Math). An undefined result is std::nullopt, never a number: fewer than 2
// values in a group (no variance to estimate), or no spread at all (see each function). Values
// are finite: a NaN reaching the t distribution makes Boost throw std::domain_error.

// Sample variance (n − 1 denominator) about a mean taken as offsets from the first value, so n
// equal values give exactly 0. NaN with fewer than two values.
double sample_variance(std::span<const double> values);

struct TTest {
  double t = 0.0;   // (mean(a) − mean(b)) / standard error
  double df = 0.0;  // degrees of freedom (fractional for Welch)
  double p = 1.0;   // two-sided, 2 P(T_df > |t|)
};

// Welch's unequal-variance t-test (scipy.stats.ttest_ind(a, b, equal_var=False)): standard error
// sqrt(s_a²/n_a + s_b²/n_b), Welch–Satterthwaite df. nullopt when a group has fewer than 2 values
// or both variances are 0 (the standard error is 0: t is ±∞ or 0/0).
std::optional<TTest> welch_t_test(std::span<const double> a, std::span<const double> b);

// Student's pooled-variance t-test (scipy.stats.ttest_ind(a, b, equal_var=True)): standard error
// s_pooled sqrt(1/n_a + 1/n_b), df = n_a + n_b − 2. nullopt when a group has fewer than 2 values
// or s_pooled = 0 (both groups constant).
std::optional<TTest> student_t_test(std::span<const double> a, std::span<const double> b);

// Cohen's d with the pooled SD (Cohen 2013; UDPO Fig. 2): (mean(a) − mean(b)) / s_pooled,
// s_pooled = sqrt(((n_a − 1)s_a² + (n_b − 1)s_b²) / (n_a + n_b − 2)). nullopt when a group has
// fewer than 2 values or s_pooled = 0.
std::optional<double> cohens_d(std::span<const double> a, std::span<const double> b);

struct CorrelationTest {
  double r = 0.0;      // pearson_correlation (parley/agreement.h)
  std::int64_t n = 0;  // pairs
  double p = 1.0;      // two-sided: t = r sqrt((n − 2) / (1 − r²)), Student t with n − 2 df
};

// Pearson's r of paired values (equal lengths, else std::invalid_argument) with its two-sided
// p-value, as scipy.stats.pearsonr. With a 0/1 side it is the point-biserial correlation.
// nullopt when n < 3 (no degree of freedom) or r is undefined (a constant side). |r| = 1 gives
// p = 0.
std::optional<CorrelationTest> pearson_test(std::span<const double> x, std::span<const double> y);

// ---- Scoring belief distributions over a finite label set ----------------------------------
// MACI Tables 2-4 (Acc@1, Acc@3, MRR, Brier, ECE; reading guide A.5 gives the definitions).
// `belief[y]` is the probability of label y: finite and >= 0, not necessarily summing to 1
// (MACI M-36: the caller renormalises or keeps an "other" label); `gold` indexes it. A label
// with probability 0 is not listed: it is never a hit and its reciprocal rank is 0, so an empty
// (all-zero) answer scores nothing. Invalid input (empty belief, gold out of range, a negative
// or non-finite probability) throws std::invalid_argument.

// 1 + the labels with a strictly higher probability + the tied labels with a lower index: ties
// are broken by label order, as an argmax that takes the first maximum.
std::int64_t gold_rank(std::span<const double> belief, std::size_t gold);

// Acc@k of one answer: p(gold) > 0 and gold_rank <= k.
bool gold_in_top_k(std::span<const double> belief, std::size_t gold, std::int64_t k);

// 1 / gold_rank, or 0 when p(gold) = 0 (MRR is its mean).
double reciprocal_rank(std::span<const double> belief, std::size_t gold);

// Multi-class Brier score sum_y (p(y) - 1[y = gold])^2, without a 1/|Y| factor: in [0, 2] for a
// distribution (the population score is its mean).
double brier_score(std::span<const double> belief, std::size_t gold);

// The first label of highest probability, and that probability (the top-1 confidence).
struct TopChoice {
  std::size_t label = 0;
  double confidence = 0.0;
};
TopChoice top_choice(std::span<const double> belief);

// Top-1 binary Brier score (confidence - correct)^2, correct = gold_in_top_k(belief, gold, 1).
double top1_brier_score(std::span<const double> belief, std::size_t gold);

// Bin of a confidence among `bins` (>= 1) equal-width bins of [0, 1]: bin b holds
// [b/bins, (b+1)/bins), and 1.0 the last bin. floor(confidence * bins) in double (decimal edges
// k/10 multiply exactly, so 0.3 is in [0.3, 0.4)); below 0 or NaN gives bin 0, above 1 the last.
int calibration_bin(double confidence, int bins);

// Expected calibration error sum_b (n_b / n) |acc_b - conf_b| = sum_b |sum_{i in b} (confidence_i
// - correct_i)| / n, bins by calibration_bin (10 for MACI; iMAD eq. 8 uses 15). `correct` holds
// 0 or 1 per item, confidences lie in [0, 1]; otherwise, or when lengths differ or bins < 1,
// throws std::invalid_argument. No items give 0.
double binned_calibration_error(std::span<const double> confidences, std::span<const int> correct,
                                int bins = 10);

}  // namespace parley
