// report_data_json: what the HTML report draws, from the run's transcripts. The summary, the
// comparison and the diagnosis are the JSON the CLI already prints (summary_to_json,
// comparison_to_json, diagnosis_to_json), so the page and the terminal never disagree; this file
// adds only what the terminal has no view of: the Pareto front, per-round signals and traces,
// examples of units debate got wrong, and the list of plots.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "metrics/turns.h"
#include "parley/diagnosis.h"
#include "parley/html_report.h"
#include "parley/stats.h"
#include "parley/version.h"

namespace parley {
namespace {

using Json = nlohmann::ordered_json;

// MACI's per-round controller state (`maci_round` events, docs/formats.md), by field.
struct SignalField {
  const char* name;
  const char* label;
};
constexpr SignalField kMaciRoundSignals[] = {
    {"contentiousness", "CL (contentiousness)"},
    {"quality_gate", "τ_Q (evidence-quality gate)"},
    {"crit_gate", "τ_CRIT (argument-quality gate)"},
    {"disagreement", "D_JS (disagreement)"},
    {"evidence_quality", "Q (evidence quality)"},
    {"overlap", "O (overlap)"},
    {"crit_mean", "CRIT (mean argument score)"},
    {"information_gain", "information gain (bits)"},
};
constexpr const char* kPluralityShare = "plurality_share";
constexpr const char* kPluralityShareLabel = "agents on the plurality answer (share)";

// One debate's per-round values of each signal.
using DebateSignals = std::map<std::string, std::map<int, double>>;

DebateSignals signals_of(const Transcript& transcript) {
  DebateSignals signals;
  for (const EventRecord& event : transcript.events) {
    if (event.kind != "maci_round") continue;
    const Json detail = Json::parse(event.detail, nullptr, false);
    if (!detail.is_object()) continue;
    for (const SignalField& field : kMaciRoundSignals) {
      const auto it = detail.find(field.name);
      if (it != detail.end() && it->is_number()) signals[field.name][event.round] = it->get<double>();
    }
  }
  // The plurality's share among the agents that gave a parsed answer that round.
  std::map<int, std::map<std::string_view, int>> votes;
  for (const DebateTurn& turn : agent_turns(transcript))
    if (turn.answer) ++votes[turn.round][*turn.answer];
  if (votes.size() >= 2) {
    for (const auto& [round, counts] : votes) {
      int answered = 0, top = 0;
      for (const auto& [answer, count] : counts) {
        answered += count;
        top = std::max(top, count);
      }
      signals[kPluralityShare][round] = static_cast<double>(top) / answered;
    }
  }
  return signals;
}

std::string label_of(const std::string& name) {
  for (const SignalField& field : kMaciRoundSignals)
    if (name == field.name) return field.label;
  return kPluralityShareLabel;
}

std::vector<const Transcript*> debates_of(const std::vector<Transcript>& transcripts, const std::string& protocol) {
  std::vector<const Transcript*> debates;
  for (const Transcript& t : transcripts)
    if (t.protocol == protocol) debates.push_back(&t);
  std::sort(debates.begin(), debates.end(), [](const Transcript* a, const Transcript* b) {
    return std::tie(a->task_id, a->seed) < std::tie(b->task_id, b->seed);
  });
  return debates;
}

Json round_signal_json(const RoundSignal& signal) {
  Json points = Json::array();
  for (const RoundPoint& p : signal.points)
    points.push_back({{"round", p.round}, {"n", p.n}, {"mean", p.mean}, {"low", p.low}, {"high", p.high}});
  return {{"name", signal.name}, {"label", signal.label}, {"points", std::move(points)}};
}

// The first `limit` debates (by task id, seed) that record a signal, each with its values.
Json traces_json(const std::vector<const Transcript*>& debates, int limit) {
  Json traces = Json::array();
  for (const Transcript* t : debates) {
    if (static_cast<int>(traces.size()) >= limit) break;
    const DebateSignals signals = signals_of(*t);
    if (signals.empty()) continue;
    Json values = Json::object();
    for (const auto& [name, by_round] : signals) {
      Json rows = Json::array();
      for (const auto& [round, value] : by_round) rows.push_back(Json::array({round, value}));
      values[name] = std::move(rows);
    }
    traces.push_back({{"task_id", t->task_id},
                      {"seed", std::to_string(t->seed)},
                      {"correct", t->correct},
                      {"final_answer", t->final_answer ? Json(*t->final_answer) : Json(nullptr)},
                      {"signals", std::move(values)}});
  }
  return traces;
}

// Units the single-agent baseline got right and the protocol wrong (iMAD's right→wrong), the
// first `limit` by task id and seed, with both answers: where debate did harm.
using UnitMap = std::map<std::pair<std::string, std::uint64_t>, const Transcript*>;  // (task id, seed) →

Json harmed_units_json(const std::vector<Transcript>& transcripts, const UnitMap& single, const std::string& protocol,
                       int limit) {
  Json rows = Json::array();
  for (const Transcript* t : debates_of(transcripts, protocol)) {
    if (static_cast<int>(rows.size()) >= limit) break;
    const auto it = single.find({t->task_id, t->seed});
    if (it == single.end() || !it->second->correct || t->correct) continue;
    const auto answer = [](const Transcript* x) { return x->final_answer ? Json(*x->final_answer) : Json(nullptr); };
    rows.push_back({{"task_id", t->task_id},
                    {"seed", std::to_string(t->seed)},
                    {"gold", t->gold},
                    {"single_answer", answer(it->second)},
                    {"answer", answer(t)},
                    {"status", debate_status_name(t->status)}});
  }
  return rows;
}

// A plot id from the protocol's index in `rounds` (labels may hold any character).
std::string fmt_round_id(std::size_t protocol_index, const std::string& signal) {
  return "rounds-" + std::to_string(protocol_index) + "-" + signal;
}

bool has_uncertainty(const Summary& summary) {
  for (const ProtocolSummary& p : summary.protocols)
    for (std::string_view metric : kUncertaintyMetrics)
      if (p.metrics.count(std::string(metric))) return true;
  return false;
}

// The plots the page draws for this data, in page order. The page draws exactly these; the
// browser tests check that each one is drawn and not blank.
Json plot_ids(const Summary& summary, const Json& comparison, const Json& diagnosis, const Json& rounds) {
  Json plots = Json::array({"accuracy-tokens", "calls"});
  const auto any = [&](auto has) { return std::any_of(summary.protocols.begin(), summary.protocols.end(), has); };
  if (any([](const ProtocolSummary& p) { return p.vs_single && p.vs_single->units() > 0; })) plots.push_back("decisions");
  if (any([](const ProtocolSummary& p) { return p.selective && p.selective->decisions() > 0; })) plots.push_back("selective");
  if (summary.difficulty && !summary.difficulty->groups.empty()) plots.push_back("difficulty");
  if (has_uncertainty(summary)) plots.push_back("uncertainty");
  if (diagnosis.is_object()) {
    bool separated = false;
    for (const auto& p : diagnosis["protocols"])
      for (const auto& s : p["failure_separation"])
        separated = separated || (s["failed"]["n"].get<std::int64_t>() > 0 && s["successful"]["n"].get<std::int64_t>() > 0);
    if (separated) plots.push_back("separation");
    for (std::string_view metric : kUncertaintyMetrics) {
      bool curve = false;
      for (const auto& p : diagnosis["protocols"])
        for (const auto& c : p["selective_prediction"]) curve = curve || (c["metric"] == metric && !c["points"].empty());
      if (curve) plots.push_back("selective-prediction-" + std::string(metric));
    }
  }
  if (comparison.is_object()) {
    std::set<std::string> seen;
    for (const auto& row : comparison["comparisons"]) {
      const std::string metric = row["metric"].get<std::string>();
      if (seen.insert(metric).second) plots.push_back("comparison-" + metric);
    }
  }
  // The plurality share of every protocol in one plot; each protocol's controller signals in a
  // plot of their own, with the trace of a chosen debate.
  bool agreement = false;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    bool controller = false;
    for (const auto& signal : rounds[i]["signals"]) {
      const std::string name = signal["name"].get<std::string>();
      if (name == kPluralityShare) {
        agreement = true;
        continue;
      }
      controller = true;
      plots.push_back(fmt_round_id(i, name));
    }
    if (controller && !rounds[i]["traces"].empty()) plots.push_back("trace-" + std::to_string(i));
  }
  if (agreement) plots.push_back("agreement");
  return plots;
}

}  // namespace

