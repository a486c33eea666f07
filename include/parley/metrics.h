#pragma once
// Per-debate metrics computed from a finished transcript and stored in Transcript::metrics
// (the runner calls add_debate_metrics before storing). Pure functions.
//
// Interaction metrics of the protocols paper (debate-protocols-wr-cr-racr §2.3):
//   prr  eq. (1): share of agent turns that name a peer together with a stance word
//   ad   eq. (2): mean pairwise Jaccard dissimilarity of the turns' token sets
//   cf   eq. (3): relative reduction of the cross-agent forecast variance, first to final round
// Uncertainty of UDPO (udpo-uncertainty-collapse §2, App. D) over each agent's answer per round:
//   flip_rate, belief_revision, u_intra; conflict, u_inter; entropy, disagreement,
//   loo_instability, u_sys
// Communication cost of SVR-MAD (§5, "Metrics"): ncomm, the pairwise context transfers.
// A metric that is undefined for a debate (too few turns, agents or rounds) is left out of the
// map. The choices where the papers leave room are in docs/protocols.md.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "parley/task.h"
#include "parley/transcript.h"

namespace parley {

// ---- Interaction (protocols paper §2.3) ----------------------------------------------------

struct InteractionMetrics {
  std::optional<double> prr;
  std::optional<double> ad;
  std::optional<double> cf;
};

InteractionMetrics interaction_metrics(const Transcript& transcript);

// ---- Uncertainty (UDPO §2, App. D) ---------------------------------------------------------

struct DebateMetricsOptions {
  double u_intra_lambda = 0.5;  // λ of U_intra = λF + (1 − λ)M, in [0, 1]
  // How answers are compared: free text by its normalised form, as the majority vote groups it.
  AnswerType answer_type = AnswerType::kChoice;
};

// a_t^(i) is agent i's last parsed answer in the t-th round of the debate (t = 0: the initial
// answers). Only answer-bearing turns count (is_agent_answer_role); a missing answer takes no
// part in any comparison, and each metric is normalised by the comparisons it could make.
struct UncertaintyMetrics {
  std::optional<double> flip_rate;        // F: changes between consecutive debate rounds 1..T
  std::optional<double> belief_revision;  // M: final answer differs from the initial one
  std::optional<double> u_intra;          // λF + (1 − λ)M
  std::vector<std::optional<double>> conflict_by_round;  // C_t, t = 0..T (absent: < 2 answers)
  std::optional<double> u_inter;          // mean of the defined C_t (stored as "conflict" too)
  std::optional<double> entropy;          // H̃ of the final round, eq. (16)
  std::optional<double> disagreement;     // D, eq. (17)
  std::optional<double> loo_instability;  // L, eq. (18)
  std::optional<double> u_sys;            // (H̃ + D + L) / 3, eq. (19)
};

UncertaintyMetrics uncertainty_metrics(const Transcript& transcript,
                                       const DebateMetricsOptions& options = {});

// ---- Communication (SVR-MAD §5) ------------------------------------------------------------

// NComm: pairwise context transfers, the (receiving turn, shown agent) pairs over the debate's
// turns — each distinct agent other than the receiver in a turn's `shown` counts once.
std::int64_t communications(const Transcript& transcript);

// ---- All of them ---------------------------------------------------------------------------

// Fills transcript.metrics with every metric defined for it: "prr", "ad", "cf", "flip_rate",
// "belief_revision", "u_intra", "conflict", "u_inter", "entropy", "disagreement",
// "loo_instability", "u_sys", "ncomm".
void add_debate_metrics(Transcript& transcript, const DebateMetricsOptions& options = {});

}  // namespace parley
