// pearson_correlation, average_ranks, spearman_correlation, mean_pairwise_correlation and
// order_invariance. Expected values come from python3's statistics module (3.11:
// statistics.correlation for Pearson; Spearman as statistics.correlation of average ranks
// computed by hand, statistics.stdev for the SD), quoted with the inputs.

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

#include <set>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "parley/agreement.h"

namespace parley {
namespace {

constexpr std::nullopt_t kMissing = std::nullopt;

const std::vector<double> kTiedX = {0.2, 0.5, 0.5, 0.9, 0.1, 0.7, 0.7, 0.7};
const std::vector<double> kTiedY = {1.0, 3.0, 2.0, 2.0, 0.0, 5.0, 4.0, 6.0};

// Three judges over seven units, judge 3 missing unit 2.
std::vector<RatingRow> three_judges() {
  return {{0.9, 0.8, 0.85}, {0.4, 0.5, kMissing}, {0.7, 0.6, 0.8}, {0.2, 0.35, 0.3},
          {0.6, 0.65, 0.5}, {0.3, 0.2, 0.25},     {0.8, 0.9, 0.7}};
}

TEST(Pearson, MatchesPythonStatistics) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6}, y = {2, 1, 4, 3, 7, 5};
  EXPECT_NEAR(pearson_correlation(x, y), 0.7917946548886297, 1e-9);  // statistics.correlation
  EXPECT_NEAR(pearson_correlation(kTiedX, kTiedY), 0.6814789051382574, 1e-9);
}

TEST(Pearson, PerfectLinesAffineInvarianceAndSymmetry) {
  const std::vector<double> x = {0.1, 0.4, 0.2, 0.9}, up = {1.2, 2.1, 1.5, 3.6}, down = {5.0, 2.0, 4.0, -3.0};
  EXPECT_NEAR(pearson_correlation(x, up), 1.0, 1e-12);     // up = 3x + 0.9
  EXPECT_NEAR(pearson_correlation(x, down), -1.0, 1e-12);  // down = 6 - 10x
  EXPECT_LE(pearson_correlation(x, up), 1.0);
  EXPECT_GE(pearson_correlation(x, down), -1.0);
  std::vector<double> scaled;
  for (double v : kTiedY) scaled.push_back(-4.0 * v + 7.0);
  EXPECT_NEAR(pearson_correlation(kTiedX, scaled), -pearson_correlation(kTiedX, kTiedY), 1e-12);
  EXPECT_NEAR(pearson_correlation(kTiedY, kTiedX), pearson_correlation(kTiedX, kTiedY), 1e-15);
}

TEST(Pearson, UndefinedCasesAndBadInput) {
  EXPECT_TRUE(std::isnan(pearson_correlation(std::vector<double>{}, std::vector<double>{})));
  EXPECT_TRUE(std::isnan(pearson_correlation(std::vector<double>{1.0}, std::vector<double>{2.0})));
  // A constant side, including one whose mean does not round back to the value (0.1 x 3).
  EXPECT_TRUE(
      std::isnan(pearson_correlation(std::vector<double>{0.1, 0.1, 0.1}, std::vector<double>{1, 2, 3})));
  EXPECT_TRUE(
      std::isnan(pearson_correlation(std::vector<double>{1, 2, 3}, std::vector<double>{0.1, 0.1, 0.1})));
  // Two points always lie on a line.
  EXPECT_NEAR(pearson_correlation(std::vector<double>{1, 2}, std::vector<double>{5, 3}), -1.0, 1e-12);
  EXPECT_THROW((void)pearson_correlation(std::vector<double>{1, 2}, std::vector<double>{1}),
               std::invalid_argument);
}

TEST(AverageRanks, TiesShareTheMeanOfTheirRanks) {
  const std::vector<double> expected = {2.0, 3.5, 3.5, 8.0, 1.0, 6.0, 6.0, 6.0};
  EXPECT_EQ(average_ranks(kTiedX), expected);
  EXPECT_EQ(average_ranks(std::vector<double>{3.0, 3.0, 3.0}), (std::vector<double>{2.0, 2.0, 2.0}));
  EXPECT_TRUE(average_ranks(std::vector<double>{}).empty());
  EXPECT_THROW((void)average_ranks(std::vector<double>{1.0, std::nan("")}), std::invalid_argument);
}

