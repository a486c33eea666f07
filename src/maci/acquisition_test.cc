// The acquisition plan's entropy reduction, against values worked out by hand (in Python:
// H(p) − Σ_r P(r)·H(p | r) with the posteriors written out).
#include <gtest/gtest.h>

#include "parley/maci.h"

namespace parley::maci {
namespace {

TEST(AcquisitionPlan, PairwiseTestEntropyReductionByHand) {
  // p = (0.5, 0.3, 0.2), test 0 vs 1: P("0") = 0.5 + 0.2/2 = 0.6 with posterior (5/6, 0, 1/6),
  // P("1") = 0.4 with (0, 3/4, 1/4); H(p) = 1.485475, expected after 0.714524.
  const std::vector<double> p = {0.5, 0.3, 0.2};
  EXPECT_NEAR(pairwise_test_entropy_reduction(p, 0, 1), 0.7709505944546686, 1e-12);
  EXPECT_NEAR(pairwise_test_entropy_reduction(p, 1, 0), 0.7709505944546686, 1e-12);  // symmetric
  // The paper's dengue round: 60/25/15 and an empty fourth outcome.
  EXPECT_NEAR(pairwise_test_entropy_reduction(std::vector<double>{0.6, 0.25, 0.15, 0.0}, 0, 1), 0.7597361225311661,
              1e-12);
}

TEST(AcquisitionPlan, TheBestTestSeparatesTheLargestMasses) {
  const std::vector<double> p = {0.45, 0.35, 0.15, 0.05};
  EXPECT_GT(pairwise_test_entropy_reduction(p, 0, 1), pairwise_test_entropy_reduction(p, 0, 2));
  EXPECT_GT(pairwise_test_entropy_reduction(p, 0, 2), pairwise_test_entropy_reduction(p, 2, 3));
}

TEST(AcquisitionPlan, NothingToLearnIsZero) {
  // All mass on one side: the reading is certain, the entropy unchanged.
  EXPECT_NEAR(pairwise_test_entropy_reduction(std::vector<double>{1.0, 0.0, 0.0}, 0, 1), 0.0, 1e-12);
  EXPECT_EQ(pairwise_test_entropy_reduction(std::vector<double>{0.0, 0.0, 1.0}, 0, 1), 0.0);
  EXPECT_EQ(pairwise_test_entropy_reduction(std::vector<double>{0.5, 0.5}, 1, 1), 0.0);
  // Two equal hypotheses and nothing else: one bit.
  EXPECT_NEAR(pairwise_test_entropy_reduction(std::vector<double>{0.5, 0.5}, 0, 1), 1.0, 1e-12);
  EXPECT_THROW(pairwise_test_entropy_reduction(std::vector<double>{0.5, 0.5}, 0, 2), std::out_of_range);
  EXPECT_THROW(pairwise_test_entropy_reduction(std::vector<double>{0.5, 0.5}, 2, 0), std::out_of_range);
}

}  // namespace
}  // namespace parley::maci
