// Pearson and Spearman correlation, the mean pairwise correlation across raters with its
// Fisher-z bootstrap interval (MACI App. E.7: "bootstrap CIs on Fisher-z transformed
// coefficients"), and the order-invariance summary of MACI Table 10.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/hash.h"
#include "parley/agreement.h"

namespace parley {
namespace {

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();
constexpr double kLargestAbsR = 1.0 - 1e-12;  // keeps atanh finite for a perfect pair

// Mean taken as offsets from the first value, so n equal values give exactly that value.
double shifted_mean(std::span<const double> values) {
  double offsets = 0.0;
  for (double v : values) offsets += v - values.front();
  return values.front() + offsets / static_cast<double>(values.size());
}

// Sample standard deviation (n - 1); NaN with fewer than two values.
double sample_sd(std::span<const double> values) { return std::sqrt(sample_variance(values)); }

double fisher_z(double r) { return std::atanh(std::clamp(r, -kLargestAbsR, kLargestAbsR)); }

// Number of raters: the rows' common length; every rating finite.
std::size_t rater_count(std::span<const RatingRow> ratings) {
  const std::size_t raters = ratings.empty() ? 0 : ratings.front().size();
  for (const RatingRow& row : ratings) {
    if (row.size() != raters) throw std::invalid_argument("mean_pairwise_correlation: rows differ in length");
    for (const std::optional<double>& value : row) {
      if (value && !std::isfinite(*value))
        throw std::invalid_argument("mean_pairwise_correlation: non-finite rating");
    }
  }
  return raters;
}

// The correlation of every rater pair (a < b, in order (0,1), (0,2), ..., (1,2), ...) over the
// units `drawn` (repeats allowed) that both rated; NaN where undefined.
std::vector<double> pair_correlations(std::span<const RatingRow> ratings, std::size_t raters,
                                      std::span<const std::size_t> drawn, CorrelationKind kind) {
  // Two distinct units make any correlation ±1: a resample drawing only those says nothing, and
  // its z of ±14 would swamp the bootstrap; such a pair is undefined.
  constexpr std::size_t kMinDistinctUnits = 3;
  std::vector<double> out;
  std::vector<double> x, y;
  std::vector<std::size_t> used;
  for (std::size_t a = 0; a < raters; ++a) {
    for (std::size_t b = a + 1; b < raters; ++b) {
      x.clear(), y.clear(), used.clear();
      for (std::size_t u : drawn) {
        if (!ratings[u][a] || !ratings[u][b]) continue;
        x.push_back(*ratings[u][a]);
        y.push_back(*ratings[u][b]);
        used.push_back(u);
      }
      std::sort(used.begin(), used.end());
      const auto distinct = static_cast<std::size_t>(std::unique(used.begin(), used.end()) - used.begin());
      if (distinct < kMinDistinctUnits) {
        out.push_back(kUndefined);
        continue;
      }
      out.push_back(kind == CorrelationKind::kPearson ? pearson_correlation(x, y)
                                                      : spearman_correlation(x, y));
    }
  }
  return out;
}

// The mean Fisher z of the defined correlations; NaN when none is defined.
double mean_fisher_z(std::span<const double> correlations) {
  double sum = 0.0;
  int defined = 0;
  for (double r : correlations) {
    if (std::isnan(r)) continue;
    sum += fisher_z(r);
    ++defined;
  }
  return defined == 0 ? kUndefined : sum / defined;
}

}  // namespace

double pearson_correlation(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("pearson_correlation: inputs differ in length");
  if (x.size() < 2) return kUndefined;
  const double mean_x = shifted_mean(x), mean_y = shifted_mean(y);
  double sxx = 0.0, syy = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double dx = x[i] - mean_x, dy = y[i] - mean_y;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  if (sxx == 0.0 || syy == 0.0) return kUndefined;  // a constant side
  return std::clamp(sxy / (std::sqrt(sxx) * std::sqrt(syy)), -1.0, 1.0);
}

std::vector<double> average_ranks(std::span<const double> values) {
  for (double v : values) {
    if (std::isnan(v)) throw std::invalid_argument("average_ranks: NaN value");
  }
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && values[order[j]] == values[order[i]]) ++j;
    const double shared = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k) ranks[order[k]] = shared;
    i = j;
  }
  return ranks;
}

double spearman_correlation(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("spearman_correlation: inputs differ in length");
  return pearson_correlation(average_ranks(x), average_ranks(y));
}

PairwiseCorrelation mean_pairwise_correlation(std::span<const RatingRow> ratings, CorrelationKind kind,
                                              std::uint64_t seed, int resamples, double ci_alpha) {
  const std::size_t raters = rater_count(ratings);
  if (!ratings.empty() && raters < 2)
    throw std::invalid_argument("mean_pairwise_correlation: fewer than 2 raters");
  std::vector<std::size_t> units(ratings.size());
  std::iota(units.begin(), units.end(), std::size_t{0});
  std::vector<double> defined;
  const std::vector<double> correlations = pair_correlations(ratings, raters, units, kind);
  for (double r : correlations) {
    if (!std::isnan(r)) defined.push_back(r);
  }
  PairwiseCorrelation out;
  out.pairs = static_cast<int>(defined.size());
  out.mean = defined.empty() ? kUndefined : mean(defined);
  out.sd = sample_sd(defined);
  out.fisher_mean = std::tanh(mean_fisher_z(defined));
  out.ci = {kUndefined, kUndefined};
  if (units.empty()) return out;

  Rng rng(seed);
  const UniformIndex index(units.size());
  std::vector<double> mean_z;
  for (int b = 0; b < std::max(resamples, 1); ++b) {
    for (std::size_t& u : units) u = index(rng);
    const double z = mean_fisher_z(pair_correlations(ratings, raters, units, kind));
    if (!std::isnan(z)) mean_z.push_back(z);
  }
  if (mean_z.empty()) return out;
  std::sort(mean_z.begin(), mean_z.end());
  out.ci = {std::tanh(quantile_sorted(mean_z, ci_alpha / 2.0)),
            std::tanh(quantile_sorted(mean_z, 1.0 - ci_alpha / 2.0))};
  return out;
}

OrderInvariance order_invariance(std::span<const double> forward, std::span<const double> reverse,
                                 std::uint64_t seed, double threshold, int resamples, double ci_alpha) {
  if (forward.size() != reverse.size())
    throw std::invalid_argument("order_invariance: inputs differ in length");
  std::vector<double> differences(forward.size());
  std::vector<RatingRow> rows(forward.size());
  std::int64_t within = 0;
  for (std::size_t i = 0; i < forward.size(); ++i) {
    differences[i] = std::abs(forward[i] - reverse[i]);
    if (differences[i] < threshold) ++within;
    rows[i] = {forward[i], reverse[i]};
  }
  const auto n = static_cast<std::int64_t>(forward.size());
  OrderInvariance out;
  out.mean_abs_difference = mean(differences);
  out.sd_abs_difference = sample_sd(differences);
  out.mean_abs_difference_ci = bootstrap_mean_ci(differences, seed, resamples, ci_alpha);
  out.share_within = n == 0 ? 0.0 : static_cast<double>(within) / static_cast<double>(n);
  out.share_within_ci = wilson_interval(within, n, ci_alpha);
  out.spearman = mean_pairwise_correlation(rows, CorrelationKind::kSpearman, seed, resamples, ci_alpha);
  return out;
}

}  // namespace parley
