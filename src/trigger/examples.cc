// Training examples and evaluation of the iMAD trigger from stored transcripts.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "parley/trigger.h"

namespace parley {
namespace {

struct StageRecord {
  std::string question;
  bool correct = false;
};

std::optional<nlohmann::json> event_detail(const Transcript& t, std::string_view kind) {
  for (const EventRecord& e : t.events) {
    if (e.kind != kind) continue;
    auto detail = nlohmann::json::parse(e.detail, nullptr, false);
    if (detail.is_object()) return detail;
  }
  return std::nullopt;
}

// The self-critique stage's last reply: its re-ask when there was one.
const MessageRecord* last_self_critique(const Transcript& t) {
  const MessageRecord* last = nullptr;
  for (const MessageRecord& m : t.messages)
    if (m.role == "self_critique" || m.role == "self_critique_reask") last = &m;
  return last;
}

}  // namespace

std::vector<TriggerExample> trigger_examples(const std::vector<Transcript>& transcripts,
                                             const FeatureExtractor& extractor,
                                             std::string_view mad_reference) {
  std::map<std::pair<std::string, std::uint64_t>, bool> mad;
  for (const Transcript& t : transcripts)
    if (t.protocol == mad_reference) mad[{t.task_id, t.seed}] = t.correct;
  std::vector<TriggerExample> out;
  for (const Transcript& t : transcripts) {
    const auto stage = event_detail(t, "self_critique");
    const MessageRecord* reply = last_self_critique(t);
    if (!stage || reply == nullptr || !stage->contains("question")) continue;
    TriggerExample e;
    e.task_id = t.task_id;
    e.seed = t.seed;
    e.protocol = t.protocol;
    e.features = extractor.extract(self_critique_feature_input(stage->value("question", ""), reply->text));
    e.label = stage->value("correct", false) ? 1 : 0;
    const auto trigger = event_detail(t, "trigger");
    if (trigger && trigger->value("decision", "") == "debate") {
      e.mad_correct = t.correct;
    } else if (const auto it = mad.find({t.task_id, t.seed}); it != mad.end()) {
      e.mad_correct = it->second;
    }
    out.push_back(std::move(e));
  }
  return out;
}

TriggerSplit split_by_task(const std::vector<TriggerExample>& examples, double validation_fraction,
                           std::uint64_t seed) {
  TriggerSplit split;
  for (const TriggerExample& e : examples) {
    const std::uint64_t h = HashBuilder().add("validation").add(seed).add(e.task_id).value();
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    (u < validation_fraction ? split.validation : split.train).push_back(e);
  }
  return split;
}

TrainingSet training_set(const std::vector<TriggerExample>& examples) {
  TrainingSet set;
  set.feature_names = trigger_feature_names();
  for (const TriggerExample& e : examples) {
    set.rows.push_back(e.features);
    set.labels.push_back(e.label);
  }
  return set;
}

TriggerEvaluation evaluate_trigger(const TriggerModel& model, const std::vector<TriggerExample>& examples) {
  TriggerEvaluation ev;
  ev.n = static_cast<std::int64_t>(examples.size());
  std::vector<double> scores;
  std::vector<int> labels;
  for (const TriggerExample& e : examples) {
    const TriggerScore s = model.score(e.features);
    scores.push_back(s.p);
    labels.push_back(e.label);
    ev.decisions.add(model.trigger(s), e.label == 1, e.mad_correct);
  }
  ev.auc = roc_auc(scores, labels);
  ev.ece = expected_calibration_error(scores, labels, 15);
  return ev;
}

}  // namespace parley
