#pragma once
// UDPO's diagnosis of debate collapse over a stored run (udpo-uncertainty-collapse §3.2, §5.5,
// Fig. 2–5; App. B, C.3, C.4, Fig. 11), from the per-debate U_intra, U_inter and U_sys that
// add_debate_metrics stored (parley/metrics.h): per protocol, failed against successful debates
// (t-tests, Cohen's d), the correlations of the three U with correctness, and the selective-
// prediction curve; across protocols, accuracy by difficulty strata of a baseline's U. Pure
// functions of transcripts (parley/runner.h's read_run gives them); `parley diagnose` prints them.
// Every choice the paper leaves open is stated in docs/protocols.md, "Diagnosis".

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/result.h"
#include "parley/stats.h"
#include "parley/transcript.h"

namespace parley {

// UDPO §2's three levels, by their names in Transcript::metrics.
inline constexpr std::array<std::string_view, 3> kUncertaintyMetrics = {"u_intra", "u_inter", "u_sys"};

// The U values of one group of debates.
struct GroupSummary {
  std::int64_t n = 0;          // debates of the group that define the U
  std::optional<double> mean;  // absent when n = 0
  std::optional<double> sd;    // sample SD (n − 1); absent when n < 2
};

// One U over failed (Transcript::correct false) against successful debates (§3.2, Fig. 2).
// Welch's t-test is the main test (the groups differ in size and spread); Student's pooled test
// is given beside it. Cohen's d = (mean_failed − mean_successful) / s_pooled, so d > 0 when
// failures are the more uncertain. Each is nullopt where parley/stats.h leaves it undefined.
struct FailureSeparation {
  std::string metric;  // "u_intra" | "u_inter" | "u_sys"
  GroupSummary failed;
  GroupSummary successful;
  std::optional<TTest> welch;
  std::optional<TTest> student;
  std::optional<double> cohens_d;
};

// Pearson's r with its two-sided p among U_intra, U_inter, U_sys and correct (0/1: against it r is
// the point-biserial correlation) over the debates that define all three U (§3.2, Fig. 3).
struct CorrelationMatrix {
  std::vector<std::string> variables;  // "u_intra", "u_inter", "u_sys", "correct"
  std::int64_t n = 0;
  // cells[i][j], symmetric, the diagonal included; nullopt where undefined (n < 3, a constant
  // column).
  std::vector<std::vector<std::optional<CorrelationTest>>> cells;
};

// Selective prediction (§3.2, Fig. 4; App. B.3, Fig. 8): the share k of the debates with the
// lowest U kept. Ranked by ascending U, then task id, then seed (a stable, total order).
struct SelectivePoint {
  int percent = 0;           // k
  std::int64_t kept = 0;     // ⌈k·n/100⌉, the first `kept` in rank order (so the sets are nested)
  std::int64_t correct = 0;  // of the kept
  double accuracy = 0.0;     // correct / kept
};
struct SelectiveCurve {
  std::string metric;
  std::int64_t n = 0;                  // debates defining the metric
  std::vector<SelectivePoint> points;  // k = 10, 20, …, 100; none when n = 0
};

struct ProtocolDiagnosis {
  std::string protocol;
  std::int64_t debates = 0;                   // analysed: the stored debates but those of status failed
  std::int64_t failed_status = 0;             // left out: status failed (an infrastructure error)
  std::int64_t correct = 0;                   // of the analysed (a budget-halted debate counts, as itself)
  std::vector<FailureSeparation> separation;  // u_intra, u_inter, u_sys
  CorrelationMatrix correlations;
  std::vector<SelectiveCurve> selective;  // u_intra, u_inter, u_sys
};

// A protocol on the units of one stratum that it ran (status not failed), against the baseline
// on those same units. Accuracies and the gain are absent when it ran none of them.
struct StratumAccuracy {
  std::string protocol;
  std::int64_t units = 0;
  std::int64_t correct = 0;
  std::int64_t baseline_correct = 0;  // the baseline on the same units
  std::optional<double> accuracy;
  std::optional<double> baseline_accuracy;
  std::optional<double> gain_pp;  // 100 (accuracy − baseline_accuracy): percentage points
};

// The baseline's (task id, seed) units whose U lies in [low, high) — the last stratum [0.8, 1.0]
// (calibration_bin with 5 bins).
struct Stratum {
  double low = 0.0;
  double high = 0.0;
  std::int64_t units = 0;
  std::int64_t baseline_correct = 0;
  std::optional<double> baseline_accuracy;  // absent when units = 0
  std::vector<StratumAccuracy> protocols;   // the other protocols, in report order
};

// Difficulty strata (§5.5, Fig. 5 by U_sys; App. C.4, Fig. 11 by U_intra and U_inter): units
// binned by the baseline protocol's U on that unit.
struct DifficultyStrata {
  std::string metric;
  std::string baseline;
  std::int64_t units = 0;            // the baseline's units that define the metric (binned)
  std::int64_t without_metric = 0;   // the baseline's units left out: the metric undefined
  std::int64_t baseline_failed = 0;  // the baseline's units left out: status failed
  std::vector<Stratum> strata;       // five, ascending
};

struct Diagnosis {
  bool simulated = false;
  std::string baseline;
  std::vector<ProtocolDiagnosis> protocols;  // in report order (protocols_in_order)
  std::vector<DifficultyStrata> strata;      // by u_sys, u_intra, u_inter
};

struct DiagnosisOptions {
  std::string protocol;  // diagnose this protocol only; "" = every protocol of the run
  // The strata's baseline; "" = the protocol labelled "debate" (Standard MAD, the flat Du et al.
  // debate of UDPO §3.1) when the run has it, else the first protocol in report order.
  std::string baseline;
  bool simulated = false;  // the run was on parley's simulator (StoredRun::simulated)
};

// `protocol_order` as StoredRun::protocol_order. Errors: no transcripts, an unknown protocol or
// baseline. The strata compare every diagnosed protocol other than the baseline with it.
Result<Diagnosis> diagnose(const std::vector<Transcript>& transcripts,
                           const std::vector<std::string>& protocol_order,
                           const DiagnosisOptions& options = {});

std::string render_diagnosis(const Diagnosis& diagnosis);   // terminal tables; the strata by U_sys
std::string diagnosis_to_json(const Diagnosis& diagnosis);  // pretty-printed; docs/formats.md

}  // namespace parley
