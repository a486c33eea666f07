// Two independent samples (Welch's and Student's t-tests, Cohen's d with the pooled SD) and the
// test of a Pearson correlation: UDPO's diagnosis of failed against successful debates (§3.2,
// Fig. 2; App. C.3, Fig. 9) and its correlation matrix (Fig. 3). The t distribution is
// Boost.Math's; results are checked against SciPy 1.10.1 in hypothesis_test.cc.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/math/distributions/students_t.hpp>

#include "parley/agreement.h"
#include "parley/stats.h"

namespace parley {
namespace {

// Two-sided p of a t statistic with `df` degrees of freedom: 2 P(T > |t|), the upper tail taken
// as the complement so that a p far below machine epsilon keeps its digits.
double two_sided_p(double t, double df) {
  const boost::math::students_t distribution(df);
  return 2.0 * boost::math::cdf(boost::math::complement(distribution, std::fabs(t)));
}

// Both groups' sizes, means and variances, once they are known to be estimable.
struct TwoGroups {
  double n_a = 0.0, n_b = 0.0;
  double mean_a = 0.0, mean_b = 0.0;
  double var_a = 0.0, var_b = 0.0;

  double pooled_variance() const { return ((n_a - 1.0) * var_a + (n_b - 1.0) * var_b) / (n_a + n_b - 2.0); }
};

// nullopt when a group has fewer than two values: no variance to estimate.
std::optional<TwoGroups> two_groups(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return std::nullopt;
  return TwoGroups{static_cast<double>(a.size()),
                   static_cast<double>(b.size()),
                   mean(a),
                   mean(b),
                   sample_variance(a),
                   sample_variance(b)};
}

}  // namespace

double sample_variance(std::span<const double> values) {
  if (values.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const double n = static_cast<double>(values.size());
  double offsets = 0.0;
  for (double v : values) offsets += v - values.front();
  const double centre = values.front() + offsets / n;
  double squares = 0.0;
  for (double v : values) squares += (v - centre) * (v - centre);
  return squares / (n - 1.0);
}

std::optional<TTest> welch_t_test(std::span<const double> a, std::span<const double> b) {
  const std::optional<TwoGroups> g = two_groups(a, b);
  if (!g) return std::nullopt;
  const double share_a = g->var_a / g->n_a, share_b = g->var_b / g->n_b;  // squared standard errors
  const double squared_error = share_a + share_b;
  if (squared_error == 0.0) return std::nullopt;  // both groups constant
  // Welch–Satterthwaite: (s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a − 1) + (s_b²/n_b)²/(n_b − 1)).
  const double df = squared_error * squared_error /
                    (share_a * share_a / (g->n_a - 1.0) + share_b * share_b / (g->n_b - 1.0));
  const double t = (g->mean_a - g->mean_b) / std::sqrt(squared_error);
  return TTest{t, df, two_sided_p(t, df)};
}

std::optional<TTest> student_t_test(std::span<const double> a, std::span<const double> b) {
  const std::optional<TwoGroups> g = two_groups(a, b);
  if (!g) return std::nullopt;
  const double pooled = g->pooled_variance();
  if (pooled == 0.0) return std::nullopt;  // both groups constant
  const double df = g->n_a + g->n_b - 2.0;
  const double t = (g->mean_a - g->mean_b) / std::sqrt(pooled * (1.0 / g->n_a + 1.0 / g->n_b));
  return TTest{t, df, two_sided_p(t, df)};
}

std::optional<double> cohens_d(std::span<const double> a, std::span<const double> b) {
  const std::optional<TwoGroups> g = two_groups(a, b);
  if (!g) return std::nullopt;
  const double pooled = g->pooled_variance();
  if (pooled == 0.0) return std::nullopt;  // no spread to measure the difference in
  return (g->mean_a - g->mean_b) / std::sqrt(pooled);
}

std::optional<CorrelationTest> pearson_test(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) throw std::invalid_argument("pearson_test: inputs differ in length");
  if (x.size() < 3) return std::nullopt;  // n − 2 = 0 degrees of freedom: any two points lie on a line
  const double r = pearson_correlation(x, y);
  if (std::isnan(r)) return std::nullopt;  // a constant side
  const auto n = static_cast<std::int64_t>(x.size());
  const double df = static_cast<double>(n - 2);
  // |r| = 1 (a perfect line) makes t = ±∞, whose tail Boost's cdf gives as exactly 0.
  return CorrelationTest{r, n, two_sided_p(r * std::sqrt(df / (1.0 - r * r)), df)};
}

}  // namespace parley
