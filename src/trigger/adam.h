#pragma once
// Adam (Kingma & Ba 2015) over a Network's parameters, as torch.optim.Adam without weight decay:
// bias-corrected first and second moments, step lr·m̂/(√v̂ + eps).

#include <vector>

#include "trigger/mlp.h"

namespace parley::trigger {

class Adam {
 public:
  explicit Adam(const Network& net, double learning_rate, double beta1 = 0.9, double beta2 = 0.999,
                double eps = 1e-8);
  // One update of `net` with gradients `grad` (a Network of the same shape).
  void step(Network& net, Network& grad);

 private:
  double lr_, beta1_, beta2_, eps_;
  long long t_ = 0;
  std::vector<std::vector<double>> m_, v_;  // one pair per ParameterView, in parameters() order
};

}  // namespace parley::trigger
