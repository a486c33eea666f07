// add_debate_metrics: every per-debate metric into Transcript::metrics, the defined ones only.
#include "parley/metrics.h"

namespace parley {

void add_debate_metrics(Transcript& transcript) {
  const InteractionMetrics interaction = interaction_metrics(transcript);
  const auto put = [&](const char* name, const std::optional<double>& value) {
    if (value) transcript.metrics[name] = *value;
  };
  put("prr", interaction.prr);
  put("ad", interaction.ad);
  put("cf", interaction.cf);
}

}  // namespace parley
