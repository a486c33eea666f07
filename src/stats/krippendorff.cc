// Krippendorff's alpha for nominal and interval data, and its bootstrap over units.
// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", in the per-unit form: over
// the units with m_u >= 2 values (n values in all),
//   D_o = (1/n) sum_u sum_{i != j in u} delta(v_i, v_j) / (m_u - 1),
//   D_e = sum_{i != j among all n values} delta(v_i, v_j) / (n (n - 1)),   alpha = 1 - D_o / D_e.
// Each unit is reduced once to a few sums, so a bootstrap resample costs one pass over its units.

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

// A unit's pairable values, as alpha needs them.
struct UnitSums {
  double count = 0.0;    // m_u
  double mean = 0.0;     // interval: the mean of the values
  double squares = 0.0;  // interval: sum of squared deviations from the mean
  std::vector<std::pair<std::size_t, double>> categories;  // nominal: (category, values in it)
};

class PairableUnits {
 public:
  PairableUnits(std::span<const RatingRow> ratings, MeasurementLevel level) : level_(level) {
    std::vector<double> distinct;
    for (const RatingRow& row : ratings) {
      for (const std::optional<double>& value : row) {
        if (value && !std::isfinite(*value))
          throw std::invalid_argument("krippendorff_alpha: non-finite rating");
        if (value) distinct.push_back(*value);
      }
    }
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    categories_ = distinct.size();
    for (const RatingRow& row : ratings) {
      std::vector<double> values;
      for (const std::optional<double>& value : row) {
        if (value) values.push_back(*value);
      }
      if (values.size() < 2) continue;  // not pairable (Krippendorff 2011, §A)
      units_.push_back(level == MeasurementLevel::kNominal ? nominal_sums(values, distinct)
                                                           : interval_sums(values));
    }
  }

  std::size_t size() const { return units_.size(); }

  // Alpha of the multiset of units `drawn` (indices into this set, repeats allowed).
  double alpha(std::span<const std::size_t> drawn) const {
    if (drawn.empty()) return kUndefined;
    return level_ == MeasurementLevel::kNominal ? nominal_alpha(drawn) : interval_alpha(drawn);
  }

 private:
  // Deviations are taken from the first value, so equal values give a mean of exactly that value
  // and no squares: perfect agreement gives alpha = 1 exactly, one value throughout NaN.
  static UnitSums interval_sums(const std::vector<double>& values) {
    UnitSums unit;
    unit.count = static_cast<double>(values.size());
    double shifted = 0.0;
    for (double v : values) shifted += v - values.front();
    unit.mean = values.front() + shifted / unit.count;
    for (double v : values) unit.squares += (v - unit.mean) * (v - unit.mean);
    return unit;
  }

  static UnitSums nominal_sums(std::vector<double> values, const std::vector<double>& distinct) {
    UnitSums unit;
    unit.count = static_cast<double>(values.size());
    std::sort(values.begin(), values.end());
    for (std::size_t i = 0; i < values.size();) {
      std::size_t j = i;
      while (j < values.size() && values[j] == values[i]) ++j;
      const auto category = std::lower_bound(distinct.begin(), distinct.end(), values[i]) - distinct.begin();
      unit.categories.emplace_back(static_cast<std::size_t>(category), static_cast<double>(j - i));
      i = j;
    }
    return unit;
  }

  // sum_{i != j in u} (v_i - v_j)^2 = 2 m_u SS_u, and over all values 2 n SS; so
  // alpha = 1 - (n - 1) sum_u (m_u SS_u / (m_u - 1)) / (n SS), SS the pooled sum of squares.
  double interval_alpha(std::span<const std::size_t> drawn) const {
    const double reference = units_[drawn.front()].mean;
    double n = 0.0, within = 0.0, shifted = 0.0;
    for (std::size_t u : drawn) {
      const UnitSums& unit = units_[u];
      n += unit.count;
      within += unit.count * unit.squares / (unit.count - 1.0);
      shifted += unit.count * (unit.mean - reference);
    }
    const double grand = reference + shifted / n;
    double pooled = 0.0;
    for (std::size_t u : drawn) {
      const UnitSums& unit = units_[u];
      pooled += unit.squares + unit.count * (unit.mean - grand) * (unit.mean - grand);
    }
    if (pooled == 0.0) return kUndefined;  // one value throughout: D_e = 0
    return 1.0 - (n - 1.0) * within / (n * pooled);
  }

  // sum_{i != j in u} 1[v_i != v_j] = m_u^2 - sum_c n_uc^2, and over all values n^2 - sum_c N_c^2.
  double nominal_alpha(std::span<const std::size_t> drawn) const {
    std::vector<double> totals(categories_, 0.0);
    double n = 0.0, within = 0.0;
    for (std::size_t u : drawn) {
      const UnitSums& unit = units_[u];
      double same = 0.0;
      for (const auto& [category, count] : unit.categories) {
        same += count * count;
        totals[category] += count;
      }
      n += unit.count;
      within += (unit.count * unit.count - same) / (unit.count - 1.0);
    }
    double same_total = 0.0;
    for (double total : totals) same_total += total * total;
    const double expected = n * n - same_total;
    if (expected == 0.0) return kUndefined;  // one category throughout: D_e = 0
    return 1.0 - (n - 1.0) * within / expected;
  }

  MeasurementLevel level_;
  std::size_t categories_ = 0;
  std::vector<UnitSums> units_;
};

}  // namespace

double krippendorff_alpha(std::span<const RatingRow> ratings, MeasurementLevel level) {
  const PairableUnits units(ratings, level);
  std::vector<std::size_t> all(units.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  return units.alpha(all);
}

Interval krippendorff_alpha_ci(std::span<const RatingRow> ratings, MeasurementLevel level, std::uint64_t seed,
                               int resamples, double ci_alpha) {
  const PairableUnits units(ratings, level);
  if (units.size() == 0) return {kUndefined, kUndefined};
  Rng rng(seed);
  const UniformIndex index(units.size());
  std::vector<std::size_t> drawn(units.size());
  std::vector<double> alphas;
  for (int b = 0; b < std::max(resamples, 1); ++b) {
    for (std::size_t& u : drawn) u = index(rng);
    const double alpha = units.alpha(drawn);
    if (!std::isnan(alpha)) alphas.push_back(alpha);
  }
  if (alphas.empty()) return {kUndefined, kUndefined};
  std::sort(alphas.begin(), alphas.end());
  return {quantile_sorted(alphas, ci_alpha / 2.0), quantile_sorted(alphas, 1.0 - ci_alpha / 2.0)};
}

}  // namespace parley
