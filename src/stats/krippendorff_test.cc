// krippendorff_alpha and krippendorff_alpha_ci. Expected values: Krippendorff (2011),
// "Computing Krippendorff's Alpha-Reliability" (worked example of 4 observers x 12 units), and
// small cases recomputed in exact rational arithmetic (python3 fractions.Fraction) from the
// definition alpha = 1 - D_o / D_e with all value pairs enumerated.

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "parley/agreement.h"

namespace parley {
namespace {

constexpr std::nullopt_t kMissing = std::nullopt;

// Krippendorff (2011), §C: rows are the 12 units, columns observers A-D, "." as kMissing.
std::vector<RatingRow> krippendorff_2011_example() {
  return {{1.0, 1.0, kMissing, 1.0}, {2.0, 2.0, 3.0, 2.0},           {3.0, 3.0, 3.0, 3.0},
          {3.0, 3.0, 3.0, 3.0},      {2.0, 2.0, 2.0, 2.0},           {1.0, 2.0, 3.0, 4.0},
          {4.0, 4.0, 4.0, 4.0},      {1.0, 1.0, 2.0, 1.0},           {2.0, 2.0, 2.0, 2.0},
          {kMissing, 5.0, 5.0, 5.0}, {kMissing, kMissing, 1.0, 1.0}, {kMissing, 3.0, kMissing, kMissing}};
}

// Alpha straight from the definition: every ordered pair of values within a unit, and every
// ordered pair among all pairable values (O(n^2); for checking the per-unit sums only).
double alpha_by_definition(const std::vector<std::vector<double>>& units, MeasurementLevel level) {
  auto delta = [level](double a, double b) {
    return level == MeasurementLevel::kNominal ? (a == b ? 0.0 : 1.0) : (a - b) * (a - b);
  };
  std::vector<double> all;
  double observed = 0.0;
  for (const auto& unit : units) {
    double within = 0.0;
    for (std::size_t i = 0; i < unit.size(); ++i)
      for (std::size_t j = 0; j < unit.size(); ++j)
        if (i != j) within += delta(unit[i], unit[j]);
    observed += within / static_cast<double>(unit.size() - 1);
    all.insert(all.end(), unit.begin(), unit.end());
  }
  const auto n = static_cast<double>(all.size());
  double expected = 0.0;
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = 0; j < all.size(); ++j)
      if (i != j) expected += delta(all[i], all[j]);
  return 1.0 - (observed / n) / (expected / (n * (n - 1.0)));
}

TEST(KrippendorffAlpha, Krippendorff2011WorkedExample) {
  const auto ratings = krippendorff_2011_example();
  // Krippendorff (2011) prints nominal alpha = 0.743 and interval alpha = 0.849; exactly
  // 1 - 0.2 / (152/195) = 113/152 and 1 - (13/30) / (112/39) = 2853/3360 (python3 Fraction).
  EXPECT_NEAR(krippendorff_alpha(ratings, MeasurementLevel::kNominal), 113.0 / 152.0, 1e-12);
  EXPECT_NEAR(krippendorff_alpha(ratings, MeasurementLevel::kInterval), 2853.0 / 3360.0, 1e-12);
}

TEST(KrippendorffAlpha, SmallCasesByHand) {
  // Two raters swapping two values: n = 4, D_o = 1 (nominal), D_e = 8/12 -> 1 - 1.5 = -0.5;
  // interval the same (delta = 1 for every differing pair).
  const std::vector<RatingRow> swapped = {{1.0, 2.0}, {2.0, 1.0}};
  EXPECT_NEAR(krippendorff_alpha(swapped, MeasurementLevel::kNominal), -0.5, 1e-12);
  EXPECT_NEAR(krippendorff_alpha(swapped, MeasurementLevel::kInterval), -0.5, 1e-12);
  // Levels differ: nominal 11/38, interval 13/16 (python3 Fraction, enumerating all pairs). The
  // unit with one value ({-, 2, -}) is dropped.
  const std::vector<RatingRow> mixed = {{1.0, 2.0, kMissing},
                                        {3.0, 3.0, 3.0},
                                        {5.0, 4.0, kMissing},
                                        {kMissing, 2.0, kMissing},
                                        {2.0, 2.0, 1.0}};
  EXPECT_NEAR(krippendorff_alpha(mixed, MeasurementLevel::kNominal), 11.0 / 38.0, 1e-12);
  EXPECT_NEAR(krippendorff_alpha(mixed, MeasurementLevel::kInterval), 13.0 / 16.0, 1e-12);
}

TEST(KrippendorffAlpha, PerfectAgreementIsExactlyOne) {
  const std::vector<RatingRow> ratings = {{0.1, 0.1, 0.1}, {0.7, kMissing, 0.7}, {0.3, 0.3, kMissing}};
  EXPECT_EQ(krippendorff_alpha(ratings, MeasurementLevel::kInterval), 1.0);
  EXPECT_EQ(krippendorff_alpha(ratings, MeasurementLevel::kNominal), 1.0);
}

TEST(KrippendorffAlpha, UndefinedWithoutVariationOrPairs) {
  // One value throughout: D_e = 0 (0.1 three times must not round to a tiny variance).
  const std::vector<RatingRow> constant = {{0.1, 0.1, 0.1}, {0.1, 0.1, kMissing}};
  EXPECT_TRUE(std::isnan(krippendorff_alpha(constant, MeasurementLevel::kInterval)));
  EXPECT_TRUE(std::isnan(krippendorff_alpha(constant, MeasurementLevel::kNominal)));
  const std::vector<RatingRow> unpaired = {{1.0, kMissing}, {kMissing, 2.0}, {}};
  EXPECT_TRUE(std::isnan(krippendorff_alpha(unpaired, MeasurementLevel::kInterval)));
  EXPECT_TRUE(std::isnan(krippendorff_alpha(unpaired, MeasurementLevel::kNominal)));
  EXPECT_TRUE(std::isnan(krippendorff_alpha({}, MeasurementLevel::kInterval)));
}

TEST(KrippendorffAlpha, UnitsWithOneValueAreDropped) {
  auto ratings = krippendorff_2011_example();
  const double interval = krippendorff_alpha(ratings, MeasurementLevel::kInterval);
  const double nominal = krippendorff_alpha(ratings, MeasurementLevel::kNominal);
  ratings.push_back({kMissing, 9.0, kMissing, kMissing});  // a new value, but not pairable
  EXPECT_EQ(krippendorff_alpha(ratings, MeasurementLevel::kInterval), interval);
  EXPECT_EQ(krippendorff_alpha(ratings, MeasurementLevel::kNominal), nominal);
}

TEST(KrippendorffAlpha, InvariantToOrderRelabellingAndAffineScale) {
  const auto ratings = krippendorff_2011_example();
  const double interval = krippendorff_alpha(ratings, MeasurementLevel::kInterval);
  const double nominal = krippendorff_alpha(ratings, MeasurementLevel::kNominal);
  auto moved = ratings;
  std::reverse(moved.begin(), moved.end());
  for (RatingRow& row : moved) {
    std::rotate(row.begin(), row.begin() + 1, row.end());  // observers in another order
    for (auto& v : row)
      if (v) *v = 10.0 - 2.5 * *v;  // affine (interval) and one-to-one (nominal)
  }
  EXPECT_NEAR(krippendorff_alpha(moved, MeasurementLevel::kInterval), interval, 1e-12);
  EXPECT_NEAR(krippendorff_alpha(moved, MeasurementLevel::kNominal), nominal, 1e-12);
}

TEST(KrippendorffAlpha, StableFarFromZero) {
  // Scores near 1e9 differ by units: sums of squares formed as sum v^2 - m mean^2 would lose
  // every digit; deviations from the means (exact here) keep alpha exact.
  auto ratings = krippendorff_2011_example();
  for (RatingRow& row : ratings)
    for (auto& v : row)
      if (v) *v += 1e9;
  EXPECT_NEAR(krippendorff_alpha(ratings, MeasurementLevel::kInterval), 2853.0 / 3360.0, 1e-9);
  EXPECT_NEAR(krippendorff_alpha(ratings, MeasurementLevel::kNominal), 113.0 / 152.0, 1e-12);
  // Means that are not exact at 1e9 (5/3, the grand mean 2.6) cost a few ulps of 1e9 (~1e-7)
  // in a deviation, not the 2e9-fold of sum m (mean^2 - grand^2).
  const std::vector<RatingRow> mixed = {{1e9 + 1, 1e9 + 2, kMissing},
                                        {1e9 + 3, 1e9 + 3, 1e9 + 3},
                                        {1e9 + 5, 1e9 + 4, kMissing},
                                        {1e9 + 2, 1e9 + 2, 1e9 + 1}};
  EXPECT_NEAR(krippendorff_alpha(mixed, MeasurementLevel::kInterval), 13.0 / 16.0, 1e-6);
}

TEST(KrippendorffAlpha, MatchesTheDefinitionOnRandomData) {
  Rng rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<RatingRow> ratings;
    std::vector<std::vector<double>> pairable;
    for (int u = 0; u < 9; ++u) {
      RatingRow row;
      std::vector<double> present;
      for (int r = 0; r < 3; ++r) {
        if (rng.uniform() < 0.25) {
          row.push_back(kMissing);
        } else {
          row.push_back(static_cast<double>(rng.below(4)) + 0.5 * static_cast<double>(trial % 2));
          present.push_back(*row.back());
        }
      }
      ratings.push_back(row);
      if (present.size() >= 2) pairable.push_back(present);
    }
    for (MeasurementLevel level : {MeasurementLevel::kNominal, MeasurementLevel::kInterval}) {
      const double expected = alpha_by_definition(pairable, level);
      const double actual = krippendorff_alpha(ratings, level);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(actual));
      } else {
        EXPECT_NEAR(actual, expected, 1e-12) << "trial " << trial;
      }
    }
  }
}

