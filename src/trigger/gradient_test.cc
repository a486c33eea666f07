// The hand-written backward pass (mlp.cc) and loss gradients (loss.cc) against central finite
// differences: a 2-layer × 5-unit network, dropout 0, BatchNorm in training mode, double
// precision, every trainable parameter (both heads, w1, w2, ε, BatchNorm γ/β, Linear weights and
// biases), each loss term alone and combined.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "trigger/loss.h"
#include "trigger/mlp.h"

namespace parley::trigger {
namespace {

struct Fixture {
  Network net;
  Eigen::MatrixXd x;
  Eigen::RowVectorXd l_llm;
  std::vector<int> y;
};

Fixture make_fixture(std::uint64_t seed) {
  Rng rng(seed);
  Fixture f;
  f.net = make_network(3, MlpShape{2, 5, 0.0}, rng);
  // Move w1, w2, ε and BatchNorm γ/β off their initial values so that their gradients are generic.
  f.net.w1 = 0.8;
  f.net.w2 = 1.3;
  f.net.epsilon = 0.1;
  for (DenseBlock& b : f.net.blocks) {
    for (Eigen::Index i = 0; i < b.gamma.size(); ++i) {
      b.gamma[i] = rng.uniform(0.5, 1.5);
      b.beta[i] = rng.uniform(-0.3, 0.3);
    }
  }
  const int n = 10;
  f.x.resize(3, n);
  f.l_llm.resize(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) f.x(j, i) = rng.normal();
    f.l_llm[i] = 1.5 * rng.normal();
    f.y.push_back(i % 3 == 0 ? 0 : 1);
  }
  return f;
}

double loss_value(Network& net, const Fixture& f, const LossSpec& spec, const FocusCalParams& params) {
  const ForwardPass pass = forward_train(net, f.x, f.l_llm, nullptr, false);
  return batch_loss(spec, params, pass.z, pass.l_u, f.y).value;
}

// Distance of the pass from the kinks that finite differences cannot step over: ReLU at 0, the
// indicator p ≷ τ of eq. (7), the bin edges of eq. (8) and a bin gap of 0.
double distance_to_kinks(const ForwardPass& pass, const std::vector<int>& y, const FocusCalParams& params) {
  double d = 1.0;
  for (const BlockCache& c : pass.blocks) d = std::min(d, c.bn_out.cwiseAbs().minCoeff());
  std::vector<double> gap(static_cast<std::size_t>(params.bins), 0.0);
  for (Eigen::Index i = 0; i < pass.z.size(); ++i) {
    const double p = sigmoid(pass.z[i]);
    d = std::min(d, std::abs(p - params.threshold));
    const double edge = p * params.bins;
    d = std::min(d, std::abs(edge - std::round(edge)) / params.bins);
    gap[static_cast<std::size_t>(calibration_bin(p, params.bins))] += p - y[static_cast<std::size_t>(i)];
  }
  for (double g : gap) {
    if (g != 0.0) d = std::min(d, std::abs(g));
  }
  return d;
}

struct Check {
  double max_error = 0.0;
  std::size_t checked = 0;
};

Check compare_with_finite_differences(const Fixture& f, const std::string& spec_text) {
  const FocusCalParams params;
  const LossSpec spec = parse_loss_spec(spec_text, params).value();
  Network net = f.net;
  const ForwardPass pass = forward_train(net, f.x, f.l_llm, nullptr, false);
  EXPECT_GT(distance_to_kinks(pass, f.y, params), 1e-3)
      << "fixture too close to a kink for finite differences";
  const BatchLoss loss = batch_loss(spec, params, pass.z, pass.l_u, f.y);
  Network grad = zeros_like(net);
  backward(net, pass, loss.dz, loss.dl_u, grad);

  Check c;
  const double h = 1e-6;
  const std::vector<ParameterView> params_view = parameters(net);
  const std::vector<ParameterView> grads_view = parameters(grad);
  for (std::size_t k = 0; k < params_view.size(); ++k) {
    for (std::size_t i = 0; i < params_view[k].size; ++i) {
      double& theta = params_view[k].data[i];
      const double saved = theta;
      theta = saved + h;
      const double up = loss_value(net, f, spec, params);
      theta = saved - h;
      const double down = loss_value(net, f, spec, params);
      theta = saved;
      const double numeric = (up - down) / (2.0 * h);
      const double analytic = grads_view[k].data[i];
      const double error = std::abs(numeric - analytic) / std::max(1.0, std::abs(numeric));
      EXPECT_LT(error, 1e-6) << spec_text << ": parameter array " << k << " element " << i << " analytic "
                             << analytic << " numeric " << numeric;
      c.max_error = std::max(c.max_error, error);
      ++c.checked;
    }
  }
  return c;
}

class GradientCheck : public ::testing::TestWithParam<const char*> {};

TEST_P(GradientCheck, MatchesCentralDifferences) {
  const Fixture f = make_fixture(7);
  const Check c = compare_with_finite_differences(f, GetParam());
  // 2 blocks (3·5 + 5 + 5 + 5, 5·5 + 5 + 5 + 5) + heads 2·(5 + 1) + w1, w2, ε = 30 + 40 + 12 + 3.
  EXPECT_EQ(c.checked, 85u);
}

INSTANTIATE_TEST_SUITE_P(Terms, GradientCheck,
                         ::testing::Values("af", "cp", "ece", "bce", "mse", "focuscal", "af+cp+bce",
                                           "0.7*af+2*cp+3*ece+0.5*bce+4*mse"));

TEST(GradientCheck, FixtureExercisesEveryTerm) {
  const Fixture f = make_fixture(7);
  const FocusCalParams params;
  Network net = f.net;
  const ForwardPass pass = forward_train(net, f.x, f.l_llm, nullptr, false);
  std::vector<double> p, u;
  for (Eigen::Index i = 0; i < pass.z.size(); ++i) {
    p.push_back(sigmoid(pass.z[i]));
    u.push_back(sigmoid(pass.l_u[i]));
  }
  // Both branches of eq. (7) are active somewhere, and ECE is not zero.
  bool over = false, under = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    over = over || (f.y[i] == 0 && p[i] > params.threshold);
    under = under || (f.y[i] == 1 && p[i] < params.threshold);
  }
  EXPECT_TRUE(over);
  EXPECT_TRUE(under);
  EXPECT_GT(expected_calibration_error(p, f.y, params.bins), 0.0);
}

