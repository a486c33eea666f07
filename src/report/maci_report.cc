// MACI's run-level analyses (parley/maci_report.h): CRIT reliability and dev-run bins.
#include "parley/maci_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "parley/stats.h"

namespace parley {
namespace {

using Json = nlohmann::json;

// A judge event's verdicts on one argument: composites by panel position.
struct RatedArgument {
  std::string agent;
  std::vector<std::optional<double>> composites;
  std::vector<std::optional<int>> shown_at;
};

struct CritRound {
  std::vector<std::string> panel;
  std::vector<RatedArgument> arguments;
};

std::optional<CritRound> crit_round(const EventRecord& event) {
  if (event.kind != "judge") return std::nullopt;
  const Json detail = Json::parse(event.detail, nullptr, false);
  if (!detail.is_object() || detail.value("mode", "") != "crit" || !detail.contains("arguments")) return std::nullopt;
  CritRound round;
  for (const Json& argument : detail["arguments"]) {
    RatedArgument rated;
    rated.agent = argument.value("agent", "");
    std::vector<std::string> panel;
    for (const Json& verdict : argument.value("judges", Json::array())) {
      panel.push_back(verdict.value("judge", ""));
      const bool valid = verdict.contains("composite") && verdict["composite"].is_number();
      rated.composites.push_back(valid ? std::optional(verdict["composite"].get<double>()) : std::nullopt);
      rated.shown_at.push_back(verdict.contains("shown_at") && verdict["shown_at"].is_number_integer()
                                   ? std::optional(verdict["shown_at"].get<int>())
                                   : std::nullopt);
    }
    if (round.panel.empty()) round.panel = panel;
    round.arguments.push_back(std::move(rated));
  }
  return round;
}

// The author judge k scored highest on average this round; none on a tie or with < 2 authors.
std::optional<std::string> winner(const CritRound& round, std::size_t judge) {
  std::map<std::string, std::pair<double, int>> by_author;
  for (const RatedArgument& a : round.arguments) {
    if (judge >= a.composites.size() || !a.composites[judge]) continue;
    auto& [sum, count] = by_author[a.agent];
    sum += *a.composites[judge];
    ++count;
  }
  if (by_author.size() < 2) return std::nullopt;
  std::optional<std::string> best;
  double best_mean = -1.0;
  bool tied = false;
  for (const auto& [author, total] : by_author) {
    const double mean = total.first / total.second;
    if (!best || mean > best_mean + 1e-12) {
      best = author;
      best_mean = mean;
      tied = false;
    } else if (std::fabs(mean - best_mean) <= 1e-12) {
      tied = true;
    }
  }
  if (tied) return std::nullopt;
  return best;
}

Json interval_json(const Interval& ci) {
  const auto number = [](double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); };
  return Json::array({number(ci.lo), number(ci.hi)});
}

Json number_json(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

std::string number_text(double x) { return std::isfinite(x) ? fmt::format("{:.3f}", x) : std::string("undefined"); }

}  // namespace

Result<JudgeReliability> judge_reliability(const std::vector<Transcript>& transcripts, const std::string& protocol,
                                           std::uint64_t seed, int resamples) {
  JudgeReliability out;
  out.protocol = protocol;
  std::vector<RatingRow> ratings;
  std::vector<double> positions, position_scores;
  std::vector<std::int64_t> rounds(1, 0), flips(1, 0);
  for (const Transcript& t : transcripts) {
    if (t.protocol != protocol) continue;
    bool counted = false;
    for (const EventRecord& event : t.events) {
      const std::optional<CritRound> round = crit_round(event);
      if (!round || round->arguments.empty()) continue;
      if (out.judges.empty()) {
        out.judges = round->panel;
        rounds.assign(out.judges.size(), 0);
        flips.assign(out.judges.size(), 0);
      }
      if (round->panel != out.judges) {
        return Error{fmt::format("{}: the CRIT panel differs between debates ({} in task {} seed {}); reliability "
                                 "needs the same judges throughout",
                                 protocol, fmt::join(round->panel, ", "), t.task_id, t.seed)};
      }
      if (!counted) ++out.debates;
      counted = true;
      const std::size_t last_position = round->arguments.size() - 1;
      for (const RatedArgument& a : round->arguments) {
        RatingRow row(a.composites.begin(), a.composites.end());
        for (std::size_t k = 0; k < row.size(); ++k) {
          if (!row[k]) {
            ++out.missing;
            continue;
          }
          if (a.shown_at[k] && last_position > 0) {
            positions.push_back(static_cast<double>(*a.shown_at[k]) / static_cast<double>(last_position));
            position_scores.push_back(*row[k]);
          }
        }
        if (std::any_of(row.begin(), row.end(), [](const auto& x) { return x.has_value(); })) {
          ratings.push_back(std::move(row));
          ++out.arguments;
        }
      }
      const std::optional<std::string> primary = winner(*round, 0);
      for (std::size_t k = 1; k < out.judges.size(); ++k) {
        const std::optional<std::string> other = winner(*round, k);
        if (!primary || !other) continue;
        ++rounds[k];
        if (*primary != *other) ++flips[k];
      }
    }
  }
  if (out.debates == 0) {
    return Error{fmt::format("no CRIT judge events for protocol \"{}\" in this run (is it a maci run?)", protocol)};
  }
  if (out.judges.size() < 2) {
    return Error{fmt::format("{}: the CRIT panel has {} judge; agreement needs at least 2 (name them under judges:)",
                             protocol, out.judges.size())};
  }
  out.alpha = krippendorff_alpha(ratings, MeasurementLevel::kInterval);
  out.alpha_ci = krippendorff_alpha_ci(ratings, MeasurementLevel::kInterval, seed, resamples);
  out.pearson = mean_pairwise_correlation(ratings, CorrelationKind::kPearson, seed, resamples);
  out.spearman = mean_pairwise_correlation(ratings, CorrelationKind::kSpearman, seed, resamples);
  for (std::size_t k = 1; k < out.judges.size(); ++k)
    out.flips.push_back({out.judges[0], out.judges[k], rounds[k], flips[k], wilson_interval(flips[k], rounds[k])});
  out.position_pairs = static_cast<std::int64_t>(positions.size());
  out.position_spearman = spearman_correlation(positions, position_scores);
  return out;
}

std::string render_judge_reliability(const JudgeReliability& r) {
  std::string out = fmt::format("CRIT reliability of {} (MACI App. E.7, Table 10): {} debates, {} arguments, judges {}",
                                r.protocol, r.debates, r.arguments, fmt::join(r.judges, ", "));
  if (r.missing > 0) out += fmt::format(" ({} verdicts missing)", r.missing);
  out += "\n";
  out += fmt::format("  Krippendorff's alpha (interval)  {}  [{}, {}]\n", number_text(r.alpha), number_text(r.alpha_ci.lo),
                     number_text(r.alpha_ci.hi));
  const auto pairwise = [&](const char* name, const PairwiseCorrelation& c) {
    out += fmt::format("  {:<33}{}  (±{})  [{}, {}]  over {} judge pairs\n", name, number_text(c.mean), number_text(c.sd),
                       number_text(c.ci.lo), number_text(c.ci.hi), c.pairs);
  };
  pairwise("Pearson (mean pairwise)", r.pearson);
  pairwise("Spearman (mean pairwise)", r.spearman);
  for (const WinnerFlips& f : r.flips) {
    const double rate = f.rounds > 0 ? static_cast<double>(f.flips) / static_cast<double>(f.rounds) : NAN;
    out += fmt::format("  winner flips, {} -> {}: {} of {} rounds = {}  [{}, {}] (Wilson)\n", f.primary, f.swapped, f.flips,
                       f.rounds, number_text(rate), number_text(f.rate_ci.lo), number_text(f.rate_ci.hi));
  }
  out += fmt::format("  position effect (Spearman of score and place in the judge's order)  {}  over {} verdicts\n",
                     number_text(r.position_spearman), r.position_pairs);
  out += "  (each judge rates one argument per call, so forward/reverse order pairs do not arise; see docs)\n";
  return out;
}

std::string judge_reliability_to_json(const JudgeReliability& r) {
  const auto pairwise = [](const PairwiseCorrelation& c) {
    return Json{{"mean", number_json(c.mean)}, {"sd", number_json(c.sd)}, {"fisher_mean", number_json(c.fisher_mean)},
                {"ci", interval_json(c.ci)}, {"pairs", c.pairs}};
  };
  Json flips = Json::array();
  for (const WinnerFlips& f : r.flips)
    flips.push_back({{"primary", f.primary}, {"swapped", f.swapped}, {"rounds", f.rounds}, {"flips", f.flips},
                     {"ci", interval_json(f.rate_ci)}});
  return Json{{"protocol", r.protocol},
              {"judges", r.judges},
              {"debates", r.debates},
              {"arguments", r.arguments},
              {"missing", r.missing},
              {"krippendorff_alpha", number_json(r.alpha)},
              {"krippendorff_alpha_ci", interval_json(r.alpha_ci)},
              {"pearson", pairwise(r.pearson)},
              {"spearman", pairwise(r.spearman)},
              {"winner_flips", flips},
              {"position_spearman", number_json(r.position_spearman)},
              {"position_pairs", r.position_pairs}}
      .dump(2);
}

Result<PercentileBins> percentile_bins(const std::vector<Transcript>& transcripts, const std::string& protocol) {
  std::vector<double> quality, disagreement;
  std::set<std::string> encoders;
  for (const Transcript& t : transcripts) {
    if (t.protocol != protocol) continue;
    for (const EventRecord& event : t.events) {
      if (event.kind != "maci_start") continue;
      const Json detail = Json::parse(event.detail, nullptr, false);
      if (!detail.is_object() || !detail.contains("disagreement") || !detail["disagreement"].is_number()) continue;
      const Json& q = detail.contains("evidence_quality") ? detail["evidence_quality"] : Json(nullptr);
      quality.push_back(q.is_number() ? q.get<double>() : 0.0);
      encoders.insert(detail.value("encoder", std::string("?")));
      disagreement.push_back(detail["disagreement"].get<double>());
    }
  }
  if (quality.empty()) {
    return Error{fmt::format("no maci_start events for protocol \"{}\" in this run (is it a maci run?)", protocol)};
  }
  if (encoders.size() > 1) {
    return Error{fmt::format("{}: Q_0 was measured with different encoders ({}); bins need one scale",
                             protocol, fmt::join(encoders, ", "))};
  }
  std::sort(quality.begin(), quality.end());
  std::sort(disagreement.begin(), disagreement.end());
  PercentileBins bins;
  bins.protocol = protocol;
  bins.encoder = *encoders.begin();
  bins.debates = static_cast<std::int64_t>(quality.size());
  bins.quality_low = quantile_sorted(quality, 0.3);
  bins.quality_high = quantile_sorted(quality, 0.7);
  bins.disagreement_low = quantile_sorted(disagreement, 0.3);
  bins.disagreement_high = quantile_sorted(disagreement, 0.7);
  return bins;
}

std::string render_percentile_bins(const PercentileBins& b) {
  return fmt::format(
      "# App. F bins from {} debates of {} (P30 / P70 of Q_0 and D_JS,0; Q_0 by the {} encoder, so use them\n"
      "# with the same encoder); add to the maci entry:\n"
      "quality_low: {:.6f}\nquality_high: {:.6f}\ndisagreement_low: {:.6f}\ndisagreement_high: {:.6f}\n"
      "percentile_bins: true\n",
      b.debates, b.protocol, b.encoder, b.quality_low, b.quality_high, b.disagreement_low, b.disagreement_high);
}

}  // namespace parley