TEST(KrippendorffAlpha, NonFiniteRatingsThrow) {
  const std::vector<RatingRow> ratings = {{1.0, std::nan("")}, {2.0, 2.0}};
  EXPECT_THROW((void)krippendorff_alpha(ratings, MeasurementLevel::kInterval), std::invalid_argument);
  const std::vector<RatingRow> infinite = {{1.0, HUGE_VAL}, {2.0, 2.0}};
  EXPECT_THROW((void)krippendorff_alpha_ci(infinite, MeasurementLevel::kNominal, 1), std::invalid_argument);
}

// The interval from its definition: resample the pairable units (the one-value unit is not
// among them) with Rng(seed) and UniformIndex, alpha by enumeration, type-7 percentiles.
TEST(KrippendorffAlphaCi, ResamplesThePairableUnitsAndTakesPercentiles) {
  auto ratings = krippendorff_2011_example();
  std::vector<std::vector<double>> pairable;
  for (const RatingRow& row : ratings) {
    std::vector<double> present;
    for (const auto& v : row)
      if (v) present.push_back(*v);
    if (present.size() >= 2) pairable.push_back(present);
  }
  ASSERT_EQ(pairable.size(), 11u);
  for (MeasurementLevel level : {MeasurementLevel::kNominal, MeasurementLevel::kInterval}) {
    Rng rng(42);
    const UniformIndex index(pairable.size());
    std::vector<double> alphas;
    for (int b = 0; b < 300; ++b) {
      std::vector<std::vector<double>> drawn;
      for (std::size_t i = 0; i < pairable.size(); ++i) drawn.push_back(pairable[index(rng)]);
      const double a = alpha_by_definition(drawn, level);
      if (!std::isnan(a)) alphas.push_back(a);
    }
    std::sort(alphas.begin(), alphas.end());
    const Interval ci = krippendorff_alpha_ci(ratings, level, 42, 300, 0.1);
    EXPECT_NEAR(ci.lo, quantile_sorted(alphas, 0.05), 1e-12);
    EXPECT_NEAR(ci.hi, quantile_sorted(alphas, 0.95), 1e-12);
    EXPECT_LT(ci.lo, krippendorff_alpha(ratings, level));
    EXPECT_GT(ci.hi, krippendorff_alpha(ratings, level));
  }
}