TEST(Spearman, MatchesPythonOnRanksWithTies) {
  // Ranks x: 2, 3.5, 3.5, 8, 1, 6, 6, 6; y: 2, 5, 3.5, 3.5, 1, 7, 6, 8; their Pearson r.
  EXPECT_NEAR(spearman_correlation(kTiedX, kTiedY), 0.6606952586464699, 1e-9);
  // Without ties, 1 - 6 sum d^2 / (n (n^2 - 1)): y ranks 2, 1, 4, 3, 6, 5, so d = -1, 1, -1, 1,
  // -1, 1 and rho = 1 - 36/210 (statistics.correlation of the ranks: 0.8285714285714286).
  const std::vector<double> x = {1, 2, 3, 4, 5, 6}, y = {2, 1, 4, 3, 7, 5};
  EXPECT_NEAR(spearman_correlation(x, y), 1.0 - 36.0 / 210.0, 1e-12);
}

TEST(Spearman, InvariantToStrictlyMonotoneTransforms) {
  std::vector<double> x, y;
  for (double v : kTiedX) x.push_back(std::exp(5.0 * v));
  for (double v : kTiedY) y.push_back(v * v * v - 10.0);
  EXPECT_DOUBLE_EQ(spearman_correlation(x, y), spearman_correlation(kTiedX, kTiedY));
  // A decreasing transform of one side flips the sign.
  std::vector<double> flipped;
  for (double v : kTiedY) flipped.push_back(-v);
  EXPECT_NEAR(spearman_correlation(kTiedX, flipped), -spearman_correlation(kTiedX, kTiedY), 1e-12);
  EXPECT_THROW((void)spearman_correlation(std::vector<double>{1, 2}, std::vector<double>{1}),
               std::invalid_argument);
}

TEST(MeanPairwiseCorrelation, MatchesPythonOverPairsOnCommonUnits) {
  // Pairs (1,2), (1,3), (2,3), the last two over the six units judge 3 rated. Python:
  //   Pearson r = 0.9077676184329394, 0.9428449859922508, 0.8416420070776947
  //   Spearman rho = 0.8928571428571429, 0.8857142857142857, 0.7142857142857143
  const auto ratings = three_judges();
  const PairwiseCorrelation pearson = mean_pairwise_correlation(ratings, CorrelationKind::kPearson, 1, 200);
  EXPECT_EQ(pearson.pairs, 3);
  EXPECT_NEAR(pearson.mean, 0.8974182038342949, 1e-9);         // statistics.mean
  EXPECT_NEAR(pearson.sd, 0.051389138173314385, 1e-9);         // statistics.stdev
  EXPECT_NEAR(pearson.fisher_mean, 0.9054211660290808, 1e-9);  // tanh(mean(atanh r))
  const PairwiseCorrelation spearman = mean_pairwise_correlation(ratings, CorrelationKind::kSpearman, 1, 200);
  EXPECT_EQ(spearman.pairs, 3);
  EXPECT_NEAR(spearman.mean, 0.830952380952381, 1e-9);
  EXPECT_NEAR(spearman.sd, 0.10109939878839116, 1e-9);
  EXPECT_NEAR(spearman.fisher_mean, 0.8467246848112174, 1e-9);
}

// The interval from its definition: units resampled with Rng(seed) and UniformIndex; per
// resample the pairs' r on the drawn units both rated (undefined on fewer than 3 distinct units),
// their mean atanh; type-7 percentiles of those means, back-transformed with tanh.
TEST(MeanPairwiseCorrelation, FisherZBootstrapOverUnits) {
  const auto ratings = three_judges();
  for (CorrelationKind kind : {CorrelationKind::kPearson, CorrelationKind::kSpearman}) {
    Rng rng(9);
    const UniformIndex index(ratings.size());
    std::vector<double> mean_z;
    for (int b = 0; b < 400; ++b) {
      std::vector<std::size_t> drawn(ratings.size());
      for (auto& u : drawn) u = index(rng);
      double sum = 0.0;
      int defined = 0;
      for (std::size_t a = 0; a < 3; ++a) {
        for (std::size_t c = a + 1; c < 3; ++c) {
          std::vector<double> x, y;
          std::set<std::size_t> distinct;
          for (std::size_t u : drawn) {
            if (ratings[u][a] && ratings[u][c]) x.push_back(*ratings[u][a]), y.push_back(*ratings[u][c]), distinct.insert(u);
          }
          if (distinct.size() < 3) continue;
          const double r =
              kind == CorrelationKind::kPearson ? pearson_correlation(x, y) : spearman_correlation(x, y);
          if (std::isnan(r)) continue;
          sum += std::atanh(std::clamp(r, -1.0 + 1e-12, 1.0 - 1e-12));
          ++defined;
        }
      }
      if (defined > 0) mean_z.push_back(sum / defined);
    }
    std::sort(mean_z.begin(), mean_z.end());
    const PairwiseCorrelation result = mean_pairwise_correlation(ratings, kind, 9, 400, 0.1);
    EXPECT_NEAR(result.ci.lo, std::tanh(quantile_sorted(mean_z, 0.05)), 1e-12);
    EXPECT_NEAR(result.ci.hi, std::tanh(quantile_sorted(mean_z, 0.95)), 1e-12);
    EXPECT_LT(result.ci.lo, result.fisher_mean);
    EXPECT_GT(result.ci.hi, result.fisher_mean);
    EXPECT_LT(result.ci.hi, 1.0);
  }
}

