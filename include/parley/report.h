#pragma once
// Report: per-protocol summary statistics computed from stored transcripts, rendered as the
// terminal comparison table and as summary.json. Pure functions of their inputs.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parley/result.h"
#include "parley/stats.h"
#include "parley/transcript.h"

namespace parley {

// iMAD §3 (Table 2): the outcome of a protocol against a baseline's on the same (task, seed)
// units, by the correctness of each: right→right, right→wrong, wrong→right, wrong→wrong.
struct DecisionBreakdown {
  std::string baseline;  // the baseline's protocol label
  std::int64_t right_right = 0;
  std::int64_t right_wrong = 0;
  std::int64_t wrong_right = 0;
  std::int64_t wrong_wrong = 0;
  std::int64_t units() const { return right_right + right_wrong + wrong_right + wrong_wrong; }
};

// The baseline of the decision breakdown: the protocol labelled "single" (chain of thought).
inline constexpr const char* kDecisionBaseline = "single";

// iMAD §5.2 (Table 4): the decisions of a selective protocol (imad, down — its "trigger"
// events) by whether the single agent's answer was right and whether MAD's was. A debated unit
// has MAD's outcome in its own transcript; a skipped unit takes it from the MAD reference
// protocol's debate of the same (task, seed), when the run has one. The reference itself
// debates every unit, with the single-agent baseline (kDecisionBaseline) as its single answer.
// Beneficial decisions: skipping a right single answer, skipping when MAD would be wrong too,
// debating when MAD fixes a wrong single answer; every other decision is harmful or wasted.
struct SelectiveDecisions {
  std::string mad_reference;        // whose outcome stands for MAD's on skipped units; "" = none
  DecisionBreakdown skipped;        // single → MAD (counterfactual), skipped units
  DecisionBreakdown debated;        // single → MAD, debated units
  std::int64_t skipped_right_unknown = 0;  // skipped, single right, no MAD outcome
  std::int64_t skipped_wrong_unknown = 0;  // skipped, single wrong, no MAD outcome
  // Debated without a MAD outcome: only when evaluating a trigger on units it did not debate.
  std::int64_t debated_right_unknown = 0;
  std::int64_t debated_wrong_unknown = 0;
  // Counts one decision. `mad_right`: MAD's outcome on the unit, if known.
  void add(bool was_debated, bool single_right, std::optional<bool> mad_right);
  std::int64_t decisions() const {
    return skipped.units() + debated.units() + skipped_right_unknown + skipped_wrong_unknown +
           debated_right_unknown + debated_wrong_unknown;
  }
  std::int64_t debates() const { return debated.units() + debated_right_unknown + debated_wrong_unknown; }
  std::int64_t beneficial() const {
    return skipped.right_right + skipped.right_wrong + skipped_right_unknown + skipped.wrong_wrong +
           debated.wrong_right;
  }
  // Decisions whose benefit is known: MAD's outcome decides it for a wrong single answer only
  // (debating a right one is never beneficial, skipping it always is).
  std::int64_t judged() const { return decisions() - skipped_wrong_unknown - debated_wrong_unknown; }
  double beneficial_rate() const { return judged() ? static_cast<double>(beneficial()) / judged() : 0.0; }
  double debate_rate() const { return decisions() ? static_cast<double>(debates()) / decisions() : 0.0; }
};

// The MAD reference of SelectiveDecisions: the protocol labelled "mad".
inline constexpr const char* kMadReference = "mad";

// The mean of a per-debate quantity over the debates that define it, with its 95% percentile
// bootstrap CI (2,000 resamples of those debates, shared by the protocol's quantities defined
// on the same debates).
struct MeanEstimate {
  std::int64_t n = 0;  // debates that define the quantity
  double mean = 0.0;
  Interval ci;
};

struct ProtocolSummary {
  std::string name;
  std::int64_t n = 0;                 // debates (task × seed units)
  // Over the debates whose task has a gold answer (`graded` of the n; served traffic may have
  // none): correct / graded, failed and unparsed debates counting as wrong; 0 and meaningless
  // when graded is 0, which the report shows as "-" and summary.json as null.
  std::int64_t graded = 0;
  double accuracy = 0.0;
  Interval accuracy_ci;               // 95% seeded percentile bootstrap over the graded units
  double tokens_in_mean = 0.0;        // prompt tokens per debate
  double tokens_out_mean = 0.0;       // completion tokens per debate
  double calls_mean = 0.0;            // LLM calls per debate
  // 95% CIs of the token and call means, bootstrapped as accuracy_ci; tokens_ci is the CI of
  // prompt + completion tokens per debate, whose mean is tokens_in_mean + tokens_out_mean.
  Interval tokens_ci;
  Interval tokens_in_ci;
  Interval tokens_out_ci;
  Interval calls_ci;
  double apt = 0.0;                   // accuracy × 100,000 / mean total tokens (iMAD App. B.1)
  double unparsed_rate = 0.0;         // debates without a parsable final answer / n
  double latency_ms_mean = 0.0;       // critical-path latency of the debate's LLM calls
  std::int64_t failed = 0;            // status failed
  std::int64_t budget = 0;            // status budget
  std::int64_t tokens_estimated = 0;  // debates with at least one estimated token count
  // Each per-debate metric (Transcript::metrics) over the debates that define it.
  std::map<std::string, MeanEstimate> metrics;
  // MACI's ECE (Tables 3–4): binned_calibration_error (10 bins) of the debates' final
  // confidence ("final_confidence") against their correctness, over the debates that define
  // it; a point estimate.
  std::optional<double> ece;
  std::int64_t ece_n = 0;
  // Against kDecisionBaseline over the units both ran; absent for the baseline itself and when
  // the run has no protocol of that label.
  std::optional<DecisionBreakdown> vs_single;
  // For protocols that record trigger decisions, and for the MAD reference when the run has the
  // single-agent baseline.
  std::optional<SelectiveDecisions> selective;
};

// SVR-MAD §3 and §5 (Fig. 1–2): units grouped by how many agents were right before debate, as
// the "priors" event of a protocol (svr_mad) records its pre-debate answers; per group, how
// often the agent ranked first by each prior signal ("min_ll", "ppl", "confidence") and by the
// final SVR-MAD score ("svr") is right, and each protocol's accuracy on those units. Units
// whose pre-debate answers are unanimous are left out, as in the paper (§5).
struct DifficultyGroup {
  int correct_before = 0;
  std::int64_t units = 0;
  std::map<std::string, std::int64_t> ranked;       // signal → units where it ranked an agent
  std::map<std::string, std::int64_t> top_correct;  // signal → units whose top-ranked agent is right
  std::map<std::string, std::int64_t> protocol_units;    // protocol → units it ran
  std::map<std::string, std::int64_t> protocol_correct;  // protocol → of which correct
};
struct DifficultyBreakdown {
  std::string source;  // the protocol whose pre-debate answers define the difficulty
  int agents = 0;
  std::int64_t unanimous = 0;           // units left out
  std::vector<DifficultyGroup> groups;  // ascending correct_before, only groups with units
};

struct Summary {
  bool simulated = false;
  std::vector<ProtocolSummary> protocols;
  std::optional<DifficultyBreakdown> difficulty;  // when a protocol recorded pre-debate priors
};

// The protocol labels of a run in report order: those of `protocol_order` that have
// transcripts, then the rest, sorted.
std::vector<std::string> protocols_in_order(const std::vector<Transcript>& transcripts,
                                            const std::vector<std::string>& protocol_order);

// Groups by protocol label, in protocols_in_order(transcripts, protocol_order). The quantities
// of a protocol defined on the same debates are resampled with the same draws
// (bootstrap_mean_cis), from the stream of `bootstrap_seed`, the protocol's label and the
// number of those debates.
Summary summarize(const std::vector<Transcript>& transcripts,
                  const std::vector<std::string>& protocol_order, bool simulated,
                  std::uint64_t bootstrap_seed = 20240601);

std::string summary_to_json(const Summary& summary);  // pretty-printed
std::string render_table(const Summary& summary);     // fixed-width terminal table

// ---- SID-ET's skip-rate tuning (SVR-MAD App. A, Algorithm 2; parley tune-sid-et) -----------

// SID-ET at skip rate r, replayed from a run of sid_et that debated every unit: the share r of
// units with the highest single-agent min log-likelihood keep the single answer (its
// correctness, its first call's tokens), the rest keep the debate's outcome and tokens. Units
// unanimous before debate (svr_mad's record) are left out, as in SVR-MAD App. A.
struct SkipRateRow {
  double skip_rate = 0.0;
  double threshold = 0.0;  // sid_et's threshold that skips these units (min-LL above it)
  std::int64_t skipped = 0;  // units that keep the single answer: ⌈r·units⌉, at most the skippable
  double accuracy = 0.0;
  double tokens = 0.0;     // mean prompt + completion tokens per unit
};
struct SkipRateTuning {
  std::int64_t units = 0;           // units tuned on
  std::int64_t always_debated = 0;  // of which sid_et debates whatever its threshold (no parsed
                                    // single answer, or no min-LL): debated at every rate
  std::int64_t unanimous = 0;       // sid_et's units left out: unanimous before debate
  std::string pre_debate_source;    // the protocol whose record says so ("" = none: nothing left out)
  double reference_accuracy = 0.0;  // the reference protocol (SVR-MAD) on the same units
  double reference_tokens = 0.0;
  std::vector<SkipRateRow> rows;    // r = 90%, 80%, …, 10%, in Algorithm 2's order
  double selected = 0.1;            // r̂
  std::string why;                  // "matches the reference's accuracy", "exceeds its tokens", "none did"
};
// Errors: no unit of `sid_et` with a debate and a min log-likelihood; a unit it skipped (run it
// with threshold 0 so that every unit debates); no reference protocol on the same units.
Result<SkipRateTuning> tune_skip_rate(const std::vector<Transcript>& transcripts, const std::string& sid_et,
                                      const std::string& reference);
std::string render_skip_rate(const SkipRateTuning& tuning, const std::string& sid_et, const std::string& reference);

// ---- Paired comparison of protocols (parley compare) ----------------------------------------

// Per-debate metrics a comparison can use: "accuracy" (correct as 0/1), "tokens" (prompt +
// completion), "tokens_in", "tokens_out", "calls", "latency_ms", "unparsed" (0/1), or any
// name in a transcript's `metrics` map.
std::vector<std::string> builtin_compare_metrics();

// Two protocols compared over the (task, seed) units both ran; the difference is first −
// second (debate-protocols Table 2: "the paired mean difference (first minus second)").
struct ProtocolPair {
  std::string first;
  std::string second;
  bool operator==(const ProtocolPair&) const = default;
};
// Every protocol of `protocols` but the baseline, in that order, against the baseline.
std::vector<ProtocolPair> pairs_against(const std::vector<std::string>& protocols, const std::string& baseline);
// Every pair of `protocols`, the earlier one first: (p0, p1), (p0, p2), …, (p1, p2), …
std::vector<ProtocolPair> all_pairs(const std::vector<std::string>& protocols);

// The family within which Holm and Benjamini–Hochberg adjust each test's p-values.
enum class AdjustmentFamily {
  kPair,  // each protocol pair across its metrics (debate-protocols §2.4: "within each
          // protocol comparison family across the three primary metrics")
  kAll,   // every row of the comparison
};
const char* family_name(AdjustmentFamily family);  // "pair", "all"

// One pair on one metric, over the units both ran with the metric defined on both sides.
struct ComparisonRow {
  std::string first;
  std::string second;
  std::string metric;
  std::int64_t n = 0;                 // matched units with the metric defined on both sides
  double first_mean = 0.0;
  double second_mean = 0.0;
  PairedBootstrap difference;         // first - second: mean, percentile and BCa 95% CIs
  double permutation_p = 1.0;         // two-sided paired sign-flip test
  double wilcoxon_p = 1.0;            // two-sided Wilcoxon signed-rank test
  bool wilcoxon_exact = false;        // its p is exact (else the normal approximation)
  std::int64_t family_size = 0;       // rows adjusted together with this one (itself included)
  double permutation_p_holm = 1.0;
  double permutation_p_bh = 1.0;
  double wilcoxon_p_holm = 1.0;
  double wilcoxon_p_bh = 1.0;
};

struct Comparison {
  bool simulated = false;
  AdjustmentFamily family = AdjustmentFamily::kPair;
  std::vector<ComparisonRow> rows;  // pairs in the order given, each with its metrics in order
  // "first vs second: metric" with no matched unit defining the metric on both sides (e.g.
  // U_sys against a single agent): not tested, in no adjustment family.
  std::vector<std::string> not_compared;
};

// Each pair on each metric. Errors: no pair; a protocol that has no transcript; a pair of a
// protocol with itself, or listed twice (in either order); a metric no transcript defines.
// Deterministic for a seed; a pair's resampling does not depend on its order or position, so
// b:a gives the mirror image of a:b.
Result<Comparison> compare_protocols(const std::vector<Transcript>& transcripts, const std::vector<ProtocolPair>& pairs,
                                     const std::vector<std::string>& metrics, AdjustmentFamily family, bool simulated,
                                     std::uint64_t seed = 20240601);

std::string comparison_to_json(const Comparison& comparison);  // pretty-printed
std::string render_comparison(const Comparison& comparison);   // terminal table

}  // namespace parley