std::vector<bool> pareto_front(const std::vector<ProtocolSummary>& protocols) {
  std::vector<bool> front(protocols.size(), true);
  for (std::size_t i = 0; i < protocols.size(); ++i) {
    const ProtocolSummary& p = protocols[i];
    if (p.graded == 0) {  // no accuracy to weigh against its cost
      front[i] = false;
      continue;
    }
    const double tokens = p.tokens_in_mean + p.tokens_out_mean;
    for (const ProtocolSummary& q : protocols) {
      if (q.graded == 0) continue;
      const double q_tokens = q.tokens_in_mean + q.tokens_out_mean;
      const bool as_good = q.accuracy >= p.accuracy && q_tokens <= tokens;
      const bool better = q.accuracy > p.accuracy || q_tokens < tokens;
      if (as_good && better) front[i] = false;
    }
  }
  return front;
}

std::vector<RoundSignal> round_signals(const std::vector<Transcript>& transcripts, const std::string& protocol) {
  std::map<std::string, std::map<int, std::vector<double>>> values;  // signal → round → per debate
  for (const Transcript* t : debates_of(transcripts, protocol))
    for (const auto& [name, by_round] : signals_of(*t))
      for (const auto& [round, value] : by_round) values[name][round].push_back(value);
  std::vector<RoundSignal> signals;
  const auto add = [&](const std::string& name) {
    const auto it = values.find(name);
    if (it == values.end()) return;
    RoundSignal signal{name, label_of(name), {}};
    for (auto& [round, debates] : it->second) {
      std::sort(debates.begin(), debates.end());
      double sum = 0.0;
      for (double v : debates) sum += v;
      signal.points.push_back({round, static_cast<std::int64_t>(debates.size()), sum / debates.size(),
                               quantile_sorted(debates, 0.25), quantile_sorted(debates, 0.75)});
    }
    signals.push_back(std::move(signal));
  };
  for (const SignalField& field : kMaciRoundSignals) add(field.name);
  add(kPluralityShare);
  return signals;
}

