#pragma once
// iMAD's debate trigger on stored runs (Fan et al. 2026, §4.1 and App. D "Label Design"): the
// training examples a run's self-critique turns give — the 41 features of the response and the
// paper's label, whether the self-critique answer is correct — and how a trained model's
// decisions fare on them (AUC, ECE, the beneficial-decision rate of §5.2). `parley
// train-trigger` and `parley features` are built on these. Not thread-safe (FeatureExtractor).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/features.h"
#include "parley/report.h"
#include "parley/transcript.h"
#include "parley/trigger_model.h"

namespace parley {

struct TriggerExample {
  std::string task_id;
  std::uint64_t seed = 0;
  std::string protocol;
  std::vector<double> features;     // trigger_feature_names() order
  int label = 0;                    // 1 = the self-critique answer is correct (iMAD §4.1)
  std::optional<bool> mad_correct;  // MAD's outcome on the unit, when the run has one
};

// One example per transcript with a "self_critique" event (protocols self_critique and imad):
// the response is the stage's last reply (after its re-ask). MAD's outcome is the transcript's
// own when its trigger debated, else that of the `mad_reference` protocol on the same
// (task, seed), if the run has it.
std::vector<TriggerExample> trigger_examples(const std::vector<Transcript>& transcripts,
                                             const FeatureExtractor& extractor,
                                             std::string_view mad_reference);

// A validation split by task (every seed of a task on the same side), by a seeded hash of the
// task id: deterministic, and stable when tasks are added.
struct TriggerSplit {
  std::vector<TriggerExample> train;
  std::vector<TriggerExample> validation;
};
TriggerSplit split_by_task(const std::vector<TriggerExample>& examples, double validation_fraction,
                           std::uint64_t seed);

TrainingSet training_set(const std::vector<TriggerExample>& examples);

struct TriggerEvaluation {
  std::int64_t n = 0;
  double auc = 0.0;              // of p against the correctness label; NaN with one class only
  double ece = 0.0;              // eq. (8), 15 bins
  SelectiveDecisions decisions;  // debate when p < τ; MAD's outcome from the examples
};
TriggerEvaluation evaluate_trigger(const TriggerModel& model, const std::vector<TriggerExample>& examples);

}  // namespace parley
