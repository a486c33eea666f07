// Paired comparisons over matched units: bootstrap CIs (percentile and BCa) of the mean
// difference, the sign-flip permutation test, the Wilcoxon signed-rank test, and the Holm and
// Benjamini–Hochberg adjustments. Used by `parley compare` (debate-protocols §2: paired
// permutation tests with Holm–Bonferroni; MACI: BCa CIs, paired Wilcoxon with BH FDR).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "core/hash.h"
#include "parley/stats.h"

namespace parley {
namespace {

bool all_equal(std::span<const double> values) {
  return std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) == values.end();
}

// Ties within this relative distance count as equal (differences of token counts are
// integers; accuracy differences are -1, 0, 1), so the comparisons below are exact in use.
bool same(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::max(std::abs(a), std::abs(b))); }

}  // namespace

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

double jackknife_acceleration_of_mean(std::span<const double> differences) {
  // For the mean, theta_(.) - theta_(i) = (d_i - mean) / (n - 1); the scale cancels.
  const double centre = mean(differences);
  double squares = 0.0, cubes = 0.0;
  for (double d : differences) {
    const double deviation = d - centre;
    squares += deviation * deviation;
    cubes += deviation * deviation * deviation;
  }
  if (squares <= 0.0) return 0.0;
  return cubes / (6.0 * std::pow(squares, 1.5));
}

Interval bca_levels(double z0, double acceleration, double alpha) {
  auto level = [&](double p) {
    const double z = z0 + normal_quantile(p);
    return normal_cdf(z0 + z / (1.0 - acceleration * z));
  };
  return {level(alpha / 2.0), level(1.0 - alpha / 2.0)};
}

Interval bca_interval(std::span<const double> values, std::span<const double> sorted_means, double alpha) {
  if (sorted_means.empty()) return {};
  // Bias: the share of resampled means below the observed mean (ties count half), kept off
  // 0 and 1 so that z0 stays finite.
  const double observed = mean(values);
  const auto below = std::lower_bound(sorted_means.begin(), sorted_means.end(), observed) - sorted_means.begin();
  const auto not_above = std::upper_bound(sorted_means.begin(), sorted_means.end(), observed) - sorted_means.begin();
  const double rounds = static_cast<double>(sorted_means.size());
  const double share = std::clamp((static_cast<double>(below) + static_cast<double>(not_above)) / 2.0 / rounds,
                                  0.5 / rounds, 1.0 - 0.5 / rounds);
  const Interval levels = bca_levels(normal_quantile(share), jackknife_acceleration_of_mean(values), alpha);
  return {quantile_sorted(sorted_means, levels.lo), quantile_sorted(sorted_means, levels.hi)};
}

PairedBootstrap paired_bootstrap(std::span<const double> differences, std::uint64_t seed, int resamples,
                                 double alpha) {
  PairedBootstrap result;
  if (differences.empty()) return result;
  result.mean_difference = mean(differences);
  if (all_equal(differences)) {
    result.percentile = result.bca = {result.mean_difference, result.mean_difference};
    return result;
  }
  const std::vector<double> means = bootstrap_means(differences, seed, resamples);
  result.percentile = {quantile_sorted(means, alpha / 2.0), quantile_sorted(means, 1.0 - alpha / 2.0)};
  result.bca = bca_interval(differences, means, alpha);
  return result;
}

double paired_permutation_p(std::span<const double> differences, std::uint64_t seed, int resamples,
                            int exact_limit) {
  const std::size_t n = differences.size();  // n = 0: the one empty pattern, p = 1
  // The statistic is |sum|, equivalent to |mean| for a fixed n.
  const double observed = std::abs(std::accumulate(differences.begin(), differences.end(), 0.0));
  auto at_least_as_extreme = [&](double sum) { return std::abs(sum) >= observed || same(std::abs(sum), observed); };
  if (n <= static_cast<std::size_t>(std::max(exact_limit, 0)) && n < 63) {
    const std::uint64_t patterns = std::uint64_t{1} << n;
    std::uint64_t extreme = 0;
    for (std::uint64_t signs = 0; signs < patterns; ++signs) {
      double sum = 0.0;
      for (std::size_t i = 0; i < n; ++i) sum += (signs >> i & 1U) ? -differences[i] : differences[i];
      extreme += at_least_as_extreme(sum);
    }
    return static_cast<double>(extreme) / static_cast<double>(patterns);
  }
  Rng rng(seed);
  const int rounds = std::max(resamples, 1);
  int extreme = 0;
  for (int r = 0; r < rounds; ++r) {
    double sum = 0.0;
    for (double d : differences) sum += (rng.next() >> 63) ? -d : d;
    extreme += at_least_as_extreme(sum);
  }
  return (1.0 + extreme) / (1.0 + rounds);
}

