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
//   loo_instability, u_sys — from a transcript, or from an in-memory AnswerTrajectory (the one
//   implementation UDPO's rewards, parley/udpo.h, are computed from), with each agent's share
//   (AgentUncertainty) for UDPO's warm-up profile
// Communication cost of SVR-MAD (§5, "Metrics"): ncomm, the pairwise context transfers.
// A metric that is undefined for a debate (too few turns, agents or rounds) is left out of the
// map. The choices where the papers leave room are in docs/protocols.md.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/labels.h"
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
  // A label task's label set: on an ordered scale the final belief's deviations are scored too.
  std::shared_ptr<const LabelSet> labels;
};

// a_t^(i): agent i's parsed answer after round t, as the majority vote reads it.
struct TrajectoryAnswer {
  std::string value;                 // canonical answer (Answer::value), compared by vote_key
  std::optional<double> confidence;  // self-reported, in [0, 1]: the vote's tie rule sums it
};

// τ = {(a_0^(1), …, a_0^(N)), …, (a_T^(1), …, a_T^(N))} (UDPO §4.2): every agent's answer after
// every round, t = 0 the initial answers. Rectangular by construction — each round has one
// entry per agent, nullopt where the agent has no parsed answer (a missing answer is not carried
// over from another round). Built from a transcript by answer_trajectory(), or in memory by
// training code (src/udpo). A plain value; safe to share read-only between threads.
class AnswerTrajectory {
 public:
  using Round = std::vector<std::optional<TrajectoryAnswer>>;  // indexed by agent

  // Throws std::invalid_argument when two agents share a name or a round's size is not
  // agents.size().
  AnswerTrajectory(std::vector<std::string> agents, std::vector<Round> rounds);

  const std::vector<std::string>& agents() const { return agents_; }
  const std::vector<Round>& rounds() const { return rounds_; }
  std::size_t agent_count() const { return agents_.size(); }  // N
  std::size_t round_count() const { return rounds_.size(); }  // T + 1

 private:
  std::vector<std::string> agents_;
  std::vector<Round> rounds_;
};

// The trajectory of a transcript: its answer-bearing turns only (is_agent_answer_role), the
// rounds in which any agent took a turn in order (t = 0..T; rounds are positions, not numbers),
// the agents in the order of their first turn, and a_t^(i) the agent's last parsed answer of
// round t in issue order (a re-ask's reply replaces its turn's).
AnswerTrajectory answer_trajectory(const Transcript& transcript);

// One agent's share of the uncertainty (UDPO App. A.2, phase 1; reading guide B.2's suggested
// definitions). With every answer parsed, the mean over agents of u_inter is U_inter and of
// flip_rate is F; the mean of changes_vote (as 0/1, over the agents where it is defined) is L
// always, because L is computed from these indicators.
struct AgentUncertainty {
  std::optional<double> flip_rate;        // F_i: agent i's changes over t = 1..T−1 → t + 1
  std::optional<double> belief_revision;  // M_i = 1[a_0^(i) ≠ a_T^(i)]
  std::optional<double> u_intra;          // λF_i + (1 − λ)M_i
  // Mean over the rounds where i and another agent answered of the share of the other agents'
  // answers that differ from i's: (1/(T+1)) Σ_t (1/(N−1)) Σ_{j≠i} 1[a_t^(i) ≠ a_t^(j)].
  std::optional<double> u_inter;
  // 1[ŷ(τ) ≠ ŷ(τ^{-i})], eq. (18)'s term: defined where L is and agent i answered in round T.
  std::optional<bool> changes_vote;
};

// Each metric is a function of the trajectory. A missing answer takes no part in any comparison,
// and each metric is normalised by the comparisons it could make; a metric with none is nullopt.
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
  // The share of changes over every consecutive pair of rounds, 0 → 1 included: the sum of
  // UDPO eq. (1) over its transitions t = 0..T−1 (U-1 readings (b) and (c) of r_intra).
  std::optional<double> transition_rate;
  // ŷ(τ): the majority vote of the final round's parsed answers with the project's tie rules
  // (protocols/vote.h), spelled as its first voter wrote it; nullopt when none parsed. Defined
  // with one answer too, where the system-level metrics are not.
  std::optional<std::string> final_vote;
  std::vector<AgentUncertainty> agents;  // in the trajectory's agent order
};

UncertaintyMetrics uncertainty_metrics(const AnswerTrajectory& trajectory, const DebateMetricsOptions& options = {});
// uncertainty_metrics(answer_trajectory(transcript), options).
UncertaintyMetrics uncertainty_metrics(const Transcript& transcript,
                                       const DebateMetricsOptions& options = {});

// ---- Communication (SVR-MAD §5) ------------------------------------------------------------

