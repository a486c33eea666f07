// normal_quantile against reference values from Python's statistics.NormalDist.inv_cdf
// (Wichura's AS241, an independent algorithm) and against bisection on erfc.

#include <cmath>
#include <limits>
#include <numbers>

#include <gtest/gtest.h>

#include "parley/stats.h"

namespace parley {
namespace {

TEST(NormalQuantile, MatchesReferenceValues) {
  // Reference: NormalDist().inv_cdf(p) in CPython 3.
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306167813, 1e-12);
  EXPECT_NEAR(normal_quantile(0.3), -0.5244005127080407, 1e-12);
  EXPECT_NEAR(normal_quantile(0.02425), -1.9729610513118845, 1e-12);  // Acklam's region seam
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-10);
  EXPECT_NEAR(normal_quantile(0.999999), 4.753424308817089, 1e-9);
  EXPECT_NEAR(normal_quantile(1e-300), -37.0470962993612, 1e-9);
}

TEST(NormalQuantile, IsAntisymmetricAboutOneHalf) {
  // 1 - p is exact for these dyadic p, so the two calls see mirrored inputs.
  for (double p : {0.5, 0.25, 0.125, 0.015625, 0.0009765625}) {
    EXPECT_EQ(normal_quantile(1.0 - p), -normal_quantile(p)) << p;
  }
  EXPECT_NEAR(normal_quantile(0.7), -normal_quantile(0.3), 1e-12);
}

// Independent inverse: bisection on Phi(x) = erfc(-x / sqrt 2) / 2 over the lower half.
double bisect_lower_half(double p) {
  double lo = -40.0;
  double hi = 0.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::numbers::sqrt2) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST(NormalQuantile, AgreesWithBisectionWithin1e9) {
  int checked = 0;
  for (double p = 1e-15; p < 0.5; p *= 1.37) {
    EXPECT_NEAR(normal_quantile(p), bisect_lower_half(p), 1e-9) << p;
    const double upper = 1.0 - p;
    const double mirrored = 1.0 - upper;  // exact; p itself may not survive the round trip
    EXPECT_NEAR(normal_quantile(upper), -bisect_lower_half(mirrored), 1e-9) << p;
    ++checked;
  }
  for (double p = 0.001; p < 0.5; p += 0.00731) {
    EXPECT_NEAR(normal_quantile(p), bisect_lower_half(p), 1e-9) << p;
    ++checked;
  }
  EXPECT_GT(checked, 150);
}

TEST(NormalQuantile, EdgesAreInfiniteAndOutsideIsNaN) {
  EXPECT_EQ(normal_quantile(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(normal_quantile(1.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(normal_quantile(-0.1)));
  EXPECT_TRUE(std::isnan(normal_quantile(1.5)));
  EXPECT_TRUE(std::isnan(normal_quantile(std::numeric_limits<double>::quiet_NaN())));
}

}  // namespace
}  // namespace parley
