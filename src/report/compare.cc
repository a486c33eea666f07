// parley compare: pairs of protocols over matched (task, seed) units — paired bootstrap CIs of
// the difference, the paired permutation and Wilcoxon signed-rank tests, and Holm and
// Benjamini–Hochberg adjustment within a family: each protocol pair across its metrics
// (debate-protocols §2.4) or every row.
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
using UnitMap = std::map<UnitId, const Transcript*>;

std::optional<double> metric_of(const Transcript& t, const std::string& metric) {
  if (metric == "accuracy") return t.gold.empty() ? std::nullopt : std::optional<double>(t.correct ? 1.0 : 0.0);
  if (metric == "tokens") return static_cast<double>(t.prompt_tokens() + t.completion_tokens());
  if (metric == "tokens_in") return static_cast<double>(t.prompt_tokens());
  if (metric == "tokens_out") return static_cast<double>(t.completion_tokens());
  if (metric == "calls") return static_cast<double>(t.calls());
  if (metric == "latency_ms") return t.latency_ms();
  if (metric == "unparsed") return t.unparsed() ? 1.0 : 0.0;
  if (auto it = t.metrics.find(metric); it != t.metrics.end()) return it->second;
  return std::nullopt;
}

std::string pair_label(const ProtocolPair& pair) { return pair.first + " vs " + pair.second; }

std::optional<Error> check_pairs(const std::vector<ProtocolPair>& pairs,
                                 const std::map<std::string, UnitMap>& by_protocol) {
  if (pairs.empty()) return Error{"no protocol pair to compare"};
  std::set<std::pair<std::string, std::string>> seen;  // unordered: the names sorted
  for (const auto& pair : pairs) {
    for (const auto* name : {&pair.first, &pair.second}) {
      if (by_protocol.count(*name)) continue;
      std::vector<std::string> known;
      for (const auto& [label, units] : by_protocol) known.push_back(label);
      return Error{fmt::format("'{}' is not a protocol of this run (protocols: {})", *name, fmt::join(known, ", "))};
    }
    if (pair.first == pair.second) return Error{fmt::format("'{}' is compared with itself", pair.first)};
    if (!seen.insert(std::minmax(pair.first, pair.second)).second)
      return Error{fmt::format("the pair {} is listed twice", pair_label(pair))};
  }
  return std::nullopt;
}

// Holm and BH over each family of rows, in place.
void adjust(std::vector<ComparisonRow>& rows, AdjustmentFamily family) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> families;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto key = family == AdjustmentFamily::kPair ? std::make_pair(rows[i].first, rows[i].second)
                                                       : std::make_pair(std::string(), std::string());
    families[key].push_back(i);
  }
  for (const auto& [key, members] : families) {
    std::vector<double> permutation, wilcoxon;
    for (std::size_t i : members) {
      permutation.push_back(rows[i].permutation_p);
      wilcoxon.push_back(rows[i].wilcoxon_p);
    }
    const auto permutation_holm = holm_adjust(permutation), permutation_bh = benjamini_hochberg_adjust(permutation);
    const auto wilcoxon_holm = holm_adjust(wilcoxon), wilcoxon_bh = benjamini_hochberg_adjust(wilcoxon);
    for (std::size_t k = 0; k < members.size(); ++k) {
      ComparisonRow& row = rows[members[k]];
      row.family_size = static_cast<std::int64_t>(members.size());
      row.permutation_p_holm = permutation_holm[k];
      row.permutation_p_bh = permutation_bh[k];
      row.wilcoxon_p_holm = wilcoxon_holm[k];
      row.wilcoxon_p_bh = wilcoxon_bh[k];
    }
  }
}

}  // namespace

std::vector<std::string> builtin_compare_metrics() {
  return {"accuracy", "tokens", "tokens_in", "tokens_out", "calls", "latency_ms", "unparsed"};
}

std::vector<ProtocolPair> pairs_against(const std::vector<std::string>& protocols, const std::string& baseline) {
  std::vector<ProtocolPair> pairs;
  for (const auto& name : protocols)
    if (name != baseline) pairs.push_back({name, baseline});
  return pairs;
}

std::vector<ProtocolPair> all_pairs(const std::vector<std::string>& protocols) {
  std::vector<ProtocolPair> pairs;
  for (std::size_t i = 0; i < protocols.size(); ++i)
    for (std::size_t j = i + 1; j < protocols.size(); ++j) pairs.push_back({protocols[i], protocols[j]});
  return pairs;
}

const char* family_name(AdjustmentFamily family) { return family == AdjustmentFamily::kPair ? "pair" : "all"; }