// The confidence penalty's indicator is a constant, so its gradient reaches u only: nothing flows
// into z (w1, w2, ε, the p head), while the u head and the shared encoder do get gradient.
TEST(GradientCheck, ConfidencePenaltyMovesOnlyU) {
  const Fixture f = make_fixture(7);
  const FocusCalParams params;
  Network net = f.net;
  const ForwardPass pass = forward_train(net, f.x, f.l_llm, nullptr, false);
  const BatchLoss loss = batch_loss(parse_loss_spec("cp", params).value(), params, pass.z, pass.l_u, f.y);
  EXPECT_EQ(loss.dz.cwiseAbs().maxCoeff(), 0.0);
  Network grad = zeros_like(net);
  backward(net, pass, loss.dz, loss.dl_u, grad);
  EXPECT_EQ(grad.w1, 0.0);
  EXPECT_EQ(grad.w2, 0.0);
  EXPECT_EQ(grad.epsilon, 0.0);
  EXPECT_EQ(grad.p_weight.cwiseAbs().maxCoeff(), 0.0);
  EXPECT_GT(grad.u_weight.cwiseAbs().maxCoeff(), 0.0);
  EXPECT_GT(grad.blocks[0].weight.cwiseAbs().maxCoeff(), 0.0);
}

// Dropout masks scale kept units by 1/(1 − rate); the backward pass applies the same mask.
TEST(GradientCheck, DropoutMaskIsAppliedInBackward) {
  Fixture f = make_fixture(11);
  f.net.dropout = 0.3;
  const FocusCalParams params;
  const LossSpec spec = parse_loss_spec("bce", params).value();
  Network net = f.net;
  Rng rng(5);
  const ForwardPass pass = forward_train(net, f.x, f.l_llm, &rng, false);
  const BatchLoss loss = batch_loss(spec, params, pass.z, pass.l_u, f.y);
  Network grad = zeros_like(net);
  backward(net, pass, loss.dz, loss.dl_u, grad);
  // Finite differences with the same mask: replay the same dropout draws each time.
  const double h = 1e-6;
  double& theta = net.blocks[0].weight(1, 2);
  const double saved = theta;
  auto value = [&] {
    Rng replay(5);
    const ForwardPass p = forward_train(net, f.x, f.l_llm, &replay, false);
    return batch_loss(spec, params, p.z, p.l_u, f.y).value;
  };
  theta = saved + h;
  const double up = value();
  theta = saved - h;
  const double down = value();
  theta = saved;
  EXPECT_NEAR(grad.blocks[0].weight(1, 2), (up - down) / (2 * h), 1e-7);
  double kept = 0.0;
  for (const BlockCache& c : pass.blocks) {
    for (Eigen::Index i = 0; i < c.mask.size(); ++i) {
      const double m = c.mask.data()[i];
      EXPECT_TRUE(m == 0.0 || std::abs(m - 1.0 / 0.7) < 1e-15);
      kept += m > 0.0 ? 1.0 : 0.0;
    }
  }
  EXPECT_GT(kept, 0.0);
}

// BatchNorm running statistics: momentum 0.1 and the unbiased batch variance (PyTorch).
TEST(BatchNorm, RunningStatisticsFollowPyTorch) {
  Rng rng(3);
  Network net = make_network(1, MlpShape{1, 1, 0.0}, rng);
  net.blocks[0].weight(0, 0) = 1.0;
  net.blocks[0].bias[0] = 0.0;
  Eigen::MatrixXd x(1, 4);
  x << 1.0, 2.0, 3.0, 6.0;  // mean 3, Σ(x − 3)² = 4 + 1 + 0 + 9 = 14, unbiased var 14/3
  const Eigen::RowVectorXd l_llm = Eigen::RowVectorXd::Zero(4);
  (void)forward_train(net, x, l_llm, nullptr, true);
  EXPECT_NEAR(net.blocks[0].running_mean[0], 0.3, 1e-15);                    // 0.9·0 + 0.1·3
  EXPECT_NEAR(net.blocks[0].running_var[0], 0.9 + 0.1 * 14.0 / 3.0, 1e-15);  // 0.9·1 + 0.1·14/3
}

TEST(LlmLogit, ClampsTheConfidence) {
  EXPECT_NEAR(llm_logit(0.5), 0.0, 1e-15);
  EXPECT_NEAR(llm_logit(0.8), std::log(4.0), 1e-15);  // log(.8/.2)
  EXPECT_NEAR(llm_logit(1.0), std::log(0.9999 / 1e-4), 1e-9);
  EXPECT_NEAR(llm_logit(0.0), -std::log(0.9999 / 1e-4), 1e-9);
  EXPECT_NEAR(llm_logit(7.0), llm_logit(1.0), 0.0);
}

}  // namespace
}  // namespace parley::trigger
