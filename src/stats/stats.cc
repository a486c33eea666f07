// Means, type-7 quantiles, seeded bootstrap resampling, the percentile bootstrap interval and
// Wilson score intervals.

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/hash.h"
#include "parley/stats.h"

namespace parley {

double mean(std::span<const double> values) {
  if (values.empty()) return 0.0;
  double sum = 0.0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double quantile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0.0;  // documented as a precondition; stay defined anyway
  const std::size_t last = sorted.size() - 1;
  const double position = std::clamp(p, 0.0, 1.0) * static_cast<double>(last);
  // At p = 1 both neighbours are the last value, so the result is exactly it.
  const std::size_t below = std::min(static_cast<std::size_t>(std::floor(position)), last);
  const std::size_t above = std::min(below + 1, last);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

std::vector<double> bootstrap_means(std::span<const double> values, std::uint64_t seed, int resamples) {
  if (values.empty()) return {};
  const std::size_t n = values.size();
  Rng rng(seed);
  const UniformIndex index(n);
  std::vector<double> means(static_cast<std::size_t>(std::max(resamples, 1)));
  for (double& resampled_mean : means) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += values[index(rng)];
    resampled_mean = sum / static_cast<double>(n);
  }
  std::sort(means.begin(), means.end());
  return means;
}

Interval bootstrap_mean_ci(std::span<const double> values, std::uint64_t seed, int resamples, double alpha) {
  if (values.empty()) return {};
  const std::vector<double> means = bootstrap_means(values, seed, resamples);
  return {quantile_sorted(means, alpha / 2.0), quantile_sorted(means, 1.0 - alpha / 2.0)};
}

namespace {

// Adds, for each of `width` quantities starting at `first`, the drawn units' values in draw
// order. The sums live in a fixed-size local array the compiler keeps in vector registers.
template <std::size_t width>
void add_drawn(const std::vector<double>& units, const std::vector<std::size_t>& drawn, std::size_t first,
               double* sums) {
  double local[width] = {};
  for (const std::size_t row : drawn) {
    const double* values = &units[row + first];
    for (std::size_t k = 0; k < width; ++k) local[k] += values[k];
  }
  for (std::size_t k = 0; k < width; ++k) sums[k] = local[k];
}

}  // namespace

std::vector<Interval> bootstrap_mean_cis(std::span<const std::span<const double>> quantities, std::uint64_t seed,
                                         int resamples, double alpha) {
  const std::size_t k_count = quantities.size();
  std::vector<Interval> out(k_count);
  if (k_count == 0 || quantities.front().empty()) return out;
  const std::size_t n = quantities.front().size();
  for (const auto& quantity : quantities) {
    if (quantity.size() != n) throw std::invalid_argument("bootstrap_mean_cis: quantities of different lengths");
  }
  // Unit-major, so one drawn index reads all of its unit's quantities at once; the sums of a
  // resample are taken 8, 4, 2 or 1 quantities at a time (no padding lanes to add). Each
  // quantity's sum still adds its draws in draw order, as bootstrap_means does, so the results
  // are the same to the bit (a NaN's sign aside).
  std::vector<double> units(n * k_count);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < k_count; ++k) units[i * k_count + k] = quantities[k][i];
  const std::size_t draws = static_cast<std::size_t>(std::max(resamples, 1));
  std::vector<double> means(k_count * draws);  // quantity-major: each quantity's means together
  std::vector<std::size_t> drawn(n);
  std::vector<double> sums(k_count);
  Rng rng(seed);
  const UniformIndex index(n);
  for (std::size_t b = 0; b < draws; ++b) {
    for (std::size_t& row : drawn) row = index(rng) * k_count;
    for (std::size_t first = 0; first < k_count;) {
      const std::size_t left = k_count - first;
      if (left >= 8) {
        add_drawn<8>(units, drawn, first, &sums[first]), first += 8;
      } else if (left >= 4) {
        add_drawn<4>(units, drawn, first, &sums[first]), first += 4;
      } else if (left >= 2) {
        add_drawn<2>(units, drawn, first, &sums[first]), first += 2;
      } else {
        add_drawn<1>(units, drawn, first, &sums[first]), first += 1;
      }
    }
    for (std::size_t k = 0; k < k_count; ++k) means[k * draws + b] = sums[k] / static_cast<double>(n);
  }
  for (std::size_t k = 0; k < k_count; ++k) {
    const std::span<double> sorted(&means[k * draws], draws);
    std::sort(sorted.begin(), sorted.end());
    out[k] = {quantile_sorted(sorted, alpha / 2.0), quantile_sorted(sorted, 1.0 - alpha / 2.0)};
  }
  return out;
}

Interval wilson_interval(std::int64_t successes, std::int64_t n, double alpha) {
  if (n <= 0) return {0.0, 1.0};
  successes = std::clamp<std::int64_t>(successes, 0, n);
  const double z = normal_quantile(1.0 - alpha / 2.0);
  const double trials = static_cast<double>(n);
  const double share = static_cast<double>(successes) / trials;
  const double z2 = z * z;
  const double denominator = 1.0 + z2 / trials;
  const double centre = (share + z2 / (2.0 * trials)) / denominator;
  const double half_width =
      z * std::sqrt(share * (1.0 - share) / trials + z2 / (4.0 * trials * trials)) / denominator;
  // At 0 or n successes the formula's bound is exactly 0 or 1; pin it against rounding.
  const double lo = successes == 0 ? 0.0 : std::max(0.0, centre - half_width);
  const double hi = successes == n ? 1.0 : std::min(1.0, centre + half_width);
  return {lo, hi};
}

}  // namespace parley
