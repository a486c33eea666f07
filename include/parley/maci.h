#pragma once
// MACI's moderator (Chang & Chang, "Multi-Agent Collaborative Intelligence: Dual-Dial Control
// for Reliable LLM Reasoning"): the four measurement signals (§3.2), the plateau detector and
// the two dials (§3.3), the initialisation bins (§3.4, App. F) and the stop rules, as pure
// arithmetic over what a round produced. The protocol (src/protocols/maci.cc) asks the agents
// and judges and hands each round here; nothing in this header calls an LLM. Every equation is
// one named function; the choices where the paper is silent are in docs/protocols.md, "maci".
// Plain values; safe from any thread.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace parley::maci {

// A probability distribution over a finite outcome space Y, dense by outcome index.
using Distribution = std::vector<double>;

// ---- Divergences and entropies -------------------------------------------------------------

// Shannon entropy in nats (terms with p(y) = 0 contribute 0).
double entropy(std::span<const double> p);
// H(p) / log|Y|, in [0, 1]; 0 for |Y| <= 1.
double normalized_entropy(std::span<const double> p);
// KL(p || q) in bits; +infinity when q(y) = 0 < p(y).
double kl_divergence_bits(std::span<const double> p, std::span<const double> q);
// Eq. (2): ½ KL(p‖m) + ½ KL(q‖m), m = ½(p + q), in bits: symmetric, in [0, 1], 1 exactly for
// disjoint supports.
double js_divergence(std::span<const double> p, std::span<const double> q);
// The weighted generalisation for any number of agents (M-16 reading (a)): H(Σ ω_u p_u) −
// Σ ω_u H(p_u), in bits; with two agents and ω = (½, ½) it equals eq. (2).
double generalized_js_divergence(std::span<const Distribution> beliefs, std::span<const double> weights);
// Theory dispersion (App. M.1): (1/m) Σ_i KL(p_i ‖ p̄), p̄ the uniform mean, in bits.
double mean_kl_to_centroid(std::span<const Distribution> beliefs);
// App. D.4's W̃_1 on an ordered outcome space with unit spacing: Σ_k |F_p(y_k) − F_q(y_k)| /
// (|Y| − 1), in [0, 1]; 0 for |Y| <= 1.
double normalized_wasserstein_ordinal(std::span<const double> p, std::span<const double> q);
// Total variation ½ Σ |p − q|: W_1 under the 0/1 ground metric (categorical labels, M-17).
double total_variation(std::span<const double> p, std::span<const double> q);
// −Σ p log q / log|Y| on δ-smoothed inputs (p ← (1 − δ)p + δ/|Y|, App. M.6), so that it is
// finite; a reporting metric the paper names but never defines (M-17).
double normalized_cross_entropy(std::span<const double> p, std::span<const double> q, double smoothing = 1e-6);
// (1 − δ) p + δ u, u uniform (App. M.1).
Distribution smoothed(std::span<const double> p, double smoothing);

// ---- The four signals (§3.2) and the mixture ------------------------------------------------

// Eq. (1): cos(ē, θ), ē the mean of the unit-normalised span embeddings. nullopt when there
// are no spans, every span embedding or θ is zero, or the dimensions differ.
std::optional<double> evidence_quality(std::span<const std::vector<double>> span_embeddings,
                                       std::span<const double> prototype);

// Eq. (3): |A ∩ B| / |A ∪ B| over the evidence ids two agents cited; 0 when both cited nothing.
double support_overlap(std::span<const std::string> cited_by_first, std::span<const std::string> cited_by_second);

// App. E.1: one judge's three sub-scores and their equal-weight composite.
struct CritScores {
  double evidence_support = 0.0;
  double logical_coherence = 0.0;
  double query_relevance = 0.0;
};
double crit_composite(const CritScores& scores);