// NComm: pairwise context transfers, the (receiving turn, shown agent) pairs over the debate's
// turns — each distinct agent other than the receiver in a turn's `shown` counts once.
std::int64_t communications(const Transcript& transcript);

// ---- The final belief (MACI Tables 2–4; docs/protocols.md, "Belief metrics") ---------------

// A debate's final distribution over answers (canonical labels), as far as it states one.
struct FinalBelief {
  std::string source;                 // "maci_final" | "final_round"
  std::vector<std::string> labels;    // in the order given; no repeats
  std::vector<double> probabilities;  // one per label, summing to at most 1
};

// MACI's `maci_final` distribution; for any other protocol, the equal-weight mixture of the last
// round's answer-bearing turns, each turn its answer at its stated confidence (1 when it stated
// none) with the rest of its mass unassigned — a single answer at 80% is {answer: 0.8}, a vote of
// 20 unstated samples their shares. nullopt when no turn has an answer.
std::optional<FinalBelief> final_belief(const Transcript& transcript);

// Scores of the final belief against the gold (Transcript::gold, compared as canonical text),
// with the unassigned mass as one more outcome that is never the gold. The debate's Acc@1 is
// Transcript::correct.
struct BeliefScores {
  bool acc_at_3 = false;         // the gold among the three most probable (ties by label order)
  double reciprocal_rank = 0.0;  // 1 / the gold's rank, 0 when not listed (MRR is the mean)
  double brier = 0.0;            // multi-class Σ_y (p(y) − 1[y = gold])², in [0, 2]
  double gold_probability = 0.0;
  double confidence = 0.0;       // the probability of the debate's final answer (0 when unlisted)
};
std::optional<BeliefScores> belief_scores(const Transcript& transcript);

// On an ordered label scale (MACI §4.2, M-35), from the final belief over the scale's labels
// (other labels left out, the rest renormalised; rated −(K−1)/2 … (K−1)/2 steps from the centre):
// the absolute expected rating ("MAD from centrist" of one debate) and W̃_1 to the gold,
// Σ_k |F_p(k) − F_gold(k)| / (K − 1). nullopt for an unordered set, no belief on the scale, or a
// gold outside it.
struct ScaleScores {
  double centrist_deviation = 0.0;
  double gold_distance = 0.0;
};
std::optional<ScaleScores> scale_scores(const Transcript& transcript, const LabelSet& labels);

// ---- The outcome (the store's debate index, docs/formats.md "results.sqlite") -----------------

// The task as far as comparing answers needs it, from what the transcript records: its id, gold,
// answer type and tolerance (kText when the transcript predates answer types). A label task's
// synonyms are not needed: stored answers are canonical labels. answers_match(answer_key(t),
// *t.final_answer) is how the run decided Transcript::correct.
Task answer_key(const Transcript& transcript);

// Whether the debate started right: the majority vote (protocols' tie rules, protocols/vote.h) of
// the answers of the agents' answer-bearing turns in the lowest round any such turn has (a re-ask
// folded into its turn), compared with the gold as the run compares its final answer. nullopt
// when none of those turns has a parsed answer.
std::optional<bool> initially_correct(const Transcript& transcript);

// Flipped right → wrong: initially_correct, and a final answer the run judged wrong (not
// Transcript::correct). A debate without a final answer (unparsed, failed) did not flip: it has
// no answer to be wrong with.
bool flipped_to_wrong(const Transcript& transcript);

// The distinct rounds of the answer-bearing turns: the "rounds" metric, 0 when there is no turn.
int answer_rounds(const Transcript& transcript);

// The three above from one reading of the turns (the store indexes every debate with them).
struct DebateOutcome {
  std::optional<bool> initially_correct;
  bool flipped = false;
  int rounds = 0;
};
DebateOutcome debate_outcome(const Transcript& transcript);

// ---- All of them ---------------------------------------------------------------------------

// Fills transcript.metrics with every metric defined for it: "prr", "ad", "cf", "flip_rate",
// "belief_revision", "u_intra", "conflict", "u_inter", "entropy", "disagreement",
// "loo_instability", "u_sys", "ncomm"; from the final belief "acc_at_3", "reciprocal_rank",
// "brier", "gold_probability", "final_confidence"; on an ordered scale (options.labels)
// "centrist_deviation" and "gold_distance"; "rounds" (distinct rounds of the answer-bearing
// turns); "tokens_debaters", "tokens_judges", "tokens_embeddings" (prompt + completion by who made
// the call: roles "judge…", "embedding", the rest); and the numbers of MACI's `maci_final`
// "scores" object under their own names.
void add_debate_metrics(Transcript& transcript, const DebateMetricsOptions& options = {});

}  // namespace parley
