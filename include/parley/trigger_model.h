#pragma once
// iMAD's debate-decision classifier (Fan et al., AAAI'26, §4.2): a shared MLP encoder with a
// correctness head and a hesitation head, trained with the FocusCal loss, that scores a
// single-agent answer and triggers a debate when the score p falls below τ. Training is
// deterministic given the seed; a trained model is an immutable network shared between copies,
// so copies are cheap and score() is safe to call from several threads. See docs/trigger.md.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/result.h"

namespace parley {

// FocusCal hyperparameters (iMAD §5 "Classifier Configurations").
struct FocusCalParams {
  double alpha0 = 2.0, alpha1 = 1.0, gamma = 2.0, lambda = 6.0, mu = 5.0;
  int bins = 15;
  double threshold = 0.7;  // τ: the model's decision threshold (debate when p < τ, §4.1) and eq. (7)'s
  std::optional<double> penalty_threshold;  // eq. (7)'s τ only when a user asks for a different one

  // The τ of eq. (7): the paper has one τ, the decision threshold, unless penalty_threshold is set.
  double penalty_tau() const { return penalty_threshold.value_or(threshold); }
};

enum class LossTerm {
  kAsymmetricFocal,
  kConfidencePenalty,
  kCalibration,
  kBinaryCrossEntropy,
  kSquaredError
};
struct WeightedLossTerm {
  LossTerm term;
  double weight;
};
struct LossSpec {
  std::vector<WeightedLossTerm> terms;  // canonical order: af, cp, ece, bce, mse
  std::string text;                     // canonical spec string, e.g. "af+6*cp+5*ece"
};

// Parses "focuscal" (= "af+cp+ece"), "bce", "af+cp+mse", "af+6*cp+5*ece", ... Terms: af (eq. 6),
// cp (eq. 7), ece (eq. 8), bce, mse. Default weights: af 1, cp λ, ece μ, bce 1, mse 1, except that
// bce or mse standing in for ece next to af and cp (iMAD App. C.2 (iii)) takes ece's weight μ.
// Error for unknown or repeated terms and for weights that are not finite non-negative numbers.
Result<LossSpec> parse_loss_spec(std::string_view text, const FocusCalParams& params);

struct MlpShape {
  int layers = 6;
  int hidden = 200;
  double dropout = 0.2;
};

struct TrainOptions {
  MlpShape shape;
  FocusCalParams focus;
  std::string loss = "focuscal";
  int epochs = 50;
  double learning_rate = 1e-3;
  int batch_size = 64;
  std::uint64_t seed = 1;
  std::string confidence_feature = "FinalConfidence";  // which feature is p_LLM (eq. 2)
};

struct TrainingSet {
  std::vector<std::string> feature_names;
  std::vector<std::vector<double>> rows;  // one row per example, feature_names order
  std::vector<int> labels;                // 1 = single-agent answer correct (the paper's labelling)
};

struct EpochLog {
  int epoch;
  double loss;
};  // mean training loss per epoch (training mode)

struct TriggerScore {
  double p;
  double u;
};  // eq. 3 and eq. 4

namespace trigger {
struct Network;  // src/trigger/mlp.h
}

class TriggerModel {
 public:
  // Trains; Error for empty sets, ragged rows, non-0/1 labels, unknown confidence feature, a bad
  // loss spec, < 2 examples, non-finite feature values and out-of-range options.
  static Result<TriggerModel> train(const TrainingSet& data, const TrainOptions& options,
                                    std::vector<EpochLog>* log = nullptr);

  // Eval mode; features in feature_names() order (size checked -> throws std::invalid_argument).
  TriggerScore score(const std::vector<double>& features) const;
  bool trigger(const TriggerScore& s) const { return s.p < threshold(); }  // iMAD §4.1: debate when p < τ
  double threshold() const;
  void set_threshold(double tau);
  const std::vector<std::string>& feature_names() const;
  const std::string& confidence_feature() const;
  const std::string& loss() const;  // canonical loss spec the model was trained with
  nlohmann::json& metadata();
  const nlohmann::json& metadata() const;

  // {"format": "parley-trigger-model", "version": 1, feature_names, confidence_feature,
  //  scaler{mean,scale}, threshold, shape, loss, training, network{...}, metadata}
  nlohmann::json to_json() const;
  // Error (one clear line) for wrong format/version, missing fields, wrong array sizes, and — when
  // expected_features is given — a feature list that differs (naming missing/extra/out-of-order names).
  static Result<TriggerModel> from_json(const nlohmann::json& j,
                                        const std::vector<std::string>* expected_features = nullptr);
  Result<Ok> save(const std::string& path) const;  // write to path.tmp then rename
  static Result<TriggerModel> load(const std::string& path,
                                   const std::vector<std::string>* expected_features = nullptr);

 private:
  TriggerModel() = default;

  std::vector<std::string> feature_names_;
  std::string confidence_feature_;
  std::size_t confidence_index_ = 0;
  std::vector<double> scaler_mean_, scaler_scale_;
  double threshold_ = 0.7;
  std::string loss_;
  nlohmann::json training_ = nlohmann::json::object();  // options the model was trained with
  nlohmann::json metadata_ = nlohmann::json::object();
  std::shared_ptr<const trigger::Network> network_;  // immutable once trained; shared by copies
};

// Evaluation helpers (pure).
// Area under the ROC curve of `scores` for labels 1 (ties counted 1/2); NaN if one class is missing.
double roc_auc(const std::vector<double>& scores, const std::vector<int>& labels);
// eq. (8), bins equal-width, bin of p = floor(p·bins) (p = 1 goes to the last bin); 0 when empty;
// throws std::invalid_argument for a score outside [0, 1] (binned_calibration_error, parley/stats.h).
double expected_calibration_error(const std::vector<double>& scores, const std::vector<int>& labels,
                                  int bins = 15);
// Loss values (the training objective) for tests and reporting: mean over the batch as in training.
double focal_loss(const std::vector<double>& p, const std::vector<int>& y,
                  const FocusCalParams& params);  // eq. 6
double confidence_penalty(const std::vector<double>& p, const std::vector<double>& u,
                          const std::vector<int>& y,
                          const FocusCalParams& params);  // eq. 7

}  // namespace parley