Result<Comparison> compare_protocols(const std::vector<Transcript>& transcripts, const std::vector<ProtocolPair>& pairs,
                                     const std::vector<std::string>& metrics, AdjustmentFamily family, bool simulated,
                                     std::uint64_t seed) {
  std::map<std::string, UnitMap> by_protocol;
  for (const auto& t : transcripts) by_protocol[t.protocol][{t.task_id, t.seed}] = &t;
  if (auto error = check_pairs(pairs, by_protocol)) return *error;
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

  Comparison comparison;
  comparison.simulated = simulated;
  comparison.family = family;
  for (const auto& pair : pairs) {
    const UnitMap& second_units = by_protocol.at(pair.second);
    for (const auto& metric : metrics) {
      ComparisonRow row;
      row.first = pair.first;
      row.second = pair.second;
      row.metric = metric;
      std::vector<double> first_values, second_values, differences;
      for (const auto& [unit, t] : by_protocol.at(pair.first)) {  // std::map: units in a fixed order
        auto other = second_units.find(unit);
        if (other == second_units.end()) continue;
        auto ours = metric_of(*t, metric);
        auto theirs = metric_of(*other->second, metric);
        if (!ours || !theirs) continue;
        first_values.push_back(*ours);
        second_values.push_back(*theirs);
        differences.push_back(*ours - *theirs);
      }
      row.n = static_cast<std::int64_t>(differences.size());
      if (row.n == 0) {
        comparison.not_compared.push_back(pair_label(pair) + ": " + metric);
        continue;
      }
      row.first_mean = mean(first_values);
      row.second_mean = mean(second_values);
      // The pair's names in sorted order: b:a resamples as a:b does, so its CIs mirror a:b's.
      const auto [low, high] = std::minmax(pair.first, pair.second);
      const std::uint64_t row_seed = HashBuilder().add(seed).add(low).add(high).add(metric).value();
      row.difference = paired_bootstrap(differences, row_seed);
      row.permutation_p = paired_permutation_p(differences, row_seed);
      const SignedRankTest wilcoxon = wilcoxon_signed_rank(differences);
      row.wilcoxon_p = wilcoxon.p;
      row.wilcoxon_exact = wilcoxon.exact;
      comparison.rows.push_back(std::move(row));
    }
  }
  adjust(comparison.rows, family);
  return comparison;
}

std::string comparison_to_json(const Comparison& comparison) {
  nlohmann::ordered_json j;
  j["simulated"] = comparison.simulated;
  j["family"] = family_name(comparison.family);
  j["comparisons"] = nlohmann::ordered_json::array();
  for (const auto& r : comparison.rows) {
    nlohmann::ordered_json row;
    row["first"] = r.first;
    row["second"] = r.second;
    row["metric"] = r.metric;
    row["n"] = r.n;
    row["first_mean"] = r.first_mean;
    row["second_mean"] = r.second_mean;
    row["difference"] = r.difference.mean_difference;
    row["ci_percentile"] = {r.difference.percentile.lo, r.difference.percentile.hi};
    row["ci_bca"] = {r.difference.bca.lo, r.difference.bca.hi};
    row["permutation_p"] = r.permutation_p;
    row["wilcoxon_p"] = r.wilcoxon_p;
    row["wilcoxon_exact"] = r.wilcoxon_exact;
    row["family_size"] = r.family_size;
    row["permutation_p_holm"] = r.permutation_p_holm;
    row["permutation_p_bh"] = r.permutation_p_bh;
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
  out += "A vs B: difference = A - B over the (task, seed) units both ran\n";
  std::size_t label_width = 10;
  for (const auto& r : comparison.rows) label_width = std::max(label_width, r.first.size() + 4 + r.second.size());
  const auto line = [&](auto&&... columns) {
    out += fmt::format("{:<{}}  {:<10}  {:>5}  {:>10}  {:>10}  {:>32}  {:>9}  {:>9}  {:>9}  {:>9}\n", columns...);
  };
  line("comparison", label_width, "metric", "n", "mean A", "mean B", "difference [95% BCa CI]", "p perm", "p Holm",
       "p Wilcox", "p BH");
  auto number = [](double v) { return fmt::format("{:.4g}", v); };
  for (const auto& r : comparison.rows) {
    line(r.first + " vs " + r.second, label_width, r.metric, r.n, number(r.first_mean), number(r.second_mean),
         fmt::format("{:+.4g} [{:+.4g}, {:+.4g}]", r.difference.mean_difference, r.difference.bca.lo,
                     r.difference.bca.hi),
         fmt::format("{:.4f}", r.permutation_p), fmt::format("{:.4f}", r.permutation_p_holm),
         fmt::format("{:.4f}", r.wilcoxon_p), fmt::format("{:.4f}", r.wilcoxon_p_bh));
  }
  out += "p perm: paired permutation test, Holm-adjusted in p Holm; p Wilcox: Wilcoxon signed-rank, "
         "Benjamini-Hochberg-adjusted in p BH\n";
  out += comparison.family == AdjustmentFamily::kPair
             ? "adjusted within each pair across its metrics (family: pair; the protocols paper §2.4 adjusts each pair "
               "across PRR, AD and CF)\n"
             : fmt::format("adjusted across all {} rows (family: all)\n", comparison.rows.size());
  if (!comparison.not_compared.empty()) {
    out += fmt::format("not compared (the metric is defined on no matched unit of both): {}\n",
                       fmt::join(comparison.not_compared, ", "));
  }
  return out;
}

}  // namespace parley
