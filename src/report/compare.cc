// parley compare: each protocol against a baseline over matched (task, seed) units — paired
// bootstrap CIs of the difference, the paired permutation and Wilcoxon signed-rank tests, and
// Holm and Benjamini–Hochberg adjustment across every (protocol, metric) row of the family.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "parley/report.h"

namespace parley {
namespace {

using UnitId = std::tuple<std::string, std::uint64_t>;  // (task_id, seed)

std::optional<double> metric_of(const Transcript& t, const std::string& metric) {
  if (metric == "accuracy") return t.correct ? 1.0 : 0.0;
  if (metric == "tokens") return static_cast<double>(t.prompt_tokens() + t.completion_tokens());
  if (metric == "tokens_in") return static_cast<double>(t.prompt_tokens());
  if (metric == "tokens_out") return static_cast<double>(t.completion_tokens());
  if (metric == "calls") return static_cast<double>(t.calls());
  if (metric == "latency_ms") return t.latency_ms();
  if (metric == "unparsed") return t.unparsed() ? 1.0 : 0.0;
  if (auto it = t.metrics.find(metric); it != t.metrics.end()) return it->second;
  return std::nullopt;
}

}  // namespace

std::vector<std::string> builtin_compare_metrics() {
  return {"accuracy", "tokens", "tokens_in", "tokens_out", "calls", "latency_ms", "unparsed"};
}

Result<Comparison> compare_protocols(const std::vector<Transcript>& transcripts,
                                     const std::vector<std::string>& protocol_order, const std::string& baseline,
                                     const std::vector<std::string>& metrics, bool simulated, std::uint64_t seed) {
  std::map<std::string, std::map<UnitId, const Transcript*>> by_protocol;
  for (const auto& t : transcripts) by_protocol[t.protocol][{t.task_id, t.seed}] = &t;
  if (!by_protocol.count(baseline)) {
    std::string known;
    for (const auto& [name, units] : by_protocol) known += (known.empty() ? "" : ", ") + name;
    return Error{fmt::format("baseline '{}' is not a protocol of this run (protocols: {})", baseline, known)};
  }
  const auto builtin = builtin_compare_metrics();
  for (const auto& metric : metrics) {
    const bool known = std::find(builtin.begin(), builtin.end(), metric) != builtin.end() ||
                       std::any_of(transcripts.begin(), transcripts.end(),
                                   [&](const Transcript& t) { return t.metrics.count(metric) > 0; });
    if (!known) {
      return Error{fmt::format("unknown metric '{}' (built in: {}; or a name in the transcripts' metrics)", metric,
                               fmt::join(builtin, ", "))};
    }
  }

  std::vector<std::string> names;
  for (const auto& name : protocol_order)
    if (by_protocol.count(name) && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  for (const auto& [name, units] : by_protocol)
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);

  Comparison comparison;
  comparison.simulated = simulated;
  comparison.baseline = baseline;
  const auto& base_units = by_protocol.at(baseline);
  for (const auto& name : names) {
    if (name == baseline) continue;
    for (const auto& metric : metrics) {
      ComparisonRow row;
      row.protocol = name;
      row.metric = metric;
      std::vector<double> base_values, values, differences;
      for (const auto& [unit, t] : by_protocol.at(name)) {  // std::map: units in a fixed order
        auto base = base_units.find(unit);
        if (base == base_units.end()) continue;
        auto ours = metric_of(*t, metric);
        auto theirs = metric_of(*base->second, metric);
        if (!ours || !theirs) continue;
        values.push_back(*ours);
        base_values.push_back(*theirs);
        differences.push_back(*ours - *theirs);
      }
      row.n = static_cast<std::int64_t>(differences.size());
      if (row.n == 0) {
        comparison.not_compared.push_back(name + " " + metric);
        continue;
      }
      row.baseline_mean = mean(base_values);
      row.protocol_mean = mean(values);
      const std::uint64_t row_seed = HashBuilder().add(seed).add(name).add(metric).value();
      row.difference = paired_bootstrap(differences, row_seed);
      row.permutation_p = paired_permutation_p(differences, row_seed);
      row.wilcoxon_p = wilcoxon_signed_rank(differences).p;
      comparison.rows.push_back(std::move(row));
    }
  }
  std::vector<double> permutation, wilcoxon;
  for (const auto& row : comparison.rows) {
    permutation.push_back(row.permutation_p);
    wilcoxon.push_back(row.wilcoxon_p);
  }
  const auto permutation_holm = holm_adjust(permutation), permutation_bh = benjamini_hochberg_adjust(permutation);
  const auto wilcoxon_holm = holm_adjust(wilcoxon), wilcoxon_bh = benjamini_hochberg_adjust(wilcoxon);
  for (std::size_t i = 0; i < comparison.rows.size(); ++i) {
    comparison.rows[i].permutation_p_holm = permutation_holm[i];
    comparison.rows[i].permutation_p_bh = permutation_bh[i];
    comparison.rows[i].wilcoxon_p_holm = wilcoxon_holm[i];
    comparison.rows[i].wilcoxon_p_bh = wilcoxon_bh[i];
  }
  return comparison;
}

std::string comparison_to_json(const Comparison& comparison) {
  nlohmann::ordered_json j;
  j["simulated"] = comparison.simulated;
  j["baseline"] = comparison.baseline;
  j["comparisons"] = nlohmann::ordered_json::array();
  for (const auto& r : comparison.rows) {
    nlohmann::ordered_json row;
    row["protocol"] = r.protocol;
    row["metric"] = r.metric;
    row["n"] = r.n;
    row["baseline_mean"] = r.baseline_mean;
    row["protocol_mean"] = r.protocol_mean;
    row["difference"] = r.difference.mean_difference;
    row["ci_percentile"] = {r.difference.percentile.lo, r.difference.percentile.hi};
    row["ci_bca"] = {r.difference.bca.lo, r.difference.bca.hi};
    row["permutation_p"] = r.permutation_p;
    row["permutation_p_holm"] = r.permutation_p_holm;
    row["permutation_p_bh"] = r.permutation_p_bh;
    row["wilcoxon_p"] = r.wilcoxon_p;
    row["wilcoxon_p_holm"] = r.wilcoxon_p_holm;
    row["wilcoxon_p_bh"] = r.wilcoxon_p_bh;
    j["comparisons"].push_back(std::move(row));
  }
  j["not_compared"] = comparison.not_compared;
  return j.dump(2);
}

std::string render_comparison(const Comparison& comparison) {
  std::string out;
  if (comparison.simulated) {
    out += "SIMULATED: these numbers come from parley's built-in simulator, not from a real LLM.\n";
  }
  out += fmt::format("baseline: {}; difference = protocol - baseline over matched (task, seed) units\n",
                     comparison.baseline);
  std::size_t name_width = 8;
  for (const auto& r : comparison.rows) name_width = std::max(name_width, r.protocol.size());
  const auto line = [&](auto&&... columns) {
    out += fmt::format("{:<{}}  {:<10}  {:>5}  {:>10}  {:>10}  {:>32}  {:>9}  {:>9}  {:>9}  {:>9}\n", columns...);
  };
  line("protocol", name_width, "metric", "n", "baseline", "protocol", "difference [95% BCa CI]", "p perm", "p Holm",
       "p Wilcox", "p BH");
  auto number = [](double v) { return fmt::format("{:.4g}", v); };
  for (const auto& r : comparison.rows) {
    line(r.protocol, name_width, r.metric, r.n, number(r.baseline_mean), number(r.protocol_mean),
         fmt::format("{:+.4g} [{:+.4g}, {:+.4g}]", r.difference.mean_difference, r.difference.bca.lo,
                     r.difference.bca.hi),
         fmt::format("{:.4f}", r.permutation_p), fmt::format("{:.4f}", r.permutation_p_holm),
         fmt::format("{:.4f}", r.wilcoxon_p), fmt::format("{:.4f}", r.wilcoxon_p_bh));
  }
  out += "p perm: paired permutation test, Holm-adjusted in p Holm; p Wilcox: Wilcoxon signed-rank, "
         "Benjamini-Hochberg-adjusted in p BH (all rows form the family)\n";
  if (!comparison.not_compared.empty()) {
    std::string pairs;
    for (const auto& pair : comparison.not_compared) pairs += (pairs.empty() ? "" : ", ") + pair;
    out += "not compared (the metric is defined on no matched unit of both): " + pairs + "\n";
  }
  return out;
}

}  // namespace parley
