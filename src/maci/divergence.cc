// Entropies and divergences between belief distributions (MACI §3.2, App. D.4, App. M).

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "parley/maci.h"

namespace parley::maci {
namespace {

void require_same_size(std::span<const double> p, std::span<const double> q) {
  if (p.size() != q.size()) throw std::invalid_argument("distributions over different outcome spaces");
}

double entropy_bits(std::span<const double> p) { return entropy(p) / std::log(2.0); }

}  // namespace

double entropy(std::span<const double> p) {
  double h = 0.0;
  for (double x : p) {
    if (x > 0.0) h -= x * std::log(x);
  }
  return h;
}

double normalized_entropy(std::span<const double> p) {
  if (p.size() <= 1) return 0.0;
  return entropy(p) / std::log(static_cast<double>(p.size()));
}

double kl_divergence_bits(std::span<const double> p, std::span<const double> q) {
  require_same_size(p, q);
  double kl = 0.0;
  for (std::size_t y = 0; y < p.size(); ++y) {
    if (p[y] <= 0.0) continue;
    if (q[y] <= 0.0) return std::numeric_limits<double>::infinity();
    kl += p[y] * std::log2(p[y] / q[y]);
  }
  return kl;
}

double js_divergence(std::span<const double> p, std::span<const double> q) {
  require_same_size(p, q);
  Distribution middle(p.size());
  for (std::size_t y = 0; y < p.size(); ++y) middle[y] = 0.5 * (p[y] + q[y]);
  const double divergence = 0.5 * kl_divergence_bits(p, middle) + 0.5 * kl_divergence_bits(q, middle);
  return std::clamp(divergence, 0.0, 1.0);  // rounding only: the bound holds exactly in base 2
}

double generalized_js_divergence(std::span<const Distribution> beliefs, std::span<const double> weights) {
  if (beliefs.size() != weights.size()) throw std::invalid_argument("one weight per belief required");
  if (beliefs.empty()) return 0.0;
  const Distribution pooled = mixture(beliefs, weights);
  double within = 0.0;
  for (std::size_t u = 0; u < beliefs.size(); ++u) within += weights[u] * entropy_bits(beliefs[u]);
  return std::max(0.0, entropy_bits(pooled) - within);
}

double mean_kl_to_centroid(std::span<const Distribution> beliefs) {
  if (beliefs.empty()) return 0.0;
  const std::vector<double> uniform(beliefs.size(), 1.0 / static_cast<double>(beliefs.size()));
  const Distribution centroid = mixture(beliefs, uniform);
  double total = 0.0;
  for (const Distribution& p : beliefs) total += kl_divergence_bits(p, centroid);
  return total / static_cast<double>(beliefs.size());
}

double normalized_wasserstein_ordinal(std::span<const double> p, std::span<const double> q) {
  require_same_size(p, q);
  if (p.size() <= 1) return 0.0;
  double cdf_gap = 0.0, cdf_p = 0.0, cdf_q = 0.0;
  for (std::size_t k = 0; k + 1 < p.size(); ++k) {
    cdf_p += p[k];
    cdf_q += q[k];
    cdf_gap += std::abs(cdf_p - cdf_q);
  }
  return cdf_gap / static_cast<double>(p.size() - 1);
}

double total_variation(std::span<const double> p, std::span<const double> q) {
  require_same_size(p, q);
  double sum = 0.0;
  for (std::size_t y = 0; y < p.size(); ++y) sum += std::abs(p[y] - q[y]);
  return 0.5 * sum;
}

Distribution smoothed(std::span<const double> p, double smoothing) {
  Distribution out(p.begin(), p.end());
  if (p.empty()) return out;
  const double uniform = 1.0 / static_cast<double>(p.size());
  for (double& x : out) x = (1.0 - smoothing) * x + smoothing * uniform;
  return out;
}

double normalized_cross_entropy(std::span<const double> p, std::span<const double> q, double smoothing) {
  require_same_size(p, q);
  if (p.size() <= 1) return 0.0;
  const Distribution ps = smoothed(p, smoothing);
  const Distribution qs = smoothed(q, smoothing);
  double cross = 0.0;
  for (std::size_t y = 0; y < ps.size(); ++y) {
    if (ps[y] > 0.0) cross -= ps[y] * std::log(qs[y]);
  }
  return cross / std::log(static_cast<double>(p.size()));
}

}  // namespace parley::maci
