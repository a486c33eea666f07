// TriggerModel scoring (eval mode: BatchNorm running statistics, no dropout; iMAD eqs. 2–4) and
// accessors.

#include "parley/trigger_model.h"

#include <stdexcept>
#include <string>

#include "trigger/mlp.h"

namespace parley {

TriggerScore TriggerModel::score(const std::vector<double>& features) const {
  if (features.size() != feature_names_.size()) {
    throw std::invalid_argument("TriggerModel::score: " + std::to_string(features.size()) +
                                " features, expected " + std::to_string(feature_names_.size()));
  }
  Eigen::VectorXd x(static_cast<Eigen::Index>(features.size()));
  for (std::size_t j = 0; j < features.size(); ++j) {
    x[static_cast<Eigen::Index>(j)] = (features[j] - scaler_mean_[j]) / scaler_scale_[j];
  }
  const trigger::Logits l =
      trigger::forward_eval(*network_, x, trigger::llm_logit(features[confidence_index_]));
  return {trigger::sigmoid(l.z), trigger::sigmoid(l.l_u)};  // eqs. (3), (4)
}

double TriggerModel::threshold() const { return threshold_; }
void TriggerModel::set_threshold(double tau) { threshold_ = tau; }
const std::vector<std::string>& TriggerModel::feature_names() const { return feature_names_; }
const std::string& TriggerModel::confidence_feature() const { return confidence_feature_; }
const std::string& TriggerModel::loss() const { return loss_; }
nlohmann::json& TriggerModel::metadata() { return metadata_; }
const nlohmann::json& TriggerModel::metadata() const { return metadata_; }

}  // namespace parley
