// imad: iMAD, intelligent multi-agent debate (Fan et al. 2026, §4, Fig. 1). Steps 1–2: one agent
// writes a structured self-critique; step 3: the 41 interpretable features of the response; step
// 4: the trained two-head classifier scores it (p, eq. 3, and u, eq. 4); step 5: debate only
// when p < τ — mad then runs with the single agent as the affirmative, starting from its answer.
// The trigger event records p, u, τ, the decision, every feature value and the response's missing
// sections.
#include <memory>
#include <nlohmann/json.hpp>

#include "parley/features.h"
#include "parley/trigger_model.h"
#include "protocols/protocols.h"
#include "protocols/selective.h"
#include "protocols/self_critique.h"

namespace parley {
namespace {

class Imad final : public Protocol {
 public:
  Imad(std::shared_ptr<const TriggerModel> model, double threshold, MadSettings mad)
      : model_(std::move(model)),
        threshold_(threshold),
        mad_(std::move(mad)),
        features_(std::make_shared<FeatureExtractor>()) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    std::vector<Agent> debaters = debate.agents(2);
    SelfCritiqueTurn critique = co_await ask_self_critique(debate, debaters[0]);
    const FeatureInput input = self_critique_feature_input(debate.task().question, critique.text);
    const std::vector<double> values = features_->extract(input);
    const TriggerScore score = model_->score(values);
    nlohmann::json detail{{"method", "imad"}, {"p", score.p}, {"u", score.u}, {"threshold", threshold_}};
    // Sections the response lacks, whose features are defaults (docs/features.md).
    if (!input.missing_sections.empty()) detail["missing_sections"] = input.missing_sections;
    nlohmann::ordered_json features;
    for (std::size_t i = 0; i < values.size(); ++i) features[model_->feature_names()[i]] = values[i];
    detail["features"] = nlohmann::json::parse(features.dump());  // keeps Table 5's order in the text
    SingleStage single{std::move(critique.parsed.answer), std::move(critique.text)};
    co_return co_await keep_or_debate(debate, mad_, std::move(debaters), std::move(single),
                                      score.p < threshold_, std::move(detail));
  }

 private:
  std::shared_ptr<const TriggerModel> model_;
  double threshold_;
  MadSettings mad_;
  std::shared_ptr<FeatureExtractor> features_;  // link-grammar's dictionary, loaded once
};

// The config check of `trigger_model`: a model file parley can load, over iMAD's 41 features.
std::string check_model(const ParamValue& value) {
  const auto* path = std::get_if<std::string>(&value);
  if (path == nullptr) return "expected a file name";
  const auto model = TriggerModel::load(*path, &trigger_feature_names());
  return model ? std::string() : model.error().message;
}

}  // namespace

ProtocolInfo imad_protocol() {
  ParamSpec model_file{"trigger_model",
                       ParamKind::kPath,
                       std::string(),
                       std::nullopt,
                       std::nullopt,
                       "the debate-decision classifier, a file written by `parley train-trigger` "
                       "(examples/imad-trigger.json is one trained on simulated data)"};
  model_file.check = check_model;
  model_file.required = true;
  ParamSpec threshold_spec{
      "threshold", ParamKind::kDouble,
      -1.0,        -1.0,
      1.0,         "debate when p < threshold (iMAD τ); -1 = the threshold stored in the model file"};
  threshold_spec.check = [](const ParamValue& value) -> std::string {
    const auto* t = std::get_if<double>(&value);
    const double v = t != nullptr ? *t : static_cast<double>(std::get<std::int64_t>(value));
    return v == -1.0 || (v >= 0.0 && v <= 1.0) ? "" : "expected a threshold in [0, 1], or -1 for the model's";
  };
  std::vector<ParamSpec> params = {std::move(model_file), std::move(threshold_spec)};
  for (ParamSpec& spec : mad_params(true)) params.push_back(std::move(spec));
  ProtocolInfo info{"imad",
          "self-critique, 41 features, a FocusCal-trained classifier; mad runs only when the score p < τ",
          "Fan et al. 2026, iMAD: Intelligent Multi-Agent Debate for Efficient and Accurate LLM Inference",
          std::move(params), [](const ProtocolParams& p) {
            auto loaded = TriggerModel::load(p.text("trigger_model"), &trigger_feature_names());
            if (!loaded) throw std::runtime_error("imad: " + loaded.error().message);
            auto model = std::make_shared<const TriggerModel>(std::move(loaded).value());
            const double given = p.real("threshold");
            const double threshold = given >= 0.0 ? given : model->threshold();
            return std::make_unique<Imad>(std::move(model), threshold, mad_settings(p, true));
          }};
  // The self-critiquing agent is the first debater; the second is seated when it debates.
  info.debaters = [](const ProtocolParams&) -> std::size_t { return 2; };
  return info;
}

}  // namespace parley
