// The terminal comparison table. Simulated numbers say so in the first line.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "parley/report.h"
#include "report/difficulty.h"

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

// iMAD §5.2's Table 4 under it: selective protocols and full MAD side by side, with ApT.
std::string render_selective(const Summary& summary, std::size_t name_width) {
  std::string out;
  std::int64_t unknown = 0;
  const auto row = [&](auto&&... columns) {
    out += fmt::format("{:<{}}  {:>5}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}  {:>10}  {:>7}\n",
                       columns...);
  };
  for (const auto& p : summary.protocols) {
    if (!p.selective) continue;
    const SelectiveDecisions& d = *p.selective;
    if (out.empty()) {
      out += "\nselective debate decisions (iMAD Table 4), single agent -> MAD; skip = keep the single answer";
      out += d.mad_reference.empty() ? " (no 'mad' in the run: MAD's outcome on skipped units is unknown)\n"
                                     : fmt::format(", MAD's outcome on skipped units from '{}'\n", d.mad_reference);
      row("protocol", name_width, "units", "debated", "skip", "skip", "skip", "skip", "debate", "debate", "debate",
          "debate", "beneficial", "ApT");
      row("", name_width, "", "", "r->r", "r->w", "w->w", "w->r", "w->r", "r->r", "r->w", "w->w", "", "");
    }
    const auto pct = [&](std::int64_t k) {
      return fmt::format("{:.1f}%", d.decisions() ? 100.0 * static_cast<double>(k) / d.decisions() : 0.0);
    };
    unknown += d.skipped_right_unknown + d.skipped_wrong_unknown;
    row(p.name, name_width, d.decisions(), pct(d.debates()), pct(d.skipped.right_right + d.skipped_right_unknown),
        pct(d.skipped.right_wrong), pct(d.skipped.wrong_wrong), pct(d.skipped.wrong_right), pct(d.debated.wrong_right),
        pct(d.debated.right_right), pct(d.debated.right_wrong), pct(d.debated.wrong_wrong),
        fmt::format("{:.1f}%", 100.0 * d.beneficial_rate()), fmt::format("{:.2f}", p.apt));
  }
  if (unknown > 0) {
    out += fmt::format("{} skipped units have no MAD outcome: right ones count under skip r->r, wrong ones are "
                       "left out of the beneficial rate\n",
                       unknown);
  }
  if (!out.empty()) out += "beneficial = skip r->r, skip r->w, skip w->w and debate w->r, over the decisions judged\n";
  return out;
}

// A mean shown in the means blocks: "tokens" (prompt + completion per debate) or a per-debate
// metric; nullopt when the protocol does not define it.
std::optional<MeanEstimate> shown_mean(const ProtocolSummary& p, const std::string& quantity) {
  if (quantity == "tokens") return MeanEstimate{p.n, p.tokens_in_mean + p.tokens_out_mean, p.tokens_ci};
  const auto it = p.metrics.find(quantity);
  if (it == p.metrics.end()) return std::nullopt;
  return it->second;
}

struct MeanColumn {
  const char* quantity;
  int decimals;
};

// One block of means with their CIs, a column per quantity some protocol defines; "" when none does.
std::string render_means(const Summary& summary, std::size_t name_width, const std::vector<MeanColumn>& wanted) {
  std::vector<MeanColumn> columns;
  for (const auto& column : wanted) {
    if (std::any_of(summary.protocols.begin(), summary.protocols.end(),
                    [&](const ProtocolSummary& p) { return shown_mean(p, column.quantity).has_value(); }))
      columns.push_back(column);
  }
  if (columns.empty()) return "";
  std::string out;
  const auto add_line = [&](std::string line) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  std::string header = fmt::format("{:<{}}", "protocol", name_width);
  for (const auto& column : columns) header += fmt::format("  {:<22}", column.quantity);
  add_line(header);
  for (const auto& p : summary.protocols) {
    std::string line = fmt::format("{:<{}}", p.name, name_width);
    for (const auto& column : columns) {
      const auto estimate = shown_mean(p, column.quantity);
      const int d = column.decimals;
      line += fmt::format("  {:<22}", estimate ? fmt::format("{:.{}f} [{:.{}f}, {:.{}f}]", estimate->mean, d,
                                                             estimate->ci.lo, d, estimate->ci.hi, d)
                                               : "-");
    }
    add_line(line);
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
    const bool graded = p.graded > 0;  // without gold, no accuracy
    row(p.name, name_width, p.n,
        graded ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", p.accuracy, p.accuracy_ci.lo, p.accuracy_ci.hi) : "-",
        fmt::format("{:.0f}", p.tokens_in_mean), fmt::format("{:.0f}", p.tokens_out_mean),
        fmt::format("{:.2f}", p.calls_mean), graded ? fmt::format("{:.2f}", p.apt) : "-",
        fmt::format("{:.1f}%", 100.0 * p.unparsed_rate), p.failed, fmt::format("{:.0f}", p.latency_ms_mean));
  }
  out += "tokens per task (mean); ApT = accuracy per 100k tokens; latency = critical path of the LLM calls\n";
  // The protocols paper's metrics (Supplementary Table 1) and UDPO's, with cost; every other
  // metric and CI is in summary.json.
  const std::string interaction = render_means(summary, name_width, {{"tokens", 0}, {"prr", 3}, {"ad", 3}, {"cf", 3}});
  const std::string uncertainty =
      render_means(summary, name_width, {{"u_intra", 3}, {"u_inter", 3}, {"u_sys", 3}, {"ncomm", 1}});
  out += "\nmean [95% bootstrap CI] over the debates that define each (every metric is in summary.json):\n";
  out += interaction + uncertainty;
  out += render_decision_breakdown(summary, name_width);
  out += render_selective(summary, name_width);
  if (summary.difficulty) {
    std::vector<std::string> names;
    for (const auto& p : summary.protocols) names.push_back(p.name);
    out += render_difficulty(*summary.difficulty, names);
  }
  return out;
}

}  // namespace parley
