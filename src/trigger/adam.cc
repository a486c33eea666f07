// Adam optimiser for the trigger network (the optimiser iMAD §5 trains with, lr 1e-3).

#include "trigger/adam.h"

#include <cmath>

namespace parley::trigger {

Adam::Adam(const Network& net, double learning_rate, double beta1, double beta2, double eps)
    : lr_(learning_rate), beta1_(beta1), beta2_(beta2), eps_(eps) {
  Network shape = zeros_like(net);
  for (const ParameterView& p : parameters(shape)) {
    m_.emplace_back(p.size, 0.0);
    v_.emplace_back(p.size, 0.0);
  }
}

void Adam::step(Network& net, Network& grad) {
  ++t_;
  // torch.optim.Adam's form: step lr/(1 − β1ᵗ), denominator √v/√(1 − β2ᵗ) + eps.
  const double step = lr_ / (1.0 - std::pow(beta1_, static_cast<double>(t_)));
  const double inv_sqrt_c2 = 1.0 / std::sqrt(1.0 - std::pow(beta2_, static_cast<double>(t_)));
  const std::vector<ParameterView> params = parameters(net);
  const std::vector<ParameterView> grads = parameters(grad);
  for (std::size_t k = 0; k < params.size(); ++k) {
    std::vector<double>& m = m_[k];
    std::vector<double>& v = v_[k];
    double* x = params[k].data;
    const double* g = grads[k].data;
    for (std::size_t i = 0; i < params[k].size; ++i) {
      m[i] = beta1_ * m[i] + (1.0 - beta1_) * g[i];
      v[i] = beta2_ * v[i] + (1.0 - beta2_) * g[i] * g[i];
      x[i] -= step * m[i] / (std::sqrt(v[i]) * inv_sqrt_c2 + eps_);
    }
  }
}

}  // namespace parley::trigger