// Eq. (4): Γ_u ← λ Γ_u + (1 − λ) CRIT̄_u.
double updated_reliability(double reliability, double crit_mean, double decay);
// Eq. (4) / App. E.3: ω_u = (Γ_u + ϵ) / Σ_v (Γ_v + ϵ).
std::vector<double> reliability_weights(std::span<const double> reliability, double epsilon);
// p = Σ_u ω_u p_u (Alg. 1 line 10).
Distribution mixture(std::span<const Distribution> beliefs, std::span<const double> weights);

// Eq. (5): [(H(p_prev) − H(p)) / log|Y|]_+.
double information_gain(std::span<const double> previous_mixture, std::span<const double> current_mixture);

// MA_w (App. D.4) of the last `window` values of `history`; fewer at start-up average what
// there is (our choice); 0 for an empty history.
double moving_average(std::span<const double> history, int window);

// Eq. (6) r_I: MA_w(Î) / (MA_w(H(p^(t−1)) / log|Y|) + η); the histories end at round t.
double information_progress(std::span<const double> information_gains,
                            std::span<const double> previous_normalized_entropies, int window, double eta);
// Eq. (6) r_D: MA_w([D^(t−1) − D^(t)]_+) / (MA_w(D^(t−1)) + η); `dispersions` holds D^(0) … D^(t).
double dispersion_progress(std::span<const double> dispersions, int window, double eta);

// ---- Dials and initialisation --------------------------------------------------------------

// Eq. (8): [CL − α_I π_I − α_D π_D]_+.
double next_contentiousness(double contentiousness, bool information_plateau, bool dispersion_plateau,
                            double information_step, double dispersion_step);
// Eq. (9), one gate: min(τ + γ π_I, τ_max).
double next_gate(double gate, bool information_plateau, double step, double gate_max);

// §3.4: CL^(1) from the initial evidence quality Q_0 and disagreement D_JS,0. App. B.1's
// absolute thresholds (inclusive, the defaults) or App. F's dev-set percentiles (P30 / P70,
// strict; `strict` = true).
struct InitialBins {
  double quality_low = 0.5;
  double quality_high = 0.7;
  double disagreement_low = 0.3;
  double disagreement_high = 0.5;
  bool strict = false;
};
double initial_contentiousness(double initial_quality, double initial_disagreement, const InitialBins& bins);

// ---- The acquisition plan (§4.1.2, App. H; the paper gives examples only, the design is ours) --

// The expected reduction of H(p), in bits, from an ideal test between outcomes `first` and
// `second`: it reads "first" when the truth is `first`, "second" when it is `second`, and either
// with probability ½ otherwise (it says nothing about the rest). Σ_r P(r)·H(p | r) is subtracted
// from H(p); 0 when the two hold no mass. Throws std::out_of_range for an index outside p.
double pairwise_test_entropy_reduction(std::span<const double> p, std::size_t first, std::size_t second);

// ---- The controller (Algorithm 1, lines 7–16) ----------------------------------------------

// M-6: a fixed −0.2 per round (the main tables) or eq. (8) driven by the plateau flags.
enum class ContentiousnessSchedule { kFixed, kPlateau };
// M-4: relative progress ratios (§3.3, eqs. 6–7) or App. D.5's absolute changes (eqs. 11–12).
enum class PlateauRule { kRelative, kAbsolute };
// App. D.3's unified distance D: D_JS (categorical) or W̃_1 (ordered labels).
enum class Dispersion { kJensenShannon, kWasserstein };

