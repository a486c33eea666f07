// The terminal comparison table. Simulated numbers say so in the first line.
#include <fmt/format.h>

#include "parley/report.h"

namespace parley {

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
  return out;
}

}  // namespace parley