Result<std::string> report_data_json(const std::vector<Transcript>& transcripts,
                                     const std::vector<std::string>& protocol_order, bool simulated,
                                     const HtmlReportOptions& options) {
  if (transcripts.empty()) return Error{"no debates in this run"};
  const Summary summary = summarize(transcripts, protocol_order, simulated, options.bootstrap_seed);
  const std::vector<std::string> protocols = protocols_in_order(transcripts, protocol_order);

  Json data;
  data["format"] = "parley-report-1";
  data["title"] = options.title;
  data["parley_version"] = PARLEY_VERSION;
  data["simulated"] = simulated;
  data["summary"] = Json::parse(summary_to_json(summary));
  Json front = Json::array();
  const std::vector<bool> on_front = pareto_front(summary.protocols);
  for (std::size_t i = 0; i < on_front.size(); ++i)
    if (on_front[i]) front.push_back(summary.protocols[i].name);
  data["pareto_front"] = std::move(front);

  // parley compare's default: every protocol against the single-agent baseline (or the first
  // protocol) on accuracy, tokens and calls.
  Json comparison = nullptr;
  if (protocols.size() >= 2) {
    const bool has_single = std::find(protocols.begin(), protocols.end(), kDecisionBaseline) != protocols.end();
    const std::string baseline = has_single ? kDecisionBaseline : protocols.front();
    auto compared = compare_protocols(transcripts, pairs_against(protocols, baseline), {"accuracy", "tokens", "calls"},
                                      AdjustmentFamily::kPair, simulated, options.bootstrap_seed);
    if (!compared) return compared.error();
    comparison = Json::parse(comparison_to_json(*compared));
  }
  data["comparison"] = comparison;

  Json diagnosis = nullptr;
  if (has_uncertainty(summary)) {
    DiagnosisOptions diagnosis_options;
    diagnosis_options.simulated = simulated;
    auto diagnosed = diagnose(transcripts, protocol_order, diagnosis_options);
    if (!diagnosed) return diagnosed.error();
    diagnosis = Json::parse(diagnosis_to_json(*diagnosed));
  }
  data["diagnosis"] = diagnosis;

  Json rounds = Json::array();
  for (const std::string& protocol : protocols) {
    const std::vector<RoundSignal> signals = round_signals(transcripts, protocol);
    if (signals.empty()) continue;
    Json entry{{"protocol", protocol}, {"signals", Json::array()}};
    for (const RoundSignal& signal : signals) entry["signals"].push_back(round_signal_json(signal));
    entry["traces"] = traces_json(debates_of(transcripts, protocol), options.traces);
    rounds.push_back(std::move(entry));
  }

  Json harmed = Json::object();
  UnitMap single;  // the baseline's units, read once for every protocol
  for (const Transcript* t : debates_of(transcripts, kDecisionBaseline)) single[{t->task_id, t->seed}] = t;
  for (const ProtocolSummary& p : summary.protocols)
    if (p.vs_single && p.vs_single->right_wrong > 0) harmed[p.name] = harmed_units_json(transcripts, single, p.name, 10);
  data["harmed"] = std::move(harmed);

  data["plots"] = plot_ids(summary, comparison, diagnosis, rounds);
  data["rounds"] = std::move(rounds);
  return data.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace parley
