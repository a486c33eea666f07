// The terminal comparison table. Simulated numbers say so in the first line.
#include <fmt/format.h>

#include "parley/report.h"

namespace parley {
namespace {

// iMAD §3's breakdown under the table, one row per protocol compared with the baseline.
std::string render_decision_breakdown(const Summary& summary, std::size_t name_width) {
  std::string out;
  const auto row = [&](auto&&... columns) {
    out += fmt::format("{:<{}}  {:>5}  {:>12}  {:>12}  {:>12}  {:>12}\n", columns...);
  };
  for (const auto& p : summary.protocols) {
    if (!p.vs_single) continue;
    const DecisionBreakdown& b = *p.vs_single;
    if (out.empty()) {
      out += fmt::format("\nvs {0} on the same task x seed units ({0}'s correctness -> the protocol's):\n",
                         b.baseline);
      row("protocol", name_width, "units", "right->right", "right->wrong", "wrong->right", "wrong->wrong");
    }
    row(p.name, name_width, b.units(), b.right_right, b.right_wrong, b.wrong_right, b.wrong_wrong);
  }
  return out;
}

}  // namespace

std::string render_table(const Summary& summary) {
  std::string out;
  if (summary.simulated) {
    out += "SIMULATED: these numbers come from parley's built-in simulator, not from a real LLM.\n";
  }
  std::size_t name_width = 8;
  for (const auto& p : summary.protocols) name_width = std::max(name_width, p.name.size());
  const auto row = [&](auto&&... columns) {
    out += fmt::format("{:<{}}  {:>5}  {:>21}  {:>9}  {:>8}  {:>6}  {:>7}  {:>8}  {:>6}  {:>10}\n",
                       columns...);
  };
  row("protocol", name_width, "n", "accuracy [95% CI]", "tokens in", "tok out", "calls", "ApT", "unparsed",
      "failed", "latency ms");
  for (const auto& p : summary.protocols) {
    row(p.name, name_width, p.n,
        fmt::format("{:.3f} [{:.3f}, {:.3f}]", p.accuracy, p.accuracy_ci.lo, p.accuracy_ci.hi),
        fmt::format("{:.0f}", p.tokens_in_mean), fmt::format("{:.0f}", p.tokens_out_mean),
        fmt::format("{:.2f}", p.calls_mean), fmt::format("{:.2f}", p.apt),
        fmt::format("{:.1f}%", 100.0 * p.unparsed_rate), p.failed, fmt::format("{:.0f}", p.latency_ms_mean));
  }
  out += "tokens per task (mean); ApT = accuracy per 100k tokens; latency = critical path of the LLM calls\n";
  out += render_decision_breakdown(summary, name_width);
  return out;
}

}  // namespace parley
