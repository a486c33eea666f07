// add_debate_metrics: every per-debate metric into Transcript::metrics, the defined ones only.
#include "metrics/turns.h"
#include "parley/metrics.h"

namespace parley {

void add_debate_metrics(Transcript& transcript, const DebateMetricsOptions& options) {
  // The turns are read once for all the metrics.
  const std::vector<DebateTurn> turns = debate_turns(transcript);
  const std::vector<DebateTurn> answers = agent_turns(turns);
  const InteractionMetrics interaction = interaction_metrics(transcript, answers);
  const UncertaintyMetrics uncertainty = uncertainty_metrics(answers, options);
  const double ncomm = static_cast<double>(communications(turns));
  const auto put = [&](const char* name, const std::optional<double>& value) {
    if (value) transcript.metrics[name] = *value;
  };
  put("prr", interaction.prr);
  put("ad", interaction.ad);
  put("cf", interaction.cf);
  put("flip_rate", uncertainty.flip_rate);
  put("belief_revision", uncertainty.belief_revision);
  put("u_intra", uncertainty.u_intra);
  // "conflict" names the mean of the per-round pairwise conflict C_t; UDPO §2 defines U_inter
  // as that same mean, so the two keys hold one number.
  put("conflict", uncertainty.u_inter);
  put("u_inter", uncertainty.u_inter);
  put("entropy", uncertainty.entropy);
  put("disagreement", uncertainty.disagreement);
  put("loo_instability", uncertainty.loo_instability);
  put("u_sys", uncertainty.u_sys);
  put("ncomm", ncomm);
}

}  // namespace parley
