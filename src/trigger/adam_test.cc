// Adam (src/trigger/adam.cc) against Kingma & Ba (2015), Algorithm 1, worked by hand for the
// first three updates with β1 = 0.9, β2 = 0.999, ε = 1e-8 and bias correction:
//   m_t = β1 m + (1 − β1) g,  v_t = β2 v + (1 − β2) g²,  m̂ = m_t/(1 − β1ᵗ),  v̂ = v_t/(1 − β2ᵗ),
//   θ_t = θ_{t−1} − α m̂/(√v̂ + ε).
// (The same recurrence in a few lines of python3 floats gives the same digits.)

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "trigger/adam.h"
#include "trigger/mlp.h"

namespace parley::trigger {
namespace {

// A 1 × 1 network: every parameter is one scalar (weight, bias, γ, β, both heads, w1, w2, ε).
Network scalar_network() {
  Rng rng(1);
  Network net = make_network(1, MlpShape{1, 1, 0.0}, rng);
  net.w1 = 0.6;
  net.w2 = 1.7;
  net.epsilon = -0.3;
  net.blocks[0].bias[0] = 0.25;
  return net;
}

TEST(Adam, FirstThreeUpdatesFollowKingmaAndBa) {
  Network net = scalar_network();
  Network grad = zeros_like(net);
  Adam adam(net, 1e-3);  // iMAD §5: lr 0.001; β and ε are the defaults
  const double g_w1[] = {0.5, -0.2, 0.1};
  const double g_eps[] = {2e-8, 2e-8, -4e-8};  // small enough that ε = 1e-8 matters
  const double g_bias[] = {-3.0, -3.0, -3.0};
  // w1, t = 1: m = 0.05, v = 0.00025; m̂ = 0.5, v̂ = 0.25 → step 1e-3 · 0.5/(0.5 + 1e-8)
  //   θ = 0.6 − 0.00099999998 = 0.59900000002
  // t = 2: m = 0.045 − 0.02 = 0.025, v = 0.00024975 + 0.00004 = 0.00028975;
  //   m̂ = 0.025/0.19 = 0.131578947, v̂ = 0.00028975/0.001999 = 0.144947474, √v̂ = 0.380719695
  //   step 3.456058e-4 → θ = 0.598654394181
  // t = 3: m = 0.0225 + 0.01 = 0.0325, v = 0.000289460 + 0.00001 = 0.000299460;
  //   m̂ = 0.0325/0.271 = 0.119926199, v̂ = 0.000299460/0.002997001 = 0.099919897, √v̂ = 0.316101
  //   step 3.79392e-4 → θ = 0.598275002408
  const double w1_after[] = {0.59900000002, 0.5986543941811651, 0.598275002408357};
  // ε (the eq. 3 offset), t = 1: m̂ = 2e-8, √v̂ = 2e-8 → step 1e-3 · 2/3: θ = −0.300666666667
  // t = 2: the same gradient again: m̂ = 2e-8, √v̂ = 2e-8 → θ = −0.301333333333
  // t = 3: m = 0.9·3.8e-9 − 4e-9 = −5.8e-10 → m̂ = −2.1402e-9; v̂ = 8.0020e-16, √v̂ = 2.8288e-8
  //   step −1e-3 · 2.1402e-9/3.8288e-8 = −5.5893e-5 → θ = −0.301277440250
  const double eps_after[] = {-0.30066666666666664, -0.3013333333333333, -0.30127744024997166};
  // Block bias with a constant gradient −3: m̂ = −3, √v̂ = 3 every step → +1e-3·3/(3 + 1e-8) each.
  const double bias_after[] = {0.25099999999666667, 0.25199999999333333, 0.25299999999};
  for (int t = 0; t < 3; ++t) {
    grad.w1 = g_w1[t];
    grad.epsilon = g_eps[t];
    grad.blocks[0].bias[0] = g_bias[t];
    adam.step(net, grad);
    EXPECT_NEAR(net.w1, w1_after[t], 1e-14) << "t = " << t + 1;
    EXPECT_NEAR(net.epsilon, eps_after[t], 1e-14) << "t = " << t + 1;
    EXPECT_NEAR(net.blocks[0].bias[0], bias_after[t], 1e-14) << "t = " << t + 1;
    EXPECT_EQ(net.w2, 1.7) << "a zero gradient moves nothing";
  }
}

TEST(Adam, LearningRateScalesTheStep) {
  Network net = scalar_network();
  Network grad = zeros_like(net);
  Adam adam(net, 1e-2);
  // As above with α = 0.01: θ = 0.6 − 0.0099999998 = 0.5900000002, then 0.58654394181165,
  // then 0.58275002408357.
  const double g_w1[] = {0.5, -0.2, 0.1};
  const double w1_after[] = {0.5900000002, 0.586543941811651, 0.5827500240835696};
  for (int t = 0; t < 3; ++t) {
    grad.w1 = g_w1[t];
    adam.step(net, grad);
    EXPECT_NEAR(net.w1, w1_after[t], 1e-13) << "t = " << t + 1;
  }
}

// Every parameter array of the network is updated, each from its own gradient: with gradient 1
// everywhere the first step moves every scalar by −α·1/(1 + ε) = −0.00099999999.
TEST(Adam, UpdatesEveryParameter) {
  Network net = scalar_network();
  const Network before = net;
  Network grad = zeros_like(net);
  for (ParameterView v : parameters(grad)) std::fill(v.data, v.data + v.size, 1.0);
  Adam adam(net, 1e-3);
  adam.step(net, grad);
  Network copy = before;
  const std::vector<ParameterView> old_values = parameters(copy);
  const std::vector<ParameterView> new_values = parameters(net);
  ASSERT_EQ(new_values.size(), 11u);  // weight, bias, γ, β; p head 2; u head 2; w1, w2, ε
  for (std::size_t k = 0; k < new_values.size(); ++k) {
    for (std::size_t i = 0; i < new_values[k].size; ++i)
      EXPECT_NEAR(new_values[k].data[i], old_values[k].data[i] - 0.00099999999, 1e-15) << "array " << k;
  }
}

}  // namespace
}  // namespace parley::trigger
