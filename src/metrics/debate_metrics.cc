// add_debate_metrics: every per-debate metric into Transcript::metrics, the defined ones only.

#include <nlohmann/json.hpp>

#include "metrics/turns.h"
#include "parley/metrics.h"

namespace parley {
namespace {

// The per-debate numbers a protocol computed itself, where only it knows the outcome space:
// `maci_final`'s "scores" (agents' final agreement, the ordinal scale's deviations).
void add_protocol_scores(Transcript& transcript) {
  for (const auto& event : transcript.events) {
    if (event.kind != "maci_final") continue;
    const nlohmann::json detail = nlohmann::json::parse(event.detail, nullptr, false);
    if (!detail.is_object() || !detail.contains("scores") || !detail["scores"].is_object()) continue;
    for (const auto& [name, value] : detail["scores"].items())
      if (value.is_number()) transcript.metrics[name] = value.get<double>();
  }
}

// How many rounds the agents answered in: the distinct rounds of the answer-bearing turns
// (MACI Table 4's "Rounds"; `maci` states its own, the debate rounds after round 0).
std::optional<double> answer_rounds(const std::vector<DebateTurn>& answers) {
  const int rounds = distinct_rounds(answers);
  if (rounds == 0) return std::nullopt;
  return static_cast<double>(rounds);
}

// MACI: the tokens of the debaters, the judges and the embedding model apart (prompt +
// completion), for every protocol alike. A judge's call has a role starting with "judge", an
// embedding call the role "embedding"; every other call (moderators and summaries included) is
// the debaters'.
void add_tokens_by_role(Transcript& transcript) {
  double debaters = 0.0, judges = 0.0, embeddings = 0.0;
  for (const MessageRecord& m : transcript.messages) {
    const double tokens = static_cast<double>(m.prompt_tokens + m.completion_tokens);
    if (m.role.starts_with("judge")) {
      judges += tokens;
    } else if (m.role == "embedding") {
      embeddings += tokens;
    } else {
      debaters += tokens;
    }
  }
  transcript.metrics["tokens_debaters"] = debaters;
  transcript.metrics["tokens_judges"] = judges;
  transcript.metrics["tokens_embeddings"] = embeddings;
}

}  // namespace

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
  put("rounds", answer_rounds(answers));
  add_tokens_by_role(transcript);
  if (const auto scores = belief_scores(transcript)) {
    put("acc_at_3", scores->acc_at_3 ? 1.0 : 0.0);
    put("reciprocal_rank", scores->reciprocal_rank);
    put("brier", scores->brier);
    put("gold_probability", scores->gold_probability);
    put("final_confidence", scores->confidence);
  }
  if (options.labels) {
    if (const auto scale = scale_scores(transcript, *options.labels)) {
      put("centrist_deviation", scale->centrist_deviation);
      put("gold_distance", scale->gold_distance);
    }
  }
  add_protocol_scores(transcript);
}

}  // namespace parley