TEST(KrippendorffAlphaCi, DeterministicForASeedAndDegenerateCases) {
  const auto ratings = krippendorff_2011_example();
  const Interval a = krippendorff_alpha_ci(ratings, MeasurementLevel::kInterval, 5, 500);
  const Interval b = krippendorff_alpha_ci(ratings, MeasurementLevel::kInterval, 5, 500);
  const Interval c = krippendorff_alpha_ci(ratings, MeasurementLevel::kInterval, 6, 500);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_TRUE(a.lo != c.lo || a.hi != c.hi);
  // Perfect agreement: every resample with variation gives 1; a resample of one unit repeated
  // has none and is skipped.
  const std::vector<RatingRow> perfect = {{1.0, 1.0}, {2.0, 2.0}, {3.0, 3.0}};
  const Interval one = krippendorff_alpha_ci(perfect, MeasurementLevel::kInterval, 3, 200);
  EXPECT_EQ(one.lo, 1.0);
  EXPECT_EQ(one.hi, 1.0);
  // No pairable unit, or no resample with variation: no interval.
  const std::vector<RatingRow> unpaired = {{1.0, kMissing}};
  EXPECT_TRUE(std::isnan(krippendorff_alpha_ci(unpaired, MeasurementLevel::kInterval, 1).lo));
  const std::vector<RatingRow> constant = {{4.0, 4.0}, {4.0, 4.0}};
  const Interval none = krippendorff_alpha_ci(constant, MeasurementLevel::kNominal, 1, 50);
  EXPECT_TRUE(std::isnan(none.lo));
  EXPECT_TRUE(std::isnan(none.hi));
  // At least one resample is drawn even when asked for none: one unit, so alpha of that unit.
  const std::vector<RatingRow> single = {{1.0, 2.0}};
  const Interval lone = krippendorff_alpha_ci(single, MeasurementLevel::kInterval, 1, 0);
  EXPECT_EQ(lone.lo, 0.0);  // one unit of two different values: D_o = D_e = 1
  EXPECT_EQ(lone.hi, 0.0);
}

}  // namespace
}  // namespace parley
