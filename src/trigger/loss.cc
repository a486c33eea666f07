// FocusCal (iMAD eq. 5–8), BCE and MSE with their gradients with respect to the logits, the
// public loss-value helpers, and the loss spec parser for the App. C.2 ablations.

#include "trigger/loss.h"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/text.h"
#include "parley/stats.h"
#include "trigger/mlp.h"

namespace parley {
namespace {

// log(1 + e^x) without overflow.
double softplus(double x) { return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

struct TermInfo {
  LossTerm term;
  const char* name;
};
constexpr std::array<TermInfo, 5> kTerms = {{{LossTerm::kAsymmetricFocal, "af"},
                                             {LossTerm::kConfidencePenalty, "cp"},
                                             {LossTerm::kCalibration, "ece"},
                                             {LossTerm::kBinaryCrossEntropy, "bce"},
                                             {LossTerm::kSquaredError, "mse"}}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string format_weight(double w) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, w);  // shortest round-trip form
  return std::string(buf, res.ptr);
}

void check_sizes(std::size_t a, std::size_t b, const char* what) {
  if (a != b) throw std::invalid_argument(std::string(what) + ": inputs differ in length");
}

}  // namespace

Result<LossSpec> parse_loss_spec(std::string_view text, const FocusCalParams& params) {
  const std::string original(text);
  auto fail = [&original](const std::string& why) { return Error{"loss spec '" + original + "': " + why}; };
  std::string lowered = ascii_lower(trim(text));
  if (lowered == "focuscal") lowered = "af+cp+ece";  // iMAD eq. (5)
  if (lowered.empty()) return fail("empty; use terms af, cp, ece, bce, mse joined by '+', or focuscal");

  std::array<bool, kTerms.size()> present{};
  std::array<double, kTerms.size()> explicit_weight{};
  std::array<bool, kTerms.size()> has_weight{};
  std::string_view rest = lowered;
  for (;;) {
    const std::size_t plus = rest.find('+');
    const std::string_view token = trim(rest.substr(0, plus));
    if (token.empty()) return fail("empty term");
    std::string_view name = token;
    double weight = 1.0;
    bool weighted = false;
    if (const std::size_t star = token.find('*'); star != std::string_view::npos) {
      const std::string_view number = trim(token.substr(0, star));
      name = trim(token.substr(star + 1));
      const auto res = std::from_chars(number.data(), number.data() + number.size(), weight);
      if (number.empty() || res.ec != std::errc() || res.ptr != number.data() + number.size()) {
        return fail("bad weight '" + std::string(number) + "'");
      }
      if (!std::isfinite(weight) || weight < 0.0) {
        return fail("weight '" + std::string(number) + "' must be a finite non-negative number");
      }
      weighted = true;
    }
    std::size_t index = kTerms.size();
    for (std::size_t i = 0; i < kTerms.size(); ++i) {
      if (name == kTerms[i].name) index = i;
    }
    if (index == kTerms.size()) {
      if (name == "focuscal") return fail("focuscal stands alone; spell it af+cp+ece to combine");
      return fail("unknown term '" + std::string(name) + "' (known: af, cp, ece, bce, mse, focuscal)");
    }
    if (present[index]) return fail("term '" + std::string(name) + "' appears twice");
    present[index] = true;
    has_weight[index] = weighted;
    explicit_weight[index] = weight;
    if (plus == std::string_view::npos) break;
    rest.remove_prefix(plus + 1);
  }

  // Default weights of eq. (5). App. C.2 (iii) replaces ECE with BCE or MSE "while keeping other
  // terms of L_AF and L_CP fixed"; our reading: the replacement takes ECE's slot and weight μ.
  const bool replaces_ece = present[0] && present[1] && !present[2];
  const std::array<double, kTerms.size()> defaults = {
      1.0, params.lambda, params.mu, replaces_ece ? params.mu : 1.0, replaces_ece ? params.mu : 1.0};
  LossSpec spec;
  for (std::size_t i = 0; i < kTerms.size(); ++i) {
    if (!present[i]) continue;
    const double w = has_weight[i] ? explicit_weight[i] : defaults[i];
    spec.terms.push_back({kTerms[i].term, w});
    if (!spec.text.empty()) spec.text += '+';
    if (w != 1.0) spec.text += format_weight(w) + "*";
    spec.text += kTerms[i].name;
  }
  return spec;
}

double focal_loss(const std::vector<double>& p, const std::vector<int>& y, const FocusCalParams& params) {
  check_sizes(p.size(), y.size(), "focal_loss");
  if (p.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    // iMAD eq. (6).
    sum += y[i] == 1 ? -params.alpha1 * std::pow(1.0 - p[i], params.gamma) * std::log(p[i])
                     : -params.alpha0 * std::pow(p[i], params.gamma) * std::log(1.0 - p[i]);
  }
  return sum / static_cast<double>(p.size());
}

double confidence_penalty(const std::vector<double>& p, const std::vector<double>& u,
                          const std::vector<int>& y, const FocusCalParams& params) {
  check_sizes(p.size(), y.size(), "confidence_penalty");
  check_sizes(p.size(), u.size(), "confidence_penalty");
  if (p.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    // iMAD eq. (7).
    if (y[i] == 0 && p[i] > params.penalty_tau()) sum += u[i] * u[i];
    if (y[i] == 1 && p[i] < params.penalty_tau()) sum += (1.0 - u[i]) * (1.0 - u[i]);
  }
  return sum / static_cast<double>(p.size());
}

namespace trigger {

int calibration_bin(double p, int bins) { return parley::calibration_bin(p, bins); }

BatchLoss batch_loss(const LossSpec& spec, const FocusCalParams& params, const Eigen::RowVectorXd& z,
                     const Eigen::RowVectorXd& l_u, const std::vector<int>& y) {
  const Eigen::Index n = z.size();
  const double inv_n = 1.0 / static_cast<double>(n);
  BatchLoss out;
  out.dz = Eigen::RowVectorXd::Zero(n);
  out.dl_u = Eigen::RowVectorXd::Zero(n);
  Eigen::RowVectorXd p(n), q(n), u(n);  // q = 1 − p, computed as σ(−z) for accuracy
  for (Eigen::Index i = 0; i < n; ++i) {
    p[i] = sigmoid(z[i]);
    q[i] = sigmoid(-z[i]);
    u[i] = sigmoid(l_u[i]);
  }
  for (const WeightedLossTerm& t : spec.terms) {
    const double w = t.weight;
    switch (t.term) {
      case LossTerm::kAsymmetricFocal:
        // iMAD eq. (6), with log p = −softplus(−z) and log(1 − p) = −softplus(z). Through
        // dp/dz = p(1 − p):  y = 1: dL/dz = α1[γ p (1−p)^γ log p − (1−p)^(γ+1)],
        //                    y = 0: dL/dz = α0[p^(γ+1) − γ (1−p) p^γ log(1−p)].
        for (Eigen::Index i = 0; i < n; ++i) {
          const double g = params.gamma;
          if (y[i] == 1) {
            const double log_p = -softplus(-z[i]);
            out.value += w * inv_n * -params.alpha1 * std::pow(q[i], g) * log_p;
            out.dz[i] +=
                w * inv_n * params.alpha1 * (g * p[i] * std::pow(q[i], g) * log_p - std::pow(q[i], g + 1.0));
          } else {
            const double log_q = -softplus(z[i]);
            out.value += w * inv_n * -params.alpha0 * std::pow(p[i], g) * log_q;
            out.dz[i] +=
                w * inv_n * params.alpha0 * (std::pow(p[i], g + 1.0) - g * q[i] * std::pow(p[i], g) * log_q);
          }
        }
        break;
      case LossTerm::kConfidencePenalty:
        // iMAD eq. (7). The indicators (p > τ, p < τ) are constants, so only u receives gradient:
        // d(u²)/dℓ_u = 2u·u(1−u), d((1−u)²)/dℓ_u = −2(1−u)·u(1−u).
        for (Eigen::Index i = 0; i < n; ++i) {
          const double du = u[i] * (1.0 - u[i]);
          if (y[i] == 0 && p[i] > params.penalty_tau()) {
            out.value += w * inv_n * u[i] * u[i];
            out.dl_u[i] += w * inv_n * 2.0 * u[i] * du;
          } else if (y[i] == 1 && p[i] < params.penalty_tau()) {
            out.value += w * inv_n * (1.0 - u[i]) * (1.0 - u[i]);
            out.dl_u[i] -= w * inv_n * 2.0 * (1.0 - u[i]) * du;
          }
        }
        break;
      case LossTerm::kCalibration: {
        // iMAD eq. (8): Σ_b |Σ_{i∈b} p − Σ_{i∈b} y| / N. Bin membership is constant; each member of
        // bin b gets sign(Σp − Σy)/N · dp/dz, with sign(0) = 0.
        std::vector<double> gap(static_cast<std::size_t>(params.bins), 0.0);
        std::vector<int> bin(static_cast<std::size_t>(n));
        for (Eigen::Index i = 0; i < n; ++i) {
          bin[i] = calibration_bin(p[i], params.bins);
          gap[bin[i]] += p[i] - y[i];
        }
        for (double g : gap) out.value += w * inv_n * std::abs(g);
        for (Eigen::Index i = 0; i < n; ++i) {
          const double g = gap[bin[i]];
          const double sign = g > 0.0 ? 1.0 : (g < 0.0 ? -1.0 : 0.0);
          out.dz[i] += w * inv_n * sign * p[i] * q[i];
        }
        break;
      }
      case LossTerm::kBinaryCrossEntropy:
        // −[y log p + (1 − y) log(1 − p)] = softplus(−z) or softplus(z); dL/dz = p − y.
        for (Eigen::Index i = 0; i < n; ++i) {
          out.value += w * inv_n * (y[i] == 1 ? softplus(-z[i]) : softplus(z[i]));
          out.dz[i] += w * inv_n * (p[i] - y[i]);
        }
        break;
      case LossTerm::kSquaredError:
        // (p − y)²; dL/dz = 2(p − y)·p(1 − p).
        for (Eigen::Index i = 0; i < n; ++i) {
          const double d = p[i] - y[i];
          out.value += w * inv_n * d * d;
          out.dz[i] += w * inv_n * 2.0 * d * p[i] * q[i];
        }
        break;
    }
  }
  return out;
}

}  // namespace trigger
}  // namespace parley
