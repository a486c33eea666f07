// TriggerModel::train: input checks, feature standardisation, and the minibatch Adam loop of
// iMAD §5 "Classifier Configurations" (50 epochs, lr 1e-3, FocusCal). Choices the paper leaves
// open (batch size 64, seeded shuffling, the merge of a last batch of one) are in docs/trigger.md.

#include <cmath>
#include <numeric>
#include <string>
#include <unordered_set>

#include "core/hash.h"
#include "parley/trigger_model.h"
#include "trigger/adam.h"
#include "trigger/loss.h"
#include "trigger/mlp.h"

namespace parley {
namespace {

Error bad(const std::string& why) { return Error{"trigger training: " + why}; }

// Checks everything train() promises to reject; returns the index of the confidence feature.
Result<std::size_t> validate(const TrainingSet& data, const TrainOptions& o) {
  if (data.feature_names.empty()) return bad("no features");
  if (data.rows.empty()) return bad("no examples");
  if (data.rows.size() != data.labels.size()) {
    return bad(std::to_string(data.rows.size()) + " rows but " + std::to_string(data.labels.size()) +
               " labels");
  }
  if (data.rows.size() < 2) return bad("need at least 2 examples (BatchNorm needs a batch of two)");
  std::unordered_set<std::string> seen;
  for (const std::string& name : data.feature_names) {
    if (!seen.insert(name).second) return bad("feature '" + name + "' listed twice");
  }
  const std::size_t d = data.feature_names.size();
  for (std::size_t i = 0; i < data.rows.size(); ++i) {
    if (data.rows[i].size() != d) {
      return bad("row " + std::to_string(i) + " has " + std::to_string(data.rows[i].size()) +
                 " values, expected " + std::to_string(d));
    }
    for (std::size_t j = 0; j < d; ++j) {
      if (!std::isfinite(data.rows[i][j])) {
        return bad("row " + std::to_string(i) + " feature '" + data.feature_names[j] + "' is not finite");
      }
    }
    if (data.labels[i] != 0 && data.labels[i] != 1) {
      return bad("label " + std::to_string(i) + " is " + std::to_string(data.labels[i]) +
                 ", expected 0 or 1");
    }
  }
  std::size_t conf = d;
  for (std::size_t j = 0; j < d; ++j) {
    if (data.feature_names[j] == o.confidence_feature) conf = j;
  }
  if (conf == d) return bad("confidence feature '" + o.confidence_feature + "' is not among the features");
  if (o.epochs < 1) return bad("epochs must be at least 1");
  if (!(o.learning_rate > 0.0) || !std::isfinite(o.learning_rate))
    return bad("learning rate must be positive");
  if (o.batch_size < 2) return bad("batch size must be at least 2 (BatchNorm)");
  if (o.shape.layers < 1 || o.shape.hidden < 1)
    return bad("the network needs at least one layer of one unit");
  if (!(o.shape.dropout >= 0.0 && o.shape.dropout < 1.0)) return bad("dropout must be in [0, 1)");
  if (o.focus.bins < 1) return bad("ECE needs at least one bin");
  if (!(o.focus.threshold > 0.0 && o.focus.threshold < 1.0)) return bad("threshold must be in (0, 1)");
  if (!(o.focus.penalty_tau() > 0.0 && o.focus.penalty_tau() < 1.0))
    return bad("the confidence penalty's threshold must be in (0, 1)");
  return conf;
}

std::uint64_t stream_seed(std::string_view stream, std::uint64_t seed) {
  return HashBuilder().add(stream).add(seed).value();
}

}  // namespace

Result<TriggerModel> TriggerModel::train(const TrainingSet& data, const TrainOptions& options,
                                         std::vector<EpochLog>* log) {
  Result<std::size_t> conf = validate(data, options);
  if (!conf) return conf.error();
  Result<LossSpec> spec = parse_loss_spec(options.loss, options.focus);
  if (!spec) return bad(spec.error().message);

  const std::size_t n = data.rows.size();
  const std::size_t d = data.feature_names.size();
  TriggerModel model;
  model.feature_names_ = data.feature_names;
  model.confidence_feature_ = options.confidence_feature;
  model.confidence_index_ = *conf;
  model.threshold_ = options.focus.threshold;
  model.loss_ = spec->text;

  // StandardScaler: mean and population standard deviation; a constant feature keeps scale 1.
  model.scaler_mean_.assign(d, 0.0);
  model.scaler_scale_.assign(d, 0.0);
  for (const auto& row : data.rows) {
    for (std::size_t j = 0; j < d; ++j) model.scaler_mean_[j] += row[j];
  }
  for (double& m : model.scaler_mean_) m /= static_cast<double>(n);
  for (const auto& row : data.rows) {
    for (std::size_t j = 0; j < d; ++j) {
      const double c = row[j] - model.scaler_mean_[j];
      model.scaler_scale_[j] += c * c;
    }
  }
  for (double& s : model.scaler_scale_) {
    s = std::sqrt(s / static_cast<double>(n));
    if (s == 0.0) s = 1.0;
  }

  Eigen::MatrixXd x(d, n);
  Eigen::RowVectorXd l_llm(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j)
      x(j, i) = (data.rows[i][j] - model.scaler_mean_[j]) / model.scaler_scale_[j];
    l_llm[i] = trigger::llm_logit(data.rows[i][*conf]);  // eq. (2) on the raw confidence
  }

