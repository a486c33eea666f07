// gold_rank, gold_in_top_k, reciprocal_rank, brier_score, top_choice, top1_brier_score,
// calibration_bin and binned_calibration_error. Every expected value is worked by hand in the
// comments (the ECE population also checked in python3 from the n_b/n |acc_b - conf_b| form).

#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "parley/stats.h"

namespace parley {
namespace {

TEST(GoldRank, TiesAreBrokenByLabelOrder) {
  const std::vector<double> belief = {0.2, 0.5, 0.2, 0.1};
  EXPECT_EQ(gold_rank(belief, 1), 1);  // the maximum
  EXPECT_EQ(gold_rank(belief, 0), 2);  // 0.5 above; the tied label 2 comes later
  EXPECT_EQ(gold_rank(belief, 2), 3);  // 0.5 above, and the tied label 0 comes first
  EXPECT_EQ(gold_rank(belief, 3), 4);
  // A first maximum ranks 1 even when tied, as argmax does.
  EXPECT_EQ(gold_rank(std::vector<double>{0.4, 0.4, 0.2}, 0), 1);
  EXPECT_EQ(gold_rank(std::vector<double>{0.4, 0.4, 0.2}, 1), 2);
}

TEST(GoldRank, TopKAndReciprocalRank) {
  const std::vector<double> belief = {0.2, 0.5, 0.2, 0.1};
  EXPECT_TRUE(gold_in_top_k(belief, 1, 1));
  EXPECT_FALSE(gold_in_top_k(belief, 0, 1));
  EXPECT_TRUE(gold_in_top_k(belief, 2, 3));  // Acc@3: rank 3
  EXPECT_FALSE(gold_in_top_k(belief, 2, 2));
  EXPECT_FALSE(gold_in_top_k(belief, 1, 0));
  EXPECT_DOUBLE_EQ(reciprocal_rank(belief, 1), 1.0);
  EXPECT_DOUBLE_EQ(reciprocal_rank(belief, 0), 0.5);
  EXPECT_DOUBLE_EQ(reciprocal_rank(belief, 2), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(reciprocal_rank(belief, 3), 0.25);
}

TEST(GoldRank, AGoldWithZeroProbabilityIsNotListed) {
  // The answer listed two labels; gold is label 3: ranked 4th (0.6, 0.4 above, label 2 tied
  // before it) but unlisted, so no hit at any k and reciprocal rank 0 (reading guide A.5).
  const std::vector<double> belief = {0.6, 0.4, 0.0, 0.0};
  EXPECT_EQ(gold_rank(belief, 3), 4);
  EXPECT_EQ(gold_rank(belief, 2), 3);
  EXPECT_FALSE(gold_in_top_k(belief, 2, 3));
  EXPECT_FALSE(gold_in_top_k(belief, 3, 4));
  EXPECT_EQ(reciprocal_rank(belief, 3), 0.0);
  // An empty answer (all zero) scores nothing, even for label 0 that argmax would pick.
  const std::vector<double> empty = {0.0, 0.0, 0.0};
  EXPECT_EQ(gold_rank(empty, 0), 1);
  EXPECT_FALSE(gold_in_top_k(empty, 0, 1));
  EXPECT_EQ(reciprocal_rank(empty, 0), 0.0);
  EXPECT_DOUBLE_EQ(top1_brier_score(empty, 0), 0.0);  // confidence 0, not correct
  EXPECT_DOUBLE_EQ(brier_score(empty, 0), 1.0);
}

TEST(BrierScore, MultiClassSumOfSquares) {
  // MACI Dengue round 3 (Dengue .60, Chikungunya .35, Zika .05), gold Dengue:
  //   .4^2 + .35^2 + .05^2 = .16 + .1225 + .0025 = .285.
  const std::vector<double> dengue = {0.60, 0.35, 0.05};
  EXPECT_NEAR(brier_score(dengue, 0), 0.285, 1e-12);
  // gold Chikungunya: .6^2 + .65^2 + .05^2 = .36 + .4225 + .0025 = .785.
  EXPECT_NEAR(brier_score(dengue, 1), 0.785, 1e-12);
  EXPECT_EQ(brier_score(std::vector<double>{0.0, 1.0, 0.0}, 1), 0.0);  // certain and right
  EXPECT_EQ(brier_score(std::vector<double>{1.0, 0.0}, 1), 2.0);       // certain and wrong
}

TEST(BeliefScoring, ReadsOnlyTheLabelsGiven) {
  // A belief viewed in a larger buffer: the value after it is not a label.
  const double buffer[] = {0.60, 0.35, 0.05, 0.95};
  const std::span<const double> belief = std::span(buffer).first(3);
  EXPECT_NEAR(brier_score(belief, 0), 0.285, 1e-12);
  EXPECT_EQ(top_choice(belief).label, 0u);
  EXPECT_EQ(gold_rank(belief, 2), 3);
  const double rising[] = {0.1, 0.2, 0.7, 0.95};
  EXPECT_EQ(top_choice(std::span(rising).first(3)).label, 2u);
  EXPECT_DOUBLE_EQ(top_choice(std::span(rising).first(3)).confidence, 0.7);
  EXPECT_THROW((void)gold_rank(belief, 3), std::invalid_argument);
}

TEST(TopChoice, FirstMaximumAndTop1Brier) {
  const std::vector<double> tied = {0.4, 0.4, 0.2};
  EXPECT_EQ(top_choice(tied).label, 0u);
  EXPECT_DOUBLE_EQ(top_choice(tied).confidence, 0.4);
  EXPECT_EQ(top_choice(std::vector<double>{0.1, 0.2, 0.7}).label, 2u);
  EXPECT_DOUBLE_EQ(top_choice(std::vector<double>{0.1, 0.2, 0.7}).confidence, 0.7);
  EXPECT_NEAR(top1_brier_score(tied, 0), 0.36, 1e-12);  // (0.4 - 1)^2: top-1 right
  EXPECT_NEAR(top1_brier_score(tied, 1), 0.16, 1e-12);  // (0.4 - 0)^2: tied but second
}

TEST(BeliefScoring, InvalidInputThrows) {
  const std::vector<double> belief = {0.5, 0.5};
  EXPECT_THROW((void)gold_rank(belief, 2), std::invalid_argument);
  EXPECT_THROW((void)gold_rank(std::vector<double>{}, 0), std::invalid_argument);
  EXPECT_THROW((void)top_choice(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW((void)brier_score(std::vector<double>{0.5, -0.1}, 0), std::invalid_argument);
  EXPECT_THROW((void)brier_score(belief, 5), std::invalid_argument);
  EXPECT_THROW((void)reciprocal_rank(std::vector<double>{0.5, std::nan("")}, 0), std::invalid_argument);
  EXPECT_THROW((void)top_choice(std::vector<double>{0.5, HUGE_VAL}), std::invalid_argument);
  EXPECT_THROW((void)gold_in_top_k(std::vector<double>{-0.0, -1.0}, 0, 1), std::invalid_argument);
}

TEST(CalibrationBin, LowerEdgeIncludedAndOneInTheLastBin) {
  EXPECT_EQ(calibration_bin(0.0, 10), 0);
  EXPECT_EQ(calibration_bin(0.05, 10), 0);
  EXPECT_EQ(calibration_bin(0.1, 10), 1);  // [0.1, 0.2)
  EXPECT_EQ(calibration_bin(0.3, 10), 3);  // 0.3 * 10 is exactly 3 in double
  EXPECT_EQ(calibration_bin(0.7, 10), 7);
  EXPECT_EQ(calibration_bin(0.35, 10), 3);
  EXPECT_EQ(calibration_bin(0.999, 10), 9);
  EXPECT_EQ(calibration_bin(1.0, 10), 9);  // [0.9, 1.0]
  EXPECT_EQ(calibration_bin(std::nextafter(1.0, 0.0), 10), 9);
  EXPECT_EQ(calibration_bin(-0.2, 10), 0);
  EXPECT_EQ(calibration_bin(std::nan(""), 10), 0);
  EXPECT_EQ(calibration_bin(1.5, 10), 9);
  EXPECT_EQ(calibration_bin(0.5, 1), 0);
  EXPECT_EQ(calibration_bin(1.0 / 15.0, 15), 1);
}

TEST(BinnedCalibrationError, TinyPopulationByHand) {
  // Bins of 0.1: 0.3 and 0.35 share bin 3 (an edge goes up), 1.0 shares bin 9 with 0.95.
  //   bin 0: 0.05 - 0 = 0.05           -> 0.05
  //   bin 3: (0.3 - 1) + (0.35 - 0)    -> 0.35  (0.3 in bin 2 would give 0.7 + 0.35)
  //   bin 7: 0.7 - 1                   -> 0.3
  //   bin 9: (1.0 - 0) + (0.95 - 1)    -> 0.95  (1.0 alone would give 1 + 0.05)
  //   ECE = (0.05 + 0.35 + 0.3 + 0.95) / 6 = 0.275
  const std::vector<double> confidences = {0.3, 0.35, 0.7, 1.0, 0.95, 0.05};
  const std::vector<int> correct = {1, 0, 1, 0, 1, 0};
  EXPECT_NEAR(binned_calibration_error(confidences, correct), 0.275, 1e-12);
  // Two bins: [0, 0.5) holds 0.3, 0.35, 0.05: |0.7 - 1| = 0.3; [0.5, 1] the rest:
  // |2.65 - 2| = 0.65. (0.3 + 0.65) / 6.
  EXPECT_NEAR(binned_calibration_error(confidences, correct, 2), 0.95 / 6.0, 1e-12);
  // One bin: |sum confidence - sum correct| / n = |3.35 - 3| / 6.
  EXPECT_NEAR(binned_calibration_error(confidences, correct, 1), 0.35 / 6.0, 1e-12);
}

TEST(BinnedCalibrationError, EqualsTheWeightedGapOfAccuracyAndConfidence) {
  // sum_b (n_b / n) |acc_b - conf_b|, computed here bin by bin on random data.
  Rng rng(3);
  std::vector<double> confidences;
  std::vector<int> correct;
  for (int i = 0; i < 200; ++i) {
    confidences.push_back(std::floor(rng.uniform() * 40.0) / 40.0);  // many values on bin edges
    correct.push_back(rng.uniform() < confidences.back() ? 1 : 0);
  }
  confidences.push_back(1.0), correct.push_back(0);
  double expected = 0.0;
  for (int b = 0; b < 10; ++b) {
    double n_b = 0.0, hits = 0.0, confidence = 0.0;
    for (std::size_t i = 0; i < confidences.size(); ++i) {
      const double lo = b / 10.0, hi = (b + 1) / 10.0;
      const bool in = confidences[i] >= lo && (confidences[i] < hi || (b == 9 && confidences[i] <= 1.0));
      if (!in) continue;
      n_b += 1.0, hits += correct[i], confidence += confidences[i];
    }
    if (n_b > 0)
      expected += n_b / static_cast<double>(confidences.size()) * std::abs(hits / n_b - confidence / n_b);
  }
  EXPECT_NEAR(binned_calibration_error(confidences, correct), expected, 1e-12);
}

TEST(BinnedCalibrationError, CalibratedEmptyAndInvalid) {
  EXPECT_NEAR(
      binned_calibration_error(std::vector<double>{0.25, 0.25, 0.25, 0.25}, std::vector<int>{1, 0, 0, 0}),
      0.0, 1e-15);
  EXPECT_EQ(binned_calibration_error(std::vector<double>{}, std::vector<int>{}), 0.0);
  const std::vector<double> one = {0.5};
  EXPECT_THROW((void)binned_calibration_error(one, std::vector<int>{1, 0}), std::invalid_argument);
  EXPECT_THROW((void)binned_calibration_error(one, std::vector<int>{1}, 0), std::invalid_argument);
  EXPECT_THROW((void)binned_calibration_error(one, std::vector<int>{2}), std::invalid_argument);
  EXPECT_THROW((void)binned_calibration_error(one, std::vector<int>{-1}), std::invalid_argument);
  EXPECT_THROW((void)binned_calibration_error(std::vector<double>{1.01}, std::vector<int>{1}),
               std::invalid_argument);
  EXPECT_THROW((void)binned_calibration_error(std::vector<double>{-0.01}, std::vector<int>{1}),
               std::invalid_argument);
  EXPECT_THROW((void)binned_calibration_error(std::vector<double>{std::nan("")}, std::vector<int>{1}),
               std::invalid_argument);
  EXPECT_EQ(binned_calibration_error(std::vector<double>{0.0, 1.0}, std::vector<int>{0, 1}), 0.0);
}

}  // namespace
}  // namespace parley
