#pragma once
// Report: per-protocol summary statistics computed from stored transcripts, rendered as the
// terminal comparison table and as summary.json. Pure functions of their inputs.

#include <cstdint>
#include <string>
#include <vector>

#include "parley/stats.h"
#include "parley/transcript.h"

namespace parley {

struct ProtocolSummary {
  std::string name;
  std::int64_t n = 0;                 // debates (task × seed units)
  double accuracy = 0.0;              // correct / n; failed and unparsed debates count as wrong
  Interval accuracy_ci;               // 95% seeded percentile bootstrap over units
  double tokens_in_mean = 0.0;        // prompt tokens per debate
  double tokens_out_mean = 0.0;       // completion tokens per debate
  double calls_mean = 0.0;            // LLM calls per debate
  double apt = 0.0;                   // accuracy × 100,000 / mean total tokens (iMAD App. B.1)
  double unparsed_rate = 0.0;         // debates without a parsable final answer / n
  double latency_ms_mean = 0.0;       // debate wall time
  std::int64_t failed = 0;            // status failed
  std::int64_t budget = 0;            // status budget
  std::int64_t tokens_estimated = 0;  // debates with at least one estimated token count
};

struct Summary {
  bool simulated = false;
  std::vector<ProtocolSummary> protocols;
};

// Groups by protocol label in `protocol_order` (labels not listed follow, sorted).
Summary summarize(const std::vector<Transcript>& transcripts,
                  const std::vector<std::string>& protocol_order, bool simulated,
                  std::uint64_t bootstrap_seed = 20240601);

std::string summary_to_json(const Summary& summary);  // pretty-printed
std::string render_table(const Summary& summary);     // fixed-width terminal table

}  // namespace parley
