// roc_auc on small cases worked out pair by pair (ties count 1/2).

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "parley/trigger_model.h"

namespace parley {
namespace {

TEST(RocAuc, CountsOrderedPairs) {
  // Positives .35, .8; negatives .1, .4. Pairs won by the positive: (.35,.1), (.8,.1), (.8,.4) → 3/4.
  EXPECT_DOUBLE_EQ(roc_auc({0.1, 0.4, 0.35, 0.8}, {0, 0, 1, 1}), 0.75);
  EXPECT_DOUBLE_EQ(roc_auc({0.1, 0.2, 0.8, 0.9}, {0, 0, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(roc_auc({0.1, 0.2, 0.8, 0.9}, {1, 1, 0, 0}), 0.0);
  // Positives .3, .7, .9; negatives .5, .6: pairs won 0 + 2 + 2 = 4 of 6.
  EXPECT_DOUBLE_EQ(roc_auc({0.3, 0.5, 0.6, 0.7, 0.9}, {1, 0, 0, 1, 1}), 4.0 / 6.0);
}

TEST(RocAuc, TiesCountHalf) {
  // All tied: every pair 1/2.
  EXPECT_DOUBLE_EQ(roc_auc({0.5, 0.5, 0.5, 0.5}, {1, 0, 1, 0}), 0.5);
  // Positives .5, .9; negatives .2, .5: (.5,.2) 1, (.5,.5) ½, (.9,·) 2 → 3.5 / 4.
  EXPECT_DOUBLE_EQ(roc_auc({0.2, 0.5, 0.5, 0.9}, {0, 1, 0, 1}), 0.875);
  // Positives .4, .4; negatives .4, .1, .1: per positive ½ + 1 + 1 = 2.5 → 5 / 6.
  EXPECT_DOUBLE_EQ(roc_auc({0.4, 0.4, 0.4, 0.1, 0.1}, {1, 1, 0, 0, 0}), 5.0 / 6.0);
}

TEST(RocAuc, OneClassIsNaNAndBadInputsThrow) {
  EXPECT_TRUE(std::isnan(roc_auc({0.1, 0.2}, {1, 1})));
  EXPECT_TRUE(std::isnan(roc_auc({0.1, 0.2}, {0, 0})));
  EXPECT_TRUE(std::isnan(roc_auc({}, {})));
  EXPECT_THROW((void)roc_auc({0.1}, {1, 0}), std::invalid_argument);
  EXPECT_THROW((void)roc_auc({0.1, 0.2}, {1, 2}), std::invalid_argument);
}

TEST(ExpectedCalibrationError, RejectsBadInputs) {
  EXPECT_THROW((void)expected_calibration_error({0.5}, {1}, 0), std::invalid_argument);  // no bin
  EXPECT_THROW((void)expected_calibration_error({0.5, 0.4}, {1}), std::invalid_argument);
  EXPECT_THROW((void)expected_calibration_error({0.5}, {-1}), std::invalid_argument);
  EXPECT_THROW((void)roc_auc({0.5, 0.4}, {1, -1}), std::invalid_argument);
}

// Pairs counted by hand over a larger set with ties inside and across the classes.
// Positives .9, .7, .7, .3; negatives .7, .5, .3, .3, .1.
//   .9 beats all 5 → 5;  each .7 beats .5, .3, .3, .1 and ties .7 → 4.5 (twice);
//   .3 beats .1 and ties .3, .3 → 2.  Sum 16 of 4·5 = 20 pairs: AUC 0.8.
TEST(RocAuc, MixedTiesCountedPairByPair) {
  EXPECT_DOUBLE_EQ(roc_auc({0.7, 0.3, 0.9, 0.1, 0.7, 0.5, 0.3, 0.7, 0.3}, {1, 0, 1, 0, 0, 0, 1, 1, 0}), 0.8);
}

}  // namespace
}  // namespace parley