struct ControllerSettings {
  // Alg. 1's defaults.
  int window = 3;                    // w
  double eta = 1e-3;                 // η
  double reliability_decay = 0.8;    // λ
  double weight_epsilon = 1e-6;      // ϵ
  double initial_reliability = 0.5;  // Γ^(0), App. E.3
  int stop_rounds = 2;               // τ_stop
  double information_step = 0.2;     // α_I
  double dispersion_step = 0.2;      // α_D
  double gate_step = 0.1;            // γ
  double initial_quality_gate = 0.5; // τ_Q^(1)
  double initial_crit_gate = 0.3;    // τ_CRIT^(1)
  double gate_max = 0.8;             // τ_max: not given (M-9), our choice
  double overlap_floor = 0.3;        // τ_O
  // Eq. (7) thresholds: not given (M-3); App. D.6's absolute values reused (reading (a)).
  double relative_information_threshold = 0.02;  // ε_I^rel
  double relative_dispersion_threshold = 0.05;   // ε_D^rel
  double absolute_information_threshold = 0.02;  // ε_I (App. D.6)
  double absolute_dispersion_threshold = 0.05;   // ε_D (App. D.6)
  ContentiousnessSchedule schedule = ContentiousnessSchedule::kFixed;
  double fixed_step = 0.2;           // CL decrement per round under the fixed schedule
  // The fixed schedule's last rung: App. B.1's ladder {0.9, 0.7, 0.5, 0.3} ends at 0.3, where CL
  // then stays (a CL that starts below it is not raised).
  double fixed_floor = 0.3;
  PlateauRule plateau = PlateauRule::kRelative;
  Dispersion dispersion = Dispersion::kJensenShannon;
  // Ablations (Table 3): CL held where it starts; τ_Q ≡ −∞; ω = 1/m.
  bool hold_contentiousness = false;
  bool quality_gate = true;
  bool uniform_weights = false;
  // Lemma 1's gate (M-31): a round whose beliefs would raise the dispersion D_KL by more than ν
  // is discarded (the previous beliefs are kept).
  bool monotone = false;
  double monotone_tolerance = 0.0;   // ν
  // Other stops (App. D.5, E.7; M-11): a hard round cap; a validator stalemate (the round's
  // mean CRIT below τ_CRIT for this many consecutive rounds, 0 = off); the CRIT compound rule
  // (across-judge variance below `crit_variance` and |ΔCRIT| below `crit_change` for two
  // consecutive rounds), required in addition to eq. (10) when `crit_compound` is set.
  int max_rounds = 6;
  int stalemate_rounds = 3;
  bool crit_compound = false;
  double crit_variance = 0.01;
  double crit_change = 0.02;
};

// One agent's contribution to a round (Alg. 1 line 5).
struct AgentRound {
  Distribution belief;                 // p_u^(t) over the task's outcome space
  std::vector<std::string> cited;      // Ê_u^(t): the evidence ids its arguments cite
};

// An evidence span an argument cites, with its embedding φ(e).
struct CitedSpan {
  std::string id;
  std::vector<double> embedding;
};

// A candidate argument, scored (Alg. 1 line 7).
struct CandidateArgument {
  std::size_t agent = 0;        // index into RoundInput::agents
  std::vector<CitedSpan> spans;  // the cited spans that resolved to evidence
  // Judge k's composite in [0, 1], by panel position; nullopt where judge k gave no valid verdict.
  std::vector<std::optional<double>> judge_scores;
};

struct RoundInput {
  std::vector<AgentRound> agents;
  std::vector<CandidateArgument> arguments;
};

struct ArgumentDecision {
  std::optional<double> evidence_score;  // q_i (nullopt: no span resolved)
  std::optional<double> crit;            // CRIT_i: mean over the judges (nullopt: no valid verdict)
  bool admitted = false;
};

enum class StopReason { kNone, kPlateau, kStalemate, kRoundCap };
const char* stop_reason_name(StopReason reason);  // "" | "plateau" | "stalemate" | "round_cap"