// The review's case: on 6 units the resamples that draw 2 distinct units made the interval
// [-1, 1]; they are undefined now, and the interval holds the estimate.
TEST(MeanPairwiseCorrelation, ResamplesOfTwoDistinctUnitsDoNotSwampTheInterval) {
  const std::vector<RatingRow> ratings = {{0.1, 0.2}, {0.4, 0.3}, {0.5, 0.7}, {0.8, 0.6}, {0.9, 0.95}, {0.3, 0.1}};
  const PairwiseCorrelation result = mean_pairwise_correlation(ratings, CorrelationKind::kPearson, 3, 2000, 0.05);
  EXPECT_GT(result.ci.lo, -0.5);
  EXPECT_LT(result.ci.lo, result.mean);
  EXPECT_GE(result.ci.hi, result.mean);
  // Two units together are no correlation at all.
  const std::vector<RatingRow> two = {{0.1, 0.2}, {0.4, 0.3}};
  EXPECT_TRUE(std::isnan(mean_pairwise_correlation(two, CorrelationKind::kPearson, 3, 10, 0.05).mean));
}

TEST(MeanPairwiseCorrelation, PerfectAndUndefinedPairs) {
  // Judges 1 and 2 agree exactly; judge 3 is constant, so its pairs are undefined and skipped.
  const std::vector<RatingRow> ratings = {{0.1, 0.1, 0.5}, {0.4, 0.4, 0.5}, {0.3, 0.3, 0.5}, {0.9, 0.9, 0.5}};
  const PairwiseCorrelation result = mean_pairwise_correlation(ratings, CorrelationKind::kPearson, 2, 100);
  EXPECT_EQ(result.pairs, 1);
  EXPECT_NEAR(result.mean, 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(result.sd));  // one pair has no spread
  EXPECT_NEAR(result.fisher_mean, 1.0, 1e-12);
  // Every resample with two distinct units has r = 1: z at the clamp, finite.
  EXPECT_NEAR(result.ci.lo, 1.0, 1e-11);
  EXPECT_NEAR(result.ci.hi, 1.0, 1e-11);
  EXPECT_LT(result.ci.hi, 1.0);
  // Perfect disagreement is clamped the same way.
  const std::vector<RatingRow> opposed = {{0.1, 0.9}, {0.4, 0.6}, {0.3, 0.7}};
  const PairwiseCorrelation negative = mean_pairwise_correlation(opposed, CorrelationKind::kSpearman, 2, 100);
  EXPECT_NEAR(negative.ci.lo, -1.0, 1e-11);
  EXPECT_GT(negative.ci.lo, -1.0);
}

TEST(MeanPairwiseCorrelation, NothingDefinedAndBadInput) {
  const std::vector<RatingRow> constant = {{0.5, 0.1}, {0.5, 0.2}, {0.5, 0.3}};
  const PairwiseCorrelation none = mean_pairwise_correlation(constant, CorrelationKind::kPearson, 1, 50);
  EXPECT_EQ(none.pairs, 0);
  EXPECT_TRUE(std::isnan(none.mean));
  EXPECT_TRUE(std::isnan(none.fisher_mean));
  EXPECT_TRUE(std::isnan(none.ci.lo));
  EXPECT_TRUE(std::isnan(none.ci.hi));
  const PairwiseCorrelation empty = mean_pairwise_correlation({}, CorrelationKind::kPearson, 1, 50);
  EXPECT_EQ(empty.pairs, 0);
  EXPECT_TRUE(std::isnan(empty.ci.lo));
  const std::vector<RatingRow> ragged = {{0.1, 0.2}, {0.3}};
  EXPECT_THROW((void)mean_pairwise_correlation(ragged, CorrelationKind::kPearson, 1), std::invalid_argument);
  const std::vector<RatingRow> one_rater = {{0.1}, {0.3}};
  EXPECT_THROW((void)mean_pairwise_correlation(one_rater, CorrelationKind::kPearson, 1),
               std::invalid_argument);
  const std::vector<RatingRow> infinite = {{0.1, 0.2}, {0.3, -HUGE_VAL}};
  EXPECT_THROW((void)mean_pairwise_correlation(infinite, CorrelationKind::kSpearman, 1),
               std::invalid_argument);
}

