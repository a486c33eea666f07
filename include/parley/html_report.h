#pragma once
// The HTML report (`parley report DIR --html FILE`; `parley run` writes DIR/report.html): one
// self-contained page — the data as JSON, Chart.js and parley's drawing script inlined — that
// opens offline and requests nothing. Its Content-Security-Policy allows only the inlined
// script and style by their SHA-256, so model text in the data can never run. Pure functions
// of a stored run (parley/runner.h's read_run); docs/formats.md, "report.html", lists the data.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parley/report.h"
#include "parley/result.h"
#include "parley/transcript.h"

namespace parley {

// Whether each protocol is on the accuracy–cost Pareto front: no other protocol is at least as
// accurate with at most as many tokens per task, and better on one of the two. Parallel to
// `protocols`.
std::vector<bool> pareto_front(const std::vector<ProtocolSummary>& protocols);

// One per-round signal of a protocol over its debates: at round r, the debates that recorded
// the signal at r (a debate that stopped earlier has none), their mean and the band from the
// 25th to the 75th percentile (type 7) — the middle half of the debates.
struct RoundPoint {
  int round = 0;
  std::int64_t n = 0;
  double mean = 0.0;
  double low = 0.0;   // 25th percentile
  double high = 0.0;  // 75th percentile
};
struct RoundSignal {
  std::string name;   // "contentiousness", "plurality_share", ...
  std::string label;  // for the reader: "CL (contentiousness)"
  std::vector<RoundPoint> points;  // ascending round
};
// The signals a protocol records per round: MACI's `maci_round` controller state (CL, the two
// gates, D_JS, Q, O, CRIT, information gain), and for every protocol whose agents answer in
// two rounds or more, the share of answering agents on the round's plurality answer. Signals
// no debate of the protocol records are left out.
std::vector<RoundSignal> round_signals(const std::vector<Transcript>& transcripts, const std::string& protocol);

struct HtmlReportOptions {
  std::string title;                     // shown as the page's heading (e.g. the run directory)
  std::uint64_t bootstrap_seed = 20240601;  // as summarize()'s and compare_protocols()'s
  int traces = 50;                       // debates per protocol whose per-round trace is embedded
};

// The data the page draws, as one JSON object (docs/formats.md): the summary, the comparison
// against the single-agent baseline, the UDPO diagnosis when the run has U metrics, the per-round
// signals and traces, and `plots`, the ids of the plots the page draws. An Error for a run with
// no debates.
Result<std::string> report_data_json(const std::vector<Transcript>& transcripts,
                                     const std::vector<std::string>& protocol_order, bool simulated,
                                     const HtmlReportOptions& options = {});

// The whole page: report_data_json's data embedded where no character of it can end its
// element, with the Content-Security-Policy <meta> that hashes the inlined script and style.
Result<std::string> render_html_report(const std::vector<Transcript>& transcripts,
                                       const std::vector<std::string>& protocol_order, bool simulated,
                                       const HtmlReportOptions& options = {});

// The Content-Security-Policy of the report page (also what `parley view` sends with it).
std::string html_report_csp();

}  // namespace parley
