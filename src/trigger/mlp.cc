// Forward and backward passes of the iMAD classifier network (iMAD §4.2, eqs. 1–4). Gradients
// are written by hand and checked against central finite differences in gradient_test.cc.

#include "trigger/mlp.h"

#include <algorithm>
#include <cmath>

namespace parley::trigger {

int Network::inputs() const {
  return blocks.empty() ? static_cast<int>(p_weight.size()) : static_cast<int>(blocks.front().weight.cols());
}

int Network::hidden() const { return static_cast<int>(p_weight.size()); }

namespace {

// PyTorch's nn.Linear default: U(−1/√fan_in, 1/√fan_in) for weights and bias alike.
void fill_uniform(double* data, Eigen::Index size, int fan_in, Rng& rng) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  for (Eigen::Index i = 0; i < size; ++i) data[i] = rng.uniform(-bound, bound);
}

}  // namespace

Network make_network(int inputs, const MlpShape& shape, Rng& rng) {
  Network net;
  net.dropout = shape.dropout;
  int fan_in = inputs;
  for (int l = 0; l < shape.layers; ++l) {
    DenseBlock b;
    b.weight.resize(shape.hidden, fan_in);
    b.bias.resize(shape.hidden);
    fill_uniform(b.weight.data(), b.weight.size(), fan_in, rng);
    fill_uniform(b.bias.data(), b.bias.size(), fan_in, rng);
    b.gamma = Eigen::VectorXd::Ones(shape.hidden);
    b.beta = Eigen::VectorXd::Zero(shape.hidden);
    b.running_mean = Eigen::VectorXd::Zero(shape.hidden);
    b.running_var = Eigen::VectorXd::Ones(shape.hidden);
    net.blocks.push_back(std::move(b));
    fan_in = shape.hidden;
  }
  net.p_weight.resize(fan_in);
  fill_uniform(net.p_weight.data(), net.p_weight.size(), fan_in, rng);
  fill_uniform(&net.p_bias, 1, fan_in, rng);
  net.u_weight.resize(fan_in);
  fill_uniform(net.u_weight.data(), net.u_weight.size(), fan_in, rng);
  fill_uniform(&net.u_bias, 1, fan_in, rng);
  return net;
}

std::vector<ParameterView> parameters(Network& net) {
  std::vector<ParameterView> out;
  auto add = [&out](auto& m) { out.push_back({m.data(), static_cast<std::size_t>(m.size())}); };
  for (DenseBlock& b : net.blocks) {
    add(b.weight);
    add(b.bias);
    add(b.gamma);
    add(b.beta);
  }
  add(net.p_weight);
  out.push_back({&net.p_bias, 1});
  add(net.u_weight);
  out.push_back({&net.u_bias, 1});
  out.push_back({&net.w1, 1});
  out.push_back({&net.w2, 1});
  out.push_back({&net.epsilon, 1});
  return out;
}

Network zeros_like(const Network& net) {
  Network z = net;
  for (ParameterView v : parameters(z)) std::fill(v.data, v.data + v.size, 0.0);
  return z;
}

void forward_train(Network& net, ForwardPass& pass, Rng* dropout_rng, bool update_running_stats) {
  const Eigen::Index n = pass.x.cols();
  const double keep_scale = 1.0 / (1.0 - net.dropout);  // inverted dropout, as PyTorch
  pass.blocks.resize(net.blocks.size());
  for (std::size_t k = 0; k < net.blocks.size(); ++k) {
    DenseBlock& b = net.blocks[k];
    BlockCache& c = pass.blocks[k];
    // Linear, written into xhat's storage and normalised in place.
    c.xhat.noalias() = b.weight * pass.input(k);
    c.xhat.colwise() += b.bias;
    // BatchNorm1d in training mode: biased batch variance for normalising.
    const Eigen::VectorXd mean = c.xhat.rowwise().mean();
    c.xhat.colwise() -= mean;
    const Eigen::VectorXd var = c.xhat.array().square().rowwise().mean();
    c.inv_std = (var.array() + net.bn_eps).rsqrt();
    c.xhat.array().colwise() *= c.inv_std.array();
    c.bn_out = (c.xhat.array().colwise() * b.gamma.array()).colwise() + b.beta.array();
    if (update_running_stats) {
      // PyTorch: running = (1 − m)·running + m·batch, with the unbiased variance.
      const double unbias = n > 1 ? static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
      b.running_mean = (1.0 - net.bn_momentum) * b.running_mean + net.bn_momentum * mean;
      b.running_var = (1.0 - net.bn_momentum) * b.running_var + (net.bn_momentum * unbias) * var;
    }
    c.out = c.bn_out.cwiseMax(0.0);
    if (net.dropout > 0.0 && dropout_rng != nullptr) {
      c.mask.resize(c.out.rows(), c.out.cols());
      double* m = c.mask.data();
      for (Eigen::Index i = 0; i < c.mask.size(); ++i)
        m[i] = dropout_rng->uniform() < net.dropout ? 0.0 : keep_scale;
      c.out.array() *= c.mask.array();
    } else {
      c.mask.resize(0, 0);
    }
  }
  const Eigen::MatrixXd& top = pass.top();
  pass.l_p.noalias() = net.p_weight * top;
  pass.l_p.array() += net.p_bias;
  pass.l_u.noalias() = net.u_weight * top;
  pass.l_u.array() += net.u_bias;
  pass.z = (net.w1 * pass.l_llm + net.w2 * pass.l_p).array() + net.epsilon;  // eq. (3)
}

