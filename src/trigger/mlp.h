#pragma once
// The classifier network of iMAD §4.2 with hand-written forward and backward passes: a shared
// encoder f_e of dense blocks (Linear → BatchNorm1d → ReLU → Dropout), a correctness head f_p and a
// hesitation head f_u (eq. 1), and the logit mixing of eq. (3). Column-major batches: one example
// per column. Internal to parley_trigger (Eigen stays out of the public header).

#include <Eigen/Dense>
#include <cstddef>
#include <vector>

#include "core/hash.h"
#include "parley/trigger_model.h"

namespace parley::trigger {

// Linear(in → out) → BatchNorm1d(out) → ReLU → Dropout.
struct DenseBlock {
  Eigen::MatrixXd weight;  // out × in
  Eigen::VectorXd bias;    // out
  Eigen::VectorXd gamma;   // BatchNorm scale
  Eigen::VectorXd beta;    // BatchNorm shift
  Eigen::VectorXd running_mean;
  Eigen::VectorXd running_var;  // unbiased, as PyTorch keeps it
};

struct Network {
  std::vector<DenseBlock> blocks;
  Eigen::RowVectorXd p_weight;  // f_p: Linear(hidden → 1)
  double p_bias = 0.0;
  Eigen::RowVectorXd u_weight;  // f_u: Linear(hidden → 1)
  double u_bias = 0.0;
  double w1 = 1.0, w2 = 1.0, epsilon = 0.0;  // eq. (3)
  double dropout = 0.0;
  double bn_eps = 1e-5;
  double bn_momentum = 0.1;

  int inputs() const;
  int hidden() const;
};

// PyTorch-like initialisation: weights and biases U(−1/√fan_in, 1/√fan_in), BatchNorm γ = 1,
// β = 0, running mean 0 and variance 1; w1 = w2 = 1, ε = 0 (p starts as σ(ℓ_LLM + ℓ_p)).
Network make_network(int inputs, const MlpShape& shape, Rng& rng);

// A view of one trainable parameter array; parameters() lists them in a fixed order (running
// statistics are not parameters). A Network of the same shape doubles as a gradient holder.
struct ParameterView {
  double* data;
  std::size_t size;
};
std::vector<ParameterView> parameters(Network& net);
Network zeros_like(const Network& net);

// Saved activations of one training-mode forward pass, for backward(). Buffers are reused when a
// pass is refilled for a batch of the same size, so training does not allocate per batch.
struct BlockCache {
  Eigen::MatrixXd xhat;     // normalised pre-activations, out × N
  Eigen::VectorXd inv_std;  // 1 / sqrt(batch var + eps)
  Eigen::MatrixXd bn_out;   // γ·xhat + β (before ReLU)
  Eigen::MatrixXd mask;     // dropout mask scaled by 1/(1 − rate); empty when no dropout
  Eigen::MatrixXd out;      // after ReLU and dropout: the next block's input
};
struct ForwardPass {
  Eigen::MatrixXd x;  // the batch, features × N
  std::vector<BlockCache> blocks;
  Eigen::RowVectorXd l_llm;  // eq. (2)
  Eigen::RowVectorXd l_p;    // eq. (1)
  Eigen::RowVectorXd l_u;    // eq. (1)
  Eigen::RowVectorXd z;      // w1·ℓ_LLM + w2·ℓ_p + ε, so p = σ(z) (eq. 3)

  const Eigen::MatrixXd& input(std::size_t block) const { return block == 0 ? x : blocks[block - 1].out; }
  const Eigen::MatrixXd& top() const { return blocks.empty() ? x : blocks.back().out; }  // encoder output
};

// Training mode: BatchNorm uses the batch statistics (and, when update_running_stats, folds them
// into the running ones); dropout draws from `dropout_rng` when the rate is positive. The batch is
// read from pass.x (fill it first); the rest of `pass` is overwritten.
void forward_train(Network& net, ForwardPass& pass, Rng* dropout_rng, bool update_running_stats);
// Convenience form that copies the batch into a fresh pass.
ForwardPass forward_train(Network& net, const Eigen::MatrixXd& x, const Eigen::RowVectorXd& l_llm,
                          Rng* dropout_rng, bool update_running_stats);

// Scratch matrices for backward(), reused across batches.
struct BackwardScratch {
  Eigen::MatrixXd dh, dy, da;
};

// Gradients of the loss with respect to every parameter, given dL/dz and dL/dℓ_u per example.
void backward(const Network& net, const ForwardPass& pass, const Eigen::RowVectorXd& dz,
              const Eigen::RowVectorXd& dl_u, Network& grad, BackwardScratch& scratch);
void backward(const Network& net, const ForwardPass& pass, const Eigen::RowVectorXd& dz,
              const Eigen::RowVectorXd& dl_u, Network& grad);

// Eval mode for one example: running statistics, no dropout. Returns {z, ℓ_u}.
struct Logits {
  double z;
  double l_u;
};
Logits forward_eval(const Network& net, const Eigen::VectorXd& x, double l_llm);

// eq. (2) with p_LLM clamped to [1e-4, 1 − 1e-4] so that ℓ_LLM stays finite (|ℓ_LLM| ≤ 9.21).
double llm_logit(double p_llm);

double sigmoid(double z);

}  // namespace parley::trigger