// Everything Alg. 1 computes in a round, for the transcript.
struct RoundRecord {
  int round = 0;
  double contentiousness = 0.0;        // CL^(t): the dial the agents were given
  double quality_gate = 0.0;           // τ_Q^(t)
  double crit_gate = 0.0;              // τ_CRIT^(t)
  std::vector<ArgumentDecision> arguments;  // RoundInput::arguments order
  std::optional<double> evidence_quality;   // Q^(t) over the admitted spans (nullopt: none admitted)
  double disagreement = 0.0;           // D_JS^(t): eq. (2); more agents: uniform generalised JSD / log2 m (M-16)
  double dispersion = 0.0;             // D^(t): the configured unified distance
  double overlap = 0.0;                // O^(t): eq. (3); more agents: mean over pairs
  std::optional<double> crit_mean;     // CRIT^(t) over all (argument, judge) scores
  std::optional<double> crit_variance; // across-judge variance of the judges' means
  std::vector<double> reliability;     // Γ_u^(t)
  std::vector<double> weights;         // ω_u^(t)
  Distribution mixture;                // p^(t)
  double information_gain = 0.0;       // Î^(t)
  double information_ratio = 0.0;      // r_I^(t) (relative rule) or ΔÎ (absolute rule)
  double dispersion_ratio = 0.0;       // r_D^(t) (relative rule) or |D^(t) − D^(t−1)| (absolute)
  bool information_plateau = false;    // π_I^(t)
  bool dispersion_plateau = false;     // π_D^(t)
  bool update_rejected = false;        // monotone mode discarded this round's beliefs
  double next_contentiousness = 0.0;   // CL^(t+1)
  double next_quality_gate = 0.0;      // τ_Q^(t+1)
  double next_crit_gate = 0.0;         // τ_CRIT^(t+1)
  StopReason stop = StopReason::kNone;
};

// Before round 1 (§3.4, App. F): each agent's single-pass belief p_u^(0), the quality Q_0 of
// the retrieved evidence (nullopt when nothing was retrieved: it then counts as low), and the
// prototype θ the evidence is measured against (eq. 1) for the whole debate.
struct InitialState {
  std::vector<Distribution> beliefs;
  std::optional<double> evidence_quality;
  std::vector<double> prototype;
};

class Controller {
 public:
  Controller(ControllerSettings settings, const InitialState& initial, const InitialBins& bins);

  const ControllerSettings& settings() const { return settings_; }
  // The dials for the next round (A^(t) of Alg. 1 line 3).
  int next_round() const { return round_ + 1; }
  double contentiousness() const { return contentiousness_; }
  double quality_gate() const { return quality_gate_; }
  double crit_gate() const { return crit_gate_; }
  double initial_disagreement() const { return initial_disagreement_; }
  // Overrides the dials (the bandit scheduler, App. L); values are clipped to [0, 1].
  void set_dials(double contentiousness, double quality_gate, double crit_gate);

  // Alg. 1 lines 7–16 on one round: admission, reliability, mixture, signals, flags, dials, stop.
  // The agents must be the same, in the same order, every round. Throws std::invalid_argument
  // when the input does not fit (agent count, distribution sizes, argument agent index).
  RoundRecord observe(const RoundInput& input);

  // The latest mixture p^(t) (p^(0) before any round) and the agents' beliefs behind it.
  const Distribution& mixture() const { return mixture_; }
  const std::vector<Distribution>& beliefs() const { return beliefs_; }
  const std::vector<RoundRecord>& history() const { return history_; }

 private:
  ControllerSettings settings_;
  std::vector<double> prototype_;
  int round_ = 0;
  double contentiousness_ = 0.0;
  double quality_gate_ = 0.0;
  double crit_gate_ = 0.0;
  double initial_disagreement_ = 0.0;
  std::vector<double> reliability_;
  std::vector<Distribution> beliefs_;
  Distribution mixture_;
  // Per-round series for the moving averages; index 0 is the initial state where it has one.
  std::vector<double> dispersions_;             // D^(0), D^(1), ...
  std::vector<double> normalized_entropies_;    // H(p^(0))/log|Y|, ...
  std::vector<double> information_gains_;       // Î^(1), ...
  std::vector<double> averaged_gains_;          // MA_w(Î^(t)), for the absolute rule's ΔÎ
  std::vector<bool> information_flags_;         // π_I^(1), ...
  std::vector<bool> dispersion_flags_;          // π_D^(1), ...
  std::vector<bool> crit_settled_;              // App. E.7's condition held in round t
  std::vector<bool> crit_below_gate_;           // CRIT^(t) < τ_CRIT^(t) (stalemate)
  std::vector<RoundRecord> history_;
};

}  // namespace parley::maci
