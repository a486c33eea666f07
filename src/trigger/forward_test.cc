// The classifier's forward passes (iMAD §4.2, eqs. 1–4) on a tiny network with hand-set weights,
// in eval mode (score) and training mode (batch statistics), and the initialisation of
// docs/trigger.md. Every pinned value is worked out by hand below (and was re-checked with a few
// lines of python3 doing the same arithmetic in plain floats).

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/hash.h"
#include "parley/trigger_model.h"
#include "trigger/mlp.h"
#include "trigger/trigger_test_support.h"

namespace parley {
namespace {

using nlohmann::json;

// One block of two units over two standardised inputs, every parameter away from its initial
// value (w1 ≠ 1, w2 ≠ 1, ε ≠ 0), BatchNorm's running variance chosen so that var + eps is
// 1 and 4 (inverse standard deviations 1 and 1/2).
trigger::Network hand_set_network() {
  trigger::Network net;
  trigger::DenseBlock b;
  b.weight.resize(2, 2);
  b.weight << 1.0, -1.0,  //
      0.5, 2.0;
  b.bias.resize(2);
  b.bias << 0.1, -0.2;
  b.gamma.resize(2);
  b.gamma << 2.0, -0.5;
  b.beta.resize(2);
  b.beta << -0.1, 0.3;
  b.running_mean.resize(2);
  b.running_mean << 0.1, 0.4;
  b.running_var.resize(2);
  b.running_var << 1.0 - 1e-5, 4.0 - 1e-5;
  net.blocks.push_back(b);
  net.p_weight.resize(2);
  net.p_weight << 1.5, -0.4;
  net.p_bias = 0.2;
  net.u_weight.resize(2);
  net.u_weight << -1.0, 2.0;
  net.u_bias = 0.1;
  net.w1 = 0.6;
  net.w2 = 1.7;
  net.epsilon = -0.3;
  net.dropout = 0.0;
  net.bn_eps = 1e-5;
  return net;
}

// Eval mode, eqs. (1)–(3), on the standardised input x = (1.2, 1):
//   Linear      a = (1.2 − 1 + 0.1, 0.6 + 2 − 0.2) = (0.3, 2.4)
//   BatchNorm   ((0.3 − 0.1)/1 · 2 − 0.1, (2.4 − 0.4)/2 · (−0.5) + 0.3) = (0.3, −0.2)
//   ReLU        h = (0.3, 0)
//   heads       ℓ_p = 1.5·0.3 + 0.2 = 0.65,  ℓ_u = −1·0.3 + 0.1 = −0.2
//   eq. (3)     z = 0.6·ℓ_LLM + 1.7·0.65 − 0.3 = 0.6·ℓ_LLM + 0.805
// With ℓ_LLM = ln 4 (p_LLM = 0.8): z = 0.831776616671934 + 0.805 = 1.636776616671935.
// Dropping w1 would give z = 2.191, dropping w2 0.532, dropping ε 1.937.
TEST(TriggerForward, EvalModeFollowsEquationsOneToThree) {
  const trigger::Network net = hand_set_network();
  Eigen::VectorXd x(2);
  x << 1.2, 1.0;
  const trigger::Logits l = trigger::forward_eval(net, x, std::log(4.0));
  EXPECT_NEAR(l.z, 1.636776616671935, 1e-12);
  EXPECT_NEAR(l.l_u, -0.2, 1e-12);
  // A second input where both units are active: x = (−0.8, −1):
  //   a = (−0.8 + 1 + 0.1, −0.4 − 2 − 0.2) = (0.3, −2.6)
  //   BatchNorm ((0.3 − 0.1)·2 − 0.1, (−2.6 − 0.4)/2 · (−0.5) + 0.3) = (0.3, 1.05) = h
  //   ℓ_p = 0.45 − 0.42 + 0.2 = 0.23,  ℓ_u = −0.3 + 2.1 + 0.1 = 1.9
  //   z = 0.6·ln(3/7) + 1.7·0.23 − 0.3 = −0.508378716232 + 0.391 − 0.3 = −0.417378716232
  x << -0.8, -1.0;
  const trigger::Logits m = trigger::forward_eval(net, x, std::log(3.0 / 7.0));
  EXPECT_NEAR(m.z, -0.4173787162323226, 1e-12);
  EXPECT_NEAR(m.l_u, 1.9, 1e-12);
}

// The same network behind TriggerModel::score: features are standardised with the stored scaler
// and ℓ_LLM (eq. 2) is taken from the raw confidence feature, here the second of two, before the
// sigmoids of eqs. (3) and (4). The model is a trained one's file with the network and scaler
// replaced, so the test goes through the model file's reader too.
TriggerModel hand_set_model() {
  TrainingSet set = trigger_test::synthetic_set(8, 31, 2);
  // Feature order (Hedges, FinalConfidence): the confidence is not the first feature.
  set.feature_names = {"Hedges", "FinalConfidence"};
  for (auto& row : set.rows) std::swap(row[0], row[1]);
  TrainOptions o;
  o.shape = MlpShape{1, 2, 0.0};
  o.epochs = 1;
  json j = TriggerModel::train(set, o).value().to_json();
  const trigger::Network net = hand_set_network();
  json& block = j["network"]["blocks"][0];
  // Columns swapped with the features: weight column 0 reads Hedges, column 1 the confidence.
  block["weight"] = {{-1.0, 1.0}, {2.0, 0.5}};
  block["bias"] = {0.1, -0.2};
  block["gamma"] = {2.0, -0.5};
  block["beta"] = {-0.1, 0.3};
  block["running_mean"] = {0.1, 0.4};
  block["running_var"] = {1.0 - 1e-5, 4.0 - 1e-5};
  j["network"]["batch_norm_eps"] = 1e-5;
  j["network"]["p_head"] = {{"weight", {1.5, -0.4}}, {"bias", 0.2}};
  j["network"]["u_head"] = {{"weight", {-1.0, 2.0}}, {"bias", 0.1}};
  j["network"]["w1"] = net.w1;
  j["network"]["w2"] = net.w2;
  j["network"]["epsilon"] = net.epsilon;
  j["scaler"] = {{"mean", {2.0, 0.5}}, {"scale", {4.0, 0.25}}};
  return TriggerModel::from_json(j).value();
}

TEST(TriggerForward, ScoreStandardisesAndReadsTheRawConfidence) {
  const TriggerModel m = hand_set_model();
  // Hedges 6, confidence 0.8: z = ((6 − 2)/4, (0.8 − 0.5)/0.25) = (1, 1.2) in the swapped order,
  // the first input above; ℓ_LLM = ln(0.8/0.2) = ln 4 from the raw 0.8.
  //   p = σ(1.636776616671935) = 0.8370958537699023,  u = σ(−0.2) = 0.4501660026875220
  const TriggerScore s = m.score({6.0, 0.8});
  EXPECT_NEAR(s.p, 0.8370958537699023, 1e-12);
  EXPECT_NEAR(s.u, 0.4501660026875220, 1e-12);
  // Hedges −2, confidence 0.3: the second input above, ℓ_LLM = ln(0.3/0.7).
  //   p = σ(−0.4173787162323226) = 0.3971441701521831,  u = σ(1.9) = 0.8698915256370021
  const TriggerScore t = m.score({-2.0, 0.3});
  EXPECT_NEAR(t.p, 0.3971441701521831, 1e-12);
  EXPECT_NEAR(t.u, 0.8698915256370021, 1e-12);
  // Confidence 1.0 is clamped to 1 − 1e-4 (ℓ_LLM = ln 9999 = 9.210240366975960); Hedges 2:
  //   x = (0, 2), a = (2.1, 0.8), BatchNorm (2·2 − 0.1, 0.4/2·(−0.5) + 0.3) = (3.9, 0.2) = h
  //   ℓ_p = 5.85 − 0.08 + 0.2 = 5.97,  ℓ_u = −3.9 + 0.4 + 0.1 = −3.4
  //   z = 0.6·9.21024036697596 + 1.7·5.97 − 0.3 = 15.375144220185575
  const TriggerScore c = m.score({2.0, 1.0});
  EXPECT_NEAR(c.p, 0.9999997897869781, 1e-13);
  EXPECT_NEAR(c.u, 0.032295464698450516, 1e-12);
}

// Training mode on a batch of three standardised inputs: BatchNorm normalises with the batch
// mean and the biased batch variance and folds them into the running statistics (momentum 0.1,
// unbiased variance).
//   Linear: unit 0 a = (0.3, 0.3, 2.1): mean 0.9, variance (0.36 + 0.36 + 1.44)/3 = 0.72
//           unit 1 a = (2.4, −2.6, 0.8): mean 0.2, variance (4.84 + 7.84 + 0.36)/3 = 13.04/3
//   BatchNorm + ReLU:
//     unit 0: 2·(−0.6)/√0.72001 − 0.1 < 0 → 0, 0; 2·1.2/√0.72001 − 0.1 = 2.728407483
//     unit 1: −0.5·2.2/√4.34668 + 0.3 < 0 → 0; −0.5·(−2.8)/√4.34668 + 0.3 = 0.971505181;
//             −0.5·0.6/√4.34668 + 0.3 = 0.156106033
//   ℓ_p = 1.5 h0 − 0.4 h1 + 0.2, ℓ_u = −h0 + 2 h1 + 0.1, z = 0.6 ℓ_LLM + 1.7 ℓ_p − 0.3
//   running mean 0.9·(0.1, 0.4) + 0.1·(0.9, 0.2) = (0.18, 0.38)
//   running var  0.9·(0.99999, 3.99999) + 0.1·(0.72, 13.04/3)·3/2 = (1.007991, 4.251991)
TEST(TriggerForward, TrainingModeUsesBatchStatistics) {
  trigger::Network net = hand_set_network();
  Eigen::MatrixXd x(2, 3);
  x << 1.2, -0.8, 2.0,  //
      1.0, -1.0, 0.0;
  Eigen::RowVectorXd l_llm(3);
  l_llm << std::log(4.0), std::log(3.0 / 7.0), std::log(0.9999 / 1e-4);
  const trigger::ForwardPass pass = trigger::forward_train(net, x, l_llm, nullptr, true);
  EXPECT_NEAR(pass.l_p[0], 0.2, 1e-12);
  EXPECT_NEAR(pass.l_u[0], 0.1, 1e-12);
  EXPECT_NEAR(pass.z[0], 0.8717766166719343, 1e-12);
  EXPECT_NEAR(pass.l_p[1], -0.1886020723696546, 1e-12);
  EXPECT_NEAR(pass.l_u[1], 2.043010361848273, 1e-12);
  EXPECT_NEAR(pass.z[1], -1.129002239260735, 1e-12);
  EXPECT_NEAR(pass.l_p[2], 4.230168811579991, 1e-12);
  EXPECT_NEAR(pass.l_u[2], -2.31619541777753, 1e-12);
  EXPECT_NEAR(pass.z[2], 12.417431199871492, 1e-12);
  EXPECT_NEAR(net.blocks[0].running_mean[0], 0.18, 1e-12);
  EXPECT_NEAR(net.blocks[0].running_mean[1], 0.38, 1e-12);
  EXPECT_NEAR(net.blocks[0].running_var[0], 1.007991, 1e-12);
  EXPECT_NEAR(net.blocks[0].running_var[1], 4.251991, 1e-12);
  // Without the update the running statistics stay as they were.
  trigger::Network frozen = hand_set_network();
  (void)trigger::forward_train(frozen, x, l_llm, nullptr, false);
  EXPECT_EQ(frozen.blocks[0].running_mean[0], 0.1);
  EXPECT_EQ(frozen.blocks[0].running_var[1], 4.0 - 1e-5);
}

// Initialisation (docs/trigger.md): Linear weights and biases U(−1/√fan_in, 1/√fan_in), the
// heads too (fan_in = hidden); BatchNorm γ = 1, β = 0, running mean 0, variance 1; w1 = w2 = 1,
// ε = 0. With hundreds of draws per array the largest |value| comes close to the bound.
TEST(TriggerForward, InitialisationFollowsPyTorch) {
  Rng rng(41);
  const trigger::Network net = trigger::make_network(16, MlpShape{2, 100, 0.2}, rng);
  ASSERT_EQ(net.blocks.size(), 2u);
  EXPECT_EQ(net.inputs(), 16);
  EXPECT_EQ(net.hidden(), 100);
  EXPECT_EQ(net.dropout, 0.2);
  auto check_uniform = [](const double* data, Eigen::Index size, double bound, const char* what) {
    double largest = 0.0, sum = 0.0;
    for (Eigen::Index i = 0; i < size; ++i) {
      largest = std::max(largest, std::abs(data[i]));
      sum += data[i];
    }
    EXPECT_LE(largest, bound) << what;
    EXPECT_GT(largest, 0.9 * bound) << what;
    // The mean of n draws of U(−b, b) has standard deviation b/√(3n); 5 of them is generous.
    EXPECT_LT(std::abs(sum / static_cast<double>(size)), 5.0 * bound / std::sqrt(3.0 * size)) << what;
  };
  const trigger::DenseBlock& first = net.blocks[0];
  EXPECT_EQ(first.weight.rows(), 100);
  EXPECT_EQ(first.weight.cols(), 16);
  check_uniform(first.weight.data(), first.weight.size(), 0.25, "block 0 weight");  // 1/√16
  check_uniform(first.bias.data(), first.bias.size(), 0.25, "block 0 bias");
  const trigger::DenseBlock& second = net.blocks[1];
  EXPECT_EQ(second.weight.cols(), 100);
  check_uniform(second.weight.data(), second.weight.size(), 0.1, "block 1 weight");  // 1/√100
  check_uniform(second.bias.data(), second.bias.size(), 0.1, "block 1 bias");
  check_uniform(net.p_weight.data(), net.p_weight.size(), 0.1, "p head");
  check_uniform(net.u_weight.data(), net.u_weight.size(), 0.1, "u head");
  EXPECT_LE(std::abs(net.p_bias), 0.1);
  EXPECT_LE(std::abs(net.u_bias), 0.1);
  EXPECT_NE(net.p_bias, net.u_bias);
  for (const trigger::DenseBlock& b : net.blocks) {
    EXPECT_EQ(b.gamma, Eigen::VectorXd::Ones(100));
    EXPECT_EQ(b.beta, Eigen::VectorXd::Zero(100));
    EXPECT_EQ(b.running_mean, Eigen::VectorXd::Zero(100));
    EXPECT_EQ(b.running_var, Eigen::VectorXd::Ones(100));
  }
  EXPECT_EQ(net.w1, 1.0);
  EXPECT_EQ(net.w2, 1.0);
  EXPECT_EQ(net.epsilon, 0.0);
}

}  // namespace
}  // namespace parley