TEST(OrderInvariance, ComposesTheExistingIntervals) {
  // |delta| = 0.02, 0, 0.06, 0.10, 0.03 (exact binary differences avoided near 0.05):
  // mean 0.042, SD 0.038987177379235856 (statistics.stdev); 3 of 5 below 0.05.
  const std::vector<double> forward = {0.50, 0.60, 0.70, 0.80, 0.90};
  const std::vector<double> reverse = {0.52, 0.60, 0.64, 0.90, 0.87};
  const OrderInvariance result = order_invariance(forward, reverse, 11, 0.05, 300, 0.1);
  EXPECT_NEAR(result.mean_abs_difference, 0.042, 1e-12);
  EXPECT_NEAR(result.sd_abs_difference, 0.038987177379235856, 1e-9);
  EXPECT_DOUBLE_EQ(result.share_within, 0.6);
  std::vector<double> differences;
  for (std::size_t i = 0; i < forward.size(); ++i) differences.push_back(std::abs(forward[i] - reverse[i]));
  const Interval mean_ci = bootstrap_mean_ci(differences, 11, 300, 0.1);
  EXPECT_EQ(result.mean_abs_difference_ci.lo, mean_ci.lo);
  EXPECT_EQ(result.mean_abs_difference_ci.hi, mean_ci.hi);
  const Interval share_ci = wilson_interval(3, 5, 0.1);
  EXPECT_EQ(result.share_within_ci.lo, share_ci.lo);
  EXPECT_EQ(result.share_within_ci.hi, share_ci.hi);
  std::vector<RatingRow> rows;
  for (std::size_t i = 0; i < forward.size(); ++i) rows.push_back({forward[i], reverse[i]});
  const PairwiseCorrelation spearman =
      mean_pairwise_correlation(rows, CorrelationKind::kSpearman, 11, 300, 0.1);
  EXPECT_EQ(result.spearman.mean, spearman.mean);
  EXPECT_EQ(result.spearman.ci.lo, spearman.ci.lo);
  EXPECT_EQ(result.spearman.ci.hi, spearman.ci.hi);
  EXPECT_NEAR(result.spearman.mean, 0.9, 1e-12);  // ranks 1..5 vs 1,2,3,5,4: 1 - 6*2/120
}

TEST(OrderInvariance, ThresholdIsStrictAndEdgeCases) {
  // |0.5 - 0.25| = 0.25 exactly: not below a threshold of 0.25.
  const OrderInvariance at_edge =
      order_invariance(std::vector<double>{0.5, 0.5}, std::vector<double>{0.25, 0.5}, 1, 0.25, 50);
  EXPECT_DOUBLE_EQ(at_edge.share_within, 0.5);
  const OrderInvariance one =
      order_invariance(std::vector<double>{0.5}, std::vector<double>{0.25}, 1, 0.05, 50);
  EXPECT_TRUE(std::isnan(one.sd_abs_difference));
  // Two items, |delta| = 0.25 and 0.75: SD = sqrt(2 * 0.25^2 / 1).
  const OrderInvariance two =
      order_invariance(std::vector<double>{0.5, 0.0}, std::vector<double>{0.25, 0.75}, 1, 0.05, 50);
  EXPECT_DOUBLE_EQ(two.sd_abs_difference, std::sqrt(0.125));
  // Far from zero: |delta| = 1e9 + 0, 0.25, 1 (exact; their mean is not) have SD sqrt(39)/12.
  // Deviations from the mean keep it; sum (v - c)(v + c) = sum (v - c)^2 + 2c sum (v - c) would
  // multiply the mean's rounding by 2e9.
  const OrderInvariance far = order_invariance(std::vector<double>{1e9, 1e9 + 0.25, 1e9 + 1.0},
                                               std::vector<double>{0.0, 0.0, 0.0}, 1, 0.05, 50);
  EXPECT_NEAR(far.sd_abs_difference, std::sqrt(39.0) / 12.0, 1e-9);
  const OrderInvariance none = order_invariance(std::vector<double>{}, std::vector<double>{}, 1, 0.05, 50);
  EXPECT_EQ(none.share_within, 0.0);
  EXPECT_EQ(none.share_within_ci.hi, 1.0);
  EXPECT_THROW((void)order_invariance(std::vector<double>{0.5}, std::vector<double>{}, 1),
               std::invalid_argument);
}

}  // namespace
}  // namespace parley