SignedRankTest wilcoxon_signed_rank(std::span<const double> differences) {
  SignedRankTest test;
  std::vector<double> nonzero;
  for (double d : differences) {
    if (same(std::abs(d), 0.0)) {
      ++test.zeros;
    } else {
      nonzero.push_back(d);
    }
  }
  const std::size_t n = nonzero.size();
  test.n = static_cast<std::int64_t>(n);
  if (n == 0) return test;

  // Average ranks of |d|, and the tie correction sum (t^3 - t) over tie groups.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::abs(nonzero[a]) < std::abs(nonzero[b]); });
  std::vector<double> rank(n);
  double tie_correction = 0.0;
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start + 1;
    while (end < n && same(std::abs(nonzero[order[end]]), std::abs(nonzero[order[start]]))) ++end;
    const double average = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2.0;
    for (std::size_t k = start; k < end; ++k) rank[order[k]] = average;
    const double t = static_cast<double>(end - start);
    tie_correction += t * t * t - t;
    start = end;
  }
  test.ties = tie_correction > 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (nonzero[i] > 0) test.statistic += rank[i];

  const double count = static_cast<double>(n);
  const double expected = count * (count + 1.0) / 4.0;
  // R: exact <- (n < 50), and the exact branch only if !TIES && !ZEROES.
  if (n < 50 && !test.ties && test.zeros == 0) {
    // Exact null distribution of W+ up to the smaller tail's end w: the number of subsets of
    // {1..n} with each rank sum s <= w (by symmetry P(W+ >= V) = P(W+ <= n(n+1)/2 - V)).
    const auto w = static_cast<std::size_t>(std::llround(std::min(test.statistic, count * (count + 1.0) / 2.0 - test.statistic)));
    std::vector<double> ways(w + 1, 0.0);
    ways[0] = 1.0;
    for (std::size_t r = 1; r <= n; ++r)
      for (std::size_t s = w; s >= r; --s) ways[s] += ways[s - r];
    double tail = 0.0;
    for (double count_of_sum : ways) tail += count_of_sum;
    test.p = std::min(1.0, 2.0 * tail / std::ldexp(1.0, static_cast<int>(n)));
    test.exact = true;
    return test;
  }
  // Positive for n >= 1: with every |d| tied it is n (3n^2 + 6n + 3) / 48.
  const double variance = count * (count + 1.0) * (2.0 * count + 1.0) / 24.0 - tie_correction / 48.0;
  // R's CORRECTION = sign(z) * 0.5 for the two-sided test.
  const double centred = test.statistic - expected;
  const double corrected = centred - (centred > 0.0 ? 0.5 : centred < 0.0 ? -0.5 : 0.0);
  test.p = 2.0 * normal_cdf(-std::abs(corrected) / std::sqrt(variance));
  return test;
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running_max = 0.0;
  for (std::size_t k = 0; k < m; ++k) {
    running_max = std::max(running_max, std::min(1.0, static_cast<double>(m - k) * p_values[order[k]]));
    adjusted[order[k]] = running_max;
  }
  return adjusted;
}

std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running_min = 1.0;
  for (std::size_t k = m; k-- > 0;) {
    running_min = std::min(running_min, static_cast<double>(m) * p_values[order[k]] / static_cast<double>(k + 1));
    adjusted[order[k]] = running_min;
  }
  return adjusted;
}

}  // namespace parley