ForwardPass forward_train(Network& net, const Eigen::MatrixXd& x, const Eigen::RowVectorXd& l_llm,
                          Rng* dropout_rng, bool update_running_stats) {
  ForwardPass pass;
  pass.x = x;
  pass.l_llm = l_llm;
  forward_train(net, pass, dropout_rng, update_running_stats);
  return pass;
}

void backward(const Network& net, const ForwardPass& pass, const Eigen::RowVectorXd& dz,
              const Eigen::RowVectorXd& dl_u, Network& grad, BackwardScratch& s) {
  // eq. (3): z = w1·ℓ_LLM + w2·ℓ_p + ε.
  grad.w1 = dz.dot(pass.l_llm);
  grad.w2 = dz.dot(pass.l_p);
  grad.epsilon = dz.sum();
  const Eigen::RowVectorXd dl_p = net.w2 * dz;
  // Heads (eq. 1).
  const Eigen::MatrixXd& top = pass.top();
  grad.p_weight.noalias() = dl_p * top.transpose();
  grad.p_bias = dl_p.sum();
  grad.u_weight.noalias() = dl_u * top.transpose();
  grad.u_bias = dl_u.sum();
  s.dh.noalias() = net.p_weight.transpose() * dl_p;
  s.dh.noalias() += net.u_weight.transpose() * dl_u;

  for (std::size_t k = net.blocks.size(); k-- > 0;) {
    const DenseBlock& b = net.blocks[k];
    const BlockCache& c = pass.blocks[k];
    DenseBlock& g = grad.blocks[k];
    if (c.mask.size() > 0) s.dh.array() *= c.mask.array();
    // ReLU: pass the gradient where the BatchNorm output was positive.
    s.dy = (c.bn_out.array() > 0.0).select(s.dh, 0.0);
    g.gamma = (s.dy.array() * c.xhat.array()).rowwise().sum();
    g.beta = s.dy.rowwise().sum();
    // BatchNorm with batch statistics: da = inv_std · (dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)), dx̂ = γ·dy.
    s.dy.array().colwise() *= b.gamma.array();  // dy becomes dx̂
    const Eigen::VectorXd mean_d = s.dy.rowwise().mean();
    const Eigen::VectorXd mean_dx = (s.dy.array() * c.xhat.array()).rowwise().mean();
    s.da =
        ((s.dy.array().colwise() - mean_d.array()) - c.xhat.array().colwise() * mean_dx.array()).colwise() *
        c.inv_std.array();
    // Linear. (Its bias gradient is zero up to rounding: BatchNorm removes any constant shift.)
    g.weight.noalias() = s.da * pass.input(k).transpose();
    g.bias = s.da.rowwise().sum();
    if (k > 0) s.dh.noalias() = b.weight.transpose() * s.da;
  }
}

void backward(const Network& net, const ForwardPass& pass, const Eigen::RowVectorXd& dz,
              const Eigen::RowVectorXd& dl_u, Network& grad) {
  BackwardScratch scratch;
  backward(net, pass, dz, dl_u, grad, scratch);
}

Logits forward_eval(const Network& net, const Eigen::VectorXd& x, double l_llm) {
  Eigen::VectorXd h = x;
  for (const DenseBlock& b : net.blocks) {
    Eigen::VectorXd a = b.weight * h + b.bias;
    a = (((a - b.running_mean).array() * (b.running_var.array() + net.bn_eps).rsqrt()) * b.gamma.array() +
         b.beta.array())
            .matrix();
    h = a.cwiseMax(0.0);
  }
  const double l_p = net.p_weight.transpose().dot(h) + net.p_bias;
  const double l_u = net.u_weight.transpose().dot(h) + net.u_bias;
  return {net.w1 * l_llm + net.w2 * l_p + net.epsilon, l_u};
}

double llm_logit(double p_llm) {
  const double p = std::clamp(p_llm, 1e-4, 1.0 - 1e-4);
  return std::log(p / (1.0 - p));  // eq. (2)
}

double sigmoid(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

}  // namespace parley::trigger
