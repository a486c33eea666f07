#pragma once
// The training objective: FocusCal (iMAD eq. 5) and the App. C.2 ablation terms, evaluated on a
// batch of logits with their gradients. Conventions (see docs/trigger.md): the indicator of
// eq. (7) and the bin membership of eq. (8) are constants in the gradient, so the confidence
// penalty only moves u; |·| of eq. (8) has subgradient 0 at 0.

#include <Eigen/Dense>
#include <vector>

#include "parley/trigger_model.h"

namespace parley::trigger {

// Bin of p among `bins` equal-width bins of [0, 1]: floor(p·bins), p = 1 in the last bin (eq. 8).
int calibration_bin(double p, int bins);

struct BatchLoss {
  double value = 0.0;
  Eigen::RowVectorXd dz;    // dL/dz per example, p = σ(z)
  Eigen::RowVectorXd dl_u;  // dL/dℓ_u per example, u = σ(ℓ_u)
};

// Σ weight·term over the spec's terms; per-example terms (af, cp, bce, mse) are batch means.
BatchLoss batch_loss(const LossSpec& spec, const FocusCalParams& params, const Eigen::RowVectorXd& z,
                     const Eigen::RowVectorXd& l_u, const std::vector<int>& y);

}  // namespace parley::trigger