  Rng init_rng(stream_seed("trigger-init", options.seed));
  Rng shuffle_rng(stream_seed("trigger-shuffle", options.seed));
  Rng dropout_rng(stream_seed("trigger-dropout", options.seed));
  trigger::Network net = trigger::make_network(static_cast<int>(d), options.shape, init_rng);
  trigger::Network grad = trigger::zeros_like(net);
  trigger::Adam adam(net, options.learning_rate);

  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::size_t batch = static_cast<std::size_t>(options.batch_size);
  trigger::ForwardPass pass;  // buffers reused across batches
  trigger::BackwardScratch scratch;
  std::vector<int> yb;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    // Fisher–Yates with parley's Rng (std::shuffle's draws differ between standard libraries).
    for (std::size_t i = n - 1; i > 0; --i) std::swap(order[i], order[shuffle_rng.below(i + 1)]);
    double loss_sum = 0.0;
    for (std::size_t start = 0; start < n;) {
      std::size_t end = std::min(n, start + batch);
      if (n - end == 1) end = n;  // a last batch of one joins this one (BatchNorm needs two)
      const Eigen::Index m = static_cast<Eigen::Index>(end - start);
      pass.x.resize(static_cast<Eigen::Index>(d), m);
      pass.l_llm.resize(m);
      yb.resize(static_cast<std::size_t>(m));
      for (Eigen::Index k = 0; k < m; ++k) {
        const std::size_t i = order[start + static_cast<std::size_t>(k)];
        pass.x.col(k) = x.col(static_cast<Eigen::Index>(i));
        pass.l_llm[k] = l_llm[static_cast<Eigen::Index>(i)];
        yb[static_cast<std::size_t>(k)] = data.labels[i];
      }
      trigger::forward_train(net, pass, &dropout_rng, true);
      const trigger::BatchLoss loss = trigger::batch_loss(*spec, options.focus, pass.z, pass.l_u, yb);
      trigger::backward(net, pass, loss.dz, loss.dl_u, grad, scratch);
      adam.step(net, grad);
      loss_sum += loss.value * static_cast<double>(m);
      start = end;
    }
    if (log != nullptr) log->push_back({epoch, loss_sum / static_cast<double>(n)});
  }

  model.training_ = {{"examples", n},
                     {"epochs", options.epochs},
                     {"learning_rate", options.learning_rate},
                     {"batch_size", options.batch_size},
                     {"seed", options.seed},
                     {"focus",
                      {{"alpha0", options.focus.alpha0},
                       {"alpha1", options.focus.alpha1},
                       {"gamma", options.focus.gamma},
                       {"lambda", options.focus.lambda},
                       {"mu", options.focus.mu},
                       {"bins", options.focus.bins},
                       {"threshold", options.focus.threshold},
                       {"penalty_threshold", options.focus.penalty_tau()}}}};
  model.network_ = std::make_shared<const trigger::Network>(std::move(net));
  return model;
}

}  // namespace parley
