// sample_variance, welch_t_test, student_t_test, cohens_d and pearson_test. Expected values are
// worked by hand where the t distribution has a closed form (1 df: Cauchy, P(T > t) = 1/2 −
// atan(t)/π; 2 df: P(T > t) = (1 − t/sqrt(t² + 2))/2), and otherwise computed independently with
// SciPy 1.10.1 (not part of parley), quoted with the one-liner that produced them (a and b as
// quoted at each test):
//   python3 -c "from scipy import stats; a=[...]; b=[...]; print(stats.ttest_ind(a, b, equal_var=False), stats.ttest_ind(a, b, equal_var=True))"
//   python3 -c "from scipy import stats; print(stats.pearsonr([...], [...]))"
// Welch's df and Cohen's d (SciPy 1.10 returns neither) with numpy:
//   python3 -c "import numpy as np; a=np.array([...]); b=np.array([...]); va, vb = a.var(ddof=1), b.var(ddof=1); na, nb = len(a), len(b); print((va/na + vb/nb)**2 / ((va/na)**2/(na-1) + (vb/nb)**2/(nb-1)), (a.mean() - b.mean()) / np.sqrt(((na-1)*va + (nb-1)*vb) / (na+nb-2)))"
#include <cmath>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "parley/stats.h"

namespace parley {
namespace {

// |actual − expected| within `relative` of |expected|.
void expect_relative(double actual, double expected, double relative = 1e-9) {
  EXPECT_NEAR(actual, expected, relative * std::fabs(expected)) << "expected " << expected;
}

// UDPO-like U values of failed (higher) and successful debates, of different sizes and spreads.
const std::vector<double> kFailed = {0.67, 0.9, 0.33, 1.0, 0.55, 0.72, 0.61};
const std::vector<double> kSucceeded = {0.1, 0.0, 0.33, 0.05, 0.12, 0.2, 0.0, 0.08, 0.15};

TEST(SampleVariance, TwoPassAboutTheMeanAndExactlyZeroForEqualValues) {
  EXPECT_DOUBLE_EQ(sample_variance(std::vector<double>{1.0, 2.0, 3.0, 4.0}), 5.0 / 3.0);  // (2.25+0.25)·2 / 3
  EXPECT_EQ(sample_variance(std::vector<double>{0.1, 0.1, 0.1}), 0.0);  // a plain mean would be 0.1 + 1 ulp
  EXPECT_TRUE(std::isnan(sample_variance(std::vector<double>{0.7})));
  EXPECT_TRUE(std::isnan(sample_variance(std::vector<double>{})));
}

TEST(TTests, HandWorkedWithTwoDegreesOfFreedom) {
  // a = {0, 2}, b = {4, 6}: means 1 and 5, variances 2 and 2, s_pooled = √2. Student: t = −4 /
  // (√2 · √(1/2 + 1/2)) = −2√2, df 2. Welch: t = −4 / √(2/2 + 2/2) = −2√2, df = 2² / (1 + 1) = 2.
  // p = 2 P(T_2 > 2√2) = 1 − 2√2/√10 = 1 − 2/√5.
  const std::vector<double> a = {0.0, 2.0}, b = {4.0, 6.0};
  const double p = 1.0 - 2.0 / std::sqrt(5.0);
  for (const std::optional<TTest>& test : {welch_t_test(a, b), student_t_test(a, b)}) {
    ASSERT_TRUE(test);
    EXPECT_DOUBLE_EQ(test->t, -2.0 * std::numbers::sqrt2);
    EXPECT_DOUBLE_EQ(test->df, 2.0);
    expect_relative(test->p, p, 1e-12);
  }
  EXPECT_DOUBLE_EQ(*cohens_d(a, b), -4.0 / std::numbers::sqrt2);
  // Swapping the groups flips the sign of t and d, not p.
  EXPECT_DOUBLE_EQ(welch_t_test(b, a)->t, 2.0 * std::numbers::sqrt2);
  expect_relative(welch_t_test(b, a)->p, p, 1e-12);
  EXPECT_DOUBLE_EQ(*cohens_d(b, a), 4.0 / std::numbers::sqrt2);
}

TEST(TTests, WelchAndStudentDifferWhenSizesAndVariancesDo) {
  // a = {0, 2} (variance 2), b = {4, 5, 6} (variance 1). Welch: t = −4 / √(2/2 + 1/3) = −2√3,
  // df = (4/3)² / (1 + (1/3)²/2) = 32/19. Student: s_pooled² = (2 + 2)/3 = 4/3, t = −4 /
  // √(4/3 · (1/2 + 1/3)) = −4 / (√10/3) = −12/√10, df 3; d = −4 / √(4/3) = −2√3.
  const std::vector<double> a = {0.0, 2.0}, b = {4.0, 5.0, 6.0};
  const auto welch = welch_t_test(a, b);
  const auto student = student_t_test(a, b);
  ASSERT_TRUE(welch && student);
  EXPECT_DOUBLE_EQ(welch->t, -2.0 * std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(welch->df, 32.0 / 19.0);
  expect_relative(welch->p, 0.0941481776254345);  // SciPy, a=[0,2]; b=[4,5,6]
  EXPECT_DOUBLE_EQ(student->t, -12.0 / std::sqrt(10.0));
  EXPECT_DOUBLE_EQ(student->df, 3.0);
  expect_relative(student->p, 0.03211941605041678);  // SciPy
  EXPECT_DOUBLE_EQ(*cohens_d(a, b), -2.0 * std::sqrt(3.0));
}

TEST(TTests, MatchSciPyOnUncertaintyLikeGroups) {
  // SciPy, a=[0.67,0.9,0.33,1.0,0.55,0.72,0.61]; b=[0.1,0.0,0.33,0.05,0.12,0.2,0.0,0.08,0.15].
  const auto welch = welch_t_test(kFailed, kSucceeded);
  ASSERT_TRUE(welch);
  expect_relative(welch->t, 6.250003918115091);
  expect_relative(welch->df, 8.04706010614637);  // numpy
  expect_relative(welch->p, 0.00023978799081129923);
  const auto student = student_t_test(kFailed, kSucceeded);
  ASSERT_TRUE(student);
  expect_relative(student->t, 6.814257521681056);
  EXPECT_DOUBLE_EQ(student->df, 14.0);
  expect_relative(student->p, 8.402327509918111e-06);
  expect_relative(*cohens_d(kFailed, kSucceeded), 3.4340630041751243);  // numpy
}

TEST(TTests, KeepTheDigitsOfAVerySmallP) {
  // Well separated groups: p far below machine epsilon is still a relative match (the upper tail
  // is computed as a complement, not as 1 − CDF). SciPy, a=[0.9,0.95,0.92,0.97,0.91,0.93,0.96,
  // 0.94]; b=[0.1,0.12,0.09,0.11,0.13,0.08,0.1,0.12,0.11,0.1].
  const std::vector<double> a = {0.9, 0.95, 0.92, 0.97, 0.91, 0.93, 0.96, 0.94};
  const std::vector<double> b = {0.1, 0.12, 0.09, 0.11, 0.13, 0.08, 0.1, 0.12, 0.11, 0.1};
  expect_relative(welch_t_test(a, b)->t, 83.88442805208001);
  expect_relative(welch_t_test(a, b)->df, 11.083124143174194);  // numpy
  expect_relative(welch_t_test(a, b)->p, 6.838940799611594e-17, 1e-8);
  expect_relative(student_t_test(a, b)->t, 88.4974930029449);
  expect_relative(student_t_test(a, b)->p, 5.867676739387084e-23, 1e-8);
  expect_relative(*cohens_d(a, b), 41.978046765618025);  // numpy
}

TEST(TTests, OneConstantGroupIsStillDefined) {
  // a constant: Welch's standard error is b's alone, df = n_b − 1 = 3. SciPy, a=[0.5,0.5,0.5];
  // b=[0.1,0.5,0.3,0.9]; d by numpy.
  const std::vector<double> a = {0.5, 0.5, 0.5}, b = {0.1, 0.5, 0.3, 0.9};
  const auto welch = welch_t_test(a, b);
  ASSERT_TRUE(welch);
  expect_relative(welch->t, 0.29277002188456025);
  EXPECT_DOUBLE_EQ(welch->df, 3.0);
  expect_relative(welch->p, 0.7887799817897356);
  expect_relative(student_t_test(a, b)->t, 0.247435829652697);
  expect_relative(student_t_test(a, b)->p, 0.8144103779981723);
  expect_relative(*cohens_d(a, b), 0.18898223650461377);
}

TEST(TTests, UndefinedWithFewerThanTwoPerGroupOrNoSpreadAtAll) {
  const std::vector<double> one = {0.4}, none = {}, two = {0.1, 0.3}, three = {0.2, 0.6, 0.9};
  for (const auto& [a, b] :
       {std::pair{one, three}, std::pair{three, one}, std::pair{none, three}, std::pair{one, one}}) {
    EXPECT_FALSE(welch_t_test(a, b));
    EXPECT_FALSE(student_t_test(a, b));
    EXPECT_FALSE(cohens_d(a, b));
  }
  EXPECT_TRUE(welch_t_test(two, three));  // two per group is enough
  EXPECT_TRUE(student_t_test(two, three));
  EXPECT_TRUE(cohens_d(two, three));
  // Both groups constant: the standard error and s_pooled are 0 — undefined, whether the means
  // differ (t = ±∞) or not (0/0).
  const std::vector<double> zeros = {0.0, 0.0, 0.0}, thirds = {1.0 / 3, 1.0 / 3};
  for (const auto& other : {zeros, thirds}) {
    EXPECT_FALSE(welch_t_test(zeros, other));
    EXPECT_FALSE(student_t_test(zeros, other));
    EXPECT_FALSE(cohens_d(zeros, other));
  }
}

TEST(PearsonTest, HandWorkedWithOneDegreeOfFreedom) {
  // x = {1, 2, 3}, y = {1, 3, 2}: r = 1/2, t = (1/2) √(1 / (3/4)) = 1/√3, 1 df (Cauchy):
  // p = 1 − (2/π) atan(1/√3) = 1 − (2/π)(π/6) = 2/3.
  const auto test = pearson_test(std::vector<double>{1, 2, 3}, std::vector<double>{1, 3, 2});
  ASSERT_TRUE(test);
  EXPECT_NEAR(test->r, 0.5, 1e-15);
  EXPECT_EQ(test->n, 3);
  expect_relative(test->p, 2.0 / 3.0, 1e-12);
}

TEST(PearsonTest, MatchesSciPy) {
  // SciPy, stats.pearsonr([1,2,3,4,5,6], [2,1,4,3,7,5]).
  const auto test =
      pearson_test(std::vector<double>{1, 2, 3, 4, 5, 6}, std::vector<double>{2, 1, 4, 3, 7, 5});
  ASSERT_TRUE(test);
  expect_relative(test->r, 0.7917946548886294);
  EXPECT_EQ(test->n, 6);
  expect_relative(test->p, 0.06051140336275671);
}

TEST(PearsonTest, PointBiserialWithCorrectnessMatchesSciPy) {
  // U against correct (0/1): higher uncertainty, fewer correct. SciPy, stats.pearsonr(
  // [0.1,0.4,0.35,0.8,0.6,0.2,0.9,0.55,0.3,0.7], [1,0,1,0,0,1,0,1,1,0]).
  const std::vector<double> u = {0.1, 0.4, 0.35, 0.8, 0.6, 0.2, 0.9, 0.55, 0.3, 0.7};
  const std::vector<double> correct = {1, 0, 1, 0, 0, 1, 0, 1, 1, 0};
  const auto test = pearson_test(u, correct);
  ASSERT_TRUE(test);
  expect_relative(test->r, -0.760608730574164);
  EXPECT_EQ(test->n, 10);
  expect_relative(test->p, 0.010638500429253172);
  // Symmetric in its arguments.
  expect_relative(pearson_test(correct, u)->p, 0.010638500429253172);
}

TEST(PearsonTest, UndefinedBelowThreePointsOrWithAConstantSideAndZeroPOnALine) {
  EXPECT_FALSE(pearson_test(std::vector<double>{1, 2}, std::vector<double>{3, 5}));  // n − 2 = 0
  EXPECT_FALSE(pearson_test(std::vector<double>{}, std::vector<double>{}));
  EXPECT_FALSE(pearson_test(std::vector<double>{1, 2, 3}, std::vector<double>{1, 1, 1}));  // constant y
  EXPECT_FALSE(pearson_test(std::vector<double>{4, 4, 4, 4}, std::vector<double>{1, 0, 1, 0}));
  // r exactly −1 (sums of squares 4, a product of 2 · 2): t = −∞, p = 0 exactly, as SciPy gives.
  const auto line = pearson_test(std::vector<double>{0, 0, 2, 2}, std::vector<double>{3, 3, 1, 1});
  ASSERT_TRUE(line);
  EXPECT_EQ(line->r, -1.0);
  EXPECT_EQ(line->p, 0.0);
  // A line whose r rounds to 1 − 1 ulp: p at the level of that rounding (SciPy prints 0.0).
  const auto near_line = pearson_test(std::vector<double>{1, 2, 3, 4}, std::vector<double>{7, 5, 3, 1});
  ASSERT_TRUE(near_line);
  EXPECT_DOUBLE_EQ(near_line->r, -1.0);
  EXPECT_LT(near_line->p, 1e-15);
  EXPECT_THROW(pearson_test(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2}), std::invalid_argument);
  EXPECT_THROW(pearson_test(std::vector<double>{1, 2}, std::vector<double>{1, 2, 3}), std::invalid_argument);  // before n < 3
}

}  // namespace
}  // namespace parley
