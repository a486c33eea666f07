#pragma once
// MACI's run-level analyses over a stored run (parley/report.h reads the run): the CRIT panel's
// reliability (App. E.7, Table 10) from the `judge` events of mode "crit", and the dev-run
// percentile bins of the first contentiousness (§3.4, App. F, Table 11) from `maci_start`
// events. Pure functions of transcripts; deterministic for a seed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parley/agreement.h"
#include "parley/result.h"
#include "parley/transcript.h"

namespace parley {

// One judge replaced by another: how often the round's winner changes (App. E.7's judge swap).
struct WinnerFlips {
  std::string primary;   // the panel's first judge
  std::string swapped;   // the judge put in its place
  std::int64_t rounds = 0;   // rounds where both judges name a winner
  std::int64_t flips = 0;    // of which the winners differ
  Interval rate_ci;          // Wilson 95%
};

struct JudgeReliability {
  std::string protocol;
  std::vector<std::string> judges;  // panel order (columns of the ratings)
  std::int64_t debates = 0;
  std::int64_t arguments = 0;       // (debate, round, argument) units rated by at least one judge
  std::int64_t missing = 0;         // (unit, judge) pairs without a valid verdict
  double alpha = 0.0;               // Krippendorff's α, interval level, of the composites
  Interval alpha_ci;
  PairwiseCorrelation pearson;
  PairwiseCorrelation spearman;
  std::vector<WinnerFlips> flips;   // the first judge swapped for each other judge
  // Position effect: Spearman between a composite and the argument's place in its judge's
  // shuffled order that round (shown_at / (arguments − 1)); near 0 when order does not matter.
  double position_spearman = 0.0;
  std::int64_t position_pairs = 0;
};

// Over the debates of `protocol` that hold CRIT judge events; an error when there are none, or
// when the panel differs between debates (the columns would not be the same raters). A round's
// winner under a judge: the author whose arguments that judge scored highest on average; no
// winner on a tie or with fewer than two authors scored.
Result<JudgeReliability> judge_reliability(const std::vector<Transcript>& transcripts, const std::string& protocol,
                                           std::uint64_t seed = 20240601, int resamples = 2000);
std::string render_judge_reliability(const JudgeReliability& reliability);
std::string judge_reliability_to_json(const JudgeReliability& reliability);

// App. F's bins from a development run: the type-7 P30 and P70 of Q_0 (`evidence_quality`; a
// debate without retrieved evidence counts as 0, as the protocol bins it) and of D_JS,0
// (`disagreement`) over the debates of `protocol`, as the protocol's parameters.
struct PercentileBins {
  std::string protocol;
  std::string encoder;             // maci_start's: Q_0 is on this encoder's scale
  std::int64_t debates = 0;
  double quality_low = 0.0;        // P30 of Q_0
  double quality_high = 0.0;       // P70 of Q_0
  double disagreement_low = 0.0;   // P30 of D_JS,0
  double disagreement_high = 0.0;  // P70 of D_JS,0
};
// An error when the run's debates measured Q_0 with different encoders (model and lexical).
Result<PercentileBins> percentile_bins(const std::vector<Transcript>& transcripts, const std::string& protocol);
// The protocol entry's parameters for a new run: the four thresholds and `percentile_bins: true`.
std::string render_percentile_bins(const PercentileBins& bins);

}  // namespace parley
