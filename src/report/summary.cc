// summarize() and summary.json: per-protocol means over stored debates. Every figure is a
// function of the transcripts alone (latency is the transcript's critical path, not its wall
// time), so a resumed run summarises exactly like an uninterrupted one.
#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "parley/report.h"
#include "parley/stats.h"
#include "report/difficulty.h"
#include "core/hash.h"

namespace parley {
namespace {

// The 95% CIs of a protocol's means. Every quantity defined on the same debates is resampled
// with the same draws (bootstrap_mean_cis: the indices are drawn once per resample, not once
// per quantity), from a stream seeded by the protocol's label and the number of those debates —
// independent of the order protocols and quantities appear in.
class MeanCis {
 public:
  MeanCis(std::uint64_t bootstrap_seed, const std::string& protocol) : seed_(bootstrap_seed), protocol_(protocol) {}

  // Adds a quantity: its values over the debates that define it (`debates`, their positions in
  // the protocol's unit order); `ci` is filled by compute().
  void add(std::vector<double> values, std::vector<std::uint32_t> debates, Interval* ci) {
    auto& group = groups_[std::move(debates)];
    group.values.push_back(std::move(values));
    group.cis.push_back(ci);
  }

  void compute() {
    for (auto& [debates, group] : groups_) {
      const std::vector<std::span<const double>> quantities(group.values.begin(), group.values.end());
      const std::vector<Interval> cis = bootstrap_mean_cis(
          quantities, HashBuilder().add(seed_).add(protocol_).add(std::uint64_t{debates.size()}).value());
      for (std::size_t k = 0; k < cis.size(); ++k) *group.cis[k] = cis[k];
    }
  }

 private:
  struct Group {
    std::vector<std::vector<double>> values;
    std::vector<Interval*> cis;
  };
  std::uint64_t seed_;
  const std::string& protocol_;
  std::map<std::vector<std::uint32_t>, Group> groups_;
};

ProtocolSummary summarize_one(const std::string& name, const std::vector<const Transcript*>& debates,
                              std::uint64_t bootstrap_seed) {
  ProtocolSummary s;
  s.name = name;
  s.n = static_cast<std::int64_t>(debates.size());
  if (debates.empty()) return s;
  std::vector<double> correct, tokens, tokens_in, tokens_out, calls;
  std::vector<std::uint32_t> graded;  // the debates whose task has a gold answer: accuracy's
  double latency = 0;
  std::int64_t unparsed = 0;
  struct Defined {  // a metric over the debates that define it
    std::vector<double> values;
    std::vector<std::uint32_t> debates;
  };
  std::map<std::string, Defined> metric_values;
  for (std::size_t position = 0; position < debates.size(); ++position) {
    const Transcript* t = debates[position];
    if (!t->gold.empty()) {
      correct.push_back(t->correct ? 1.0 : 0.0);
      graded.push_back(static_cast<std::uint32_t>(position));
    }
    tokens_in.push_back(static_cast<double>(t->prompt_tokens()));
    tokens_out.push_back(static_cast<double>(t->completion_tokens()));
    tokens.push_back(tokens_in.back() + tokens_out.back());
    calls.push_back(static_cast<double>(t->calls()));
    latency += t->latency_ms();
    if (t->unparsed()) ++unparsed;
    if (t->status == DebateStatus::kFailed) ++s.failed;
    if (t->status == DebateStatus::kBudget) ++s.budget;
    if (std::any_of(t->messages.begin(), t->messages.end(), [](const MessageRecord& m) { return m.tokens_estimated; }))
      ++s.tokens_estimated;
    for (const auto& [metric, value] : t->metrics) {
      Defined& defined = metric_values[metric];
      defined.values.push_back(value);
      defined.debates.push_back(static_cast<std::uint32_t>(position));
    }
  }
  const double n = static_cast<double>(s.n);
  s.graded = static_cast<std::int64_t>(graded.size());
  s.accuracy = mean(correct);
  s.tokens_in_mean = mean(tokens_in);
  s.tokens_out_mean = mean(tokens_out);
  s.calls_mean = mean(calls);
  for (const auto& [metric, defined] : metric_values) {
    s.metrics[metric] = {static_cast<std::int64_t>(defined.values.size()), mean(defined.values), {}};
  }
  if (const auto found = metric_values.find("final_confidence"); found != metric_values.end()) {
    std::vector<int> right;
    std::vector<double> confidence;
    for (std::size_t k = 0; k < found->second.debates.size(); ++k) {
      const Transcript& t = *debates[found->second.debates[k]];
      if (t.gold.empty()) continue;  // no gold, no correctness to calibrate against
      confidence.push_back(found->second.values[k]);
      right.push_back(t.correct ? 1 : 0);
    }
    if (!right.empty()) {
      s.ece = binned_calibration_error(confidence, right, 10);
      s.ece_n = static_cast<std::int64_t>(right.size());
    }
  }
  MeanCis cis(bootstrap_seed, name);
  std::vector<std::uint32_t> every(debates.size());
  for (std::uint32_t i = 0; i < every.size(); ++i) every[i] = i;
  if (!graded.empty()) cis.add(std::move(correct), std::move(graded), &s.accuracy_ci);
  cis.add(std::move(tokens), every, &s.tokens_ci);
  cis.add(std::move(tokens_in), every, &s.tokens_in_ci);
  cis.add(std::move(tokens_out), every, &s.tokens_out_ci);
  cis.add(std::move(calls), every, &s.calls_ci);
  for (auto& [metric, defined] : metric_values) {
    cis.add(std::move(defined.values), std::move(defined.debates), &s.metrics[metric].ci);
  }
  cis.compute();
  const double tokens_mean = s.tokens_in_mean + s.tokens_out_mean;
  s.apt = tokens_mean > 0 ? s.accuracy * 100000.0 / tokens_mean : 0.0;  // iMAD App. B.1
  s.unparsed_rate = static_cast<double>(unparsed) / n;
  s.latency_ms_mean = latency / n;
  return s;
}

// iMAD §3 (Table 2): the baseline's correctness → the protocol's, over the units both ran whose
// task has gold (without it neither is right or wrong).
DecisionBreakdown decision_breakdown(const std::vector<const Transcript*>& baseline,
                                     const std::vector<const Transcript*>& debates) {
  std::map<std::pair<std::string, std::uint64_t>, bool> baseline_correct;  // (task_id, seed)
  for (const Transcript* t : baseline) {
    if (!t->gold.empty()) baseline_correct[{t->task_id, t->seed}] = t->correct;
  }
  DecisionBreakdown breakdown;
  breakdown.baseline = kDecisionBaseline;
  for (const Transcript* t : debates) {
    const auto it = baseline_correct.find({t->task_id, t->seed});
    if (it == baseline_correct.end() || t->gold.empty()) continue;
    const bool was_right = it->second;
    ++(was_right ? (t->correct ? breakdown.right_right : breakdown.right_wrong)
                 : (t->correct ? breakdown.wrong_right : breakdown.wrong_wrong));
  }
  return breakdown;
}

using UnitOutcomes = std::map<std::pair<std::string, std::uint64_t>, bool>;  // (task_id, seed) → correct

// The units whose task has gold.
UnitOutcomes outcomes(const std::vector<const Transcript*>& debates) {
  UnitOutcomes out;
  for (const Transcript* t : debates) {
    if (!t->gold.empty()) out[{t->task_id, t->seed}] = t->correct;
  }
  return out;
}

// The "trigger" event's decision and single-agent correctness (protocols/selective.h).
struct TriggerRecord {
  bool debated = false;
  bool single_correct = false;
};

std::optional<TriggerRecord> trigger_record(const Transcript& t) {
  for (const EventRecord& e : t.events) {
    if (e.kind != "trigger") continue;
    const auto detail = nlohmann::json::parse(e.detail, nullptr, false);
    if (!detail.is_object() || !detail.contains("decision")) return std::nullopt;
    return TriggerRecord{detail.value("decision", "") == "debate", detail.value("single_correct", false)};
  }
  return std::nullopt;
}

// iMAD Table 4 for a protocol with trigger events; nullopt when it records none.
std::optional<SelectiveDecisions> selective_decisions(const std::vector<const Transcript*>& debates,
                                                      const UnitOutcomes* mad) {
  SelectiveDecisions d;
  if (mad) d.mad_reference = kMadReference;
  bool any = false;
  for (const Transcript* t : debates) {
    const auto record = trigger_record(*t);
    if (!record || t->gold.empty()) continue;  // without gold no decision was right or wrong
    any = true;
    std::optional<bool> mad_right;
    if (record->debated) {
      mad_right = t->correct;
    } else if (mad) {
      if (const auto it = mad->find({t->task_id, t->seed}); it != mad->end()) mad_right = it->second;
    }
    d.add(record->debated, record->single_correct, mad_right);
  }
  if (!any) return std::nullopt;
  return d;
}

}  // namespace

void SelectiveDecisions::add(bool was_debated, bool single_right, std::optional<bool> mad_right) {
  if (!mad_right) {
    if (was_debated) {
      ++(single_right ? debated_right_unknown : debated_wrong_unknown);
    } else {
      ++(single_right ? skipped_right_unknown : skipped_wrong_unknown);
    }
    return;
  }
  DecisionBreakdown& b = was_debated ? debated : skipped;
  ++(single_right ? (*mad_right ? b.right_right : b.right_wrong) : (*mad_right ? b.wrong_right : b.wrong_wrong));
}

std::vector<std::string> protocols_in_order(const std::vector<Transcript>& transcripts,
                                            const std::vector<std::string>& protocol_order) {
  std::set<std::string> present;
  for (const auto& t : transcripts) present.insert(t.protocol);
  std::vector<std::string> names;
  for (const auto& name : protocol_order)
    if (present.count(name) && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  for (const auto& name : present)  // std::set: the rest in sorted order
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

Summary summarize(const std::vector<Transcript>& transcripts, const std::vector<std::string>& protocol_order,
                  bool simulated, std::uint64_t bootstrap_seed) {
  std::map<std::string, std::vector<const Transcript*>> by_protocol;
  for (const auto& t : transcripts) by_protocol[t.protocol].push_back(&t);
  const std::vector<std::string> names = protocols_in_order(transcripts, protocol_order);

  Summary summary;
  summary.simulated = simulated;
  for (const auto& name : names) {
    auto& debates = by_protocol[name];
    // Stable unit order whatever order the caller stored them in.
    std::sort(debates.begin(), debates.end(), [](const Transcript* a, const Transcript* b) {
      return std::tie(a->task_id, a->seed) < std::tie(b->task_id, b->seed);
    });
    summary.protocols.push_back(summarize_one(name, debates, bootstrap_seed));
  }
  const auto baseline = by_protocol.find(kDecisionBaseline);
  if (baseline != by_protocol.end()) {
    for (auto& protocol : summary.protocols) {
      if (protocol.name != kDecisionBaseline)
        protocol.vs_single = decision_breakdown(baseline->second, by_protocol.at(protocol.name));
    }
  }
  const auto reference = by_protocol.find(kMadReference);
  const std::optional<UnitOutcomes> mad =
      reference != by_protocol.end() ? std::optional<UnitOutcomes>(outcomes(reference->second)) : std::nullopt;
  for (auto& protocol : summary.protocols) {
    if (protocol.name == kMadReference) {
      if (!protocol.vs_single) continue;
      SelectiveDecisions full;  // full MAD debates every unit
      full.mad_reference = kMadReference;
      full.debated = *protocol.vs_single;
      protocol.selective = full;
      continue;
    }
    protocol.selective = selective_decisions(by_protocol.at(protocol.name), mad ? &*mad : nullptr);
  }
  summary.difficulty = difficulty_breakdown(transcripts, names);
  return summary;
}

namespace {
nlohmann::ordered_json interval_json(const Interval& ci) { return nlohmann::ordered_json::array({ci.lo, ci.hi}); }
}  // namespace

std::string summary_to_json(const Summary& summary) {
  nlohmann::ordered_json j;
  j["simulated"] = summary.simulated;
  j["protocols"] = nlohmann::ordered_json::array();
  for (const auto& p : summary.protocols) {
    nlohmann::ordered_json row;
    row["name"] = p.name;
    row["n"] = p.n;
    // Without gold there is no accuracy (nor ApT): null, never a 0 that reads as all wrong.
    const bool graded = p.graded > 0;
    row["accuracy"] = graded ? nlohmann::ordered_json(p.accuracy) : nlohmann::ordered_json(nullptr);
    row["accuracy_ci"] = graded ? interval_json(p.accuracy_ci) : nlohmann::ordered_json(nullptr);
    row["accuracy_n"] = p.graded;
    row["tokens_mean"] = p.tokens_in_mean + p.tokens_out_mean;
    row["tokens_ci"] = interval_json(p.tokens_ci);
    row["tokens_in_mean"] = p.tokens_in_mean;
    row["tokens_in_ci"] = interval_json(p.tokens_in_ci);
    row["tokens_out_mean"] = p.tokens_out_mean;
    row["tokens_out_ci"] = interval_json(p.tokens_out_ci);
    row["calls_mean"] = p.calls_mean;
    row["calls_ci"] = interval_json(p.calls_ci);
    row["apt"] = graded ? nlohmann::ordered_json(p.apt) : nlohmann::ordered_json(nullptr);
    row["unparsed_rate"] = p.unparsed_rate;
    row["latency_ms_mean"] = p.latency_ms_mean;
    row["failed"] = p.failed;
    row["budget"] = p.budget;
    row["tokens_estimated"] = p.tokens_estimated;
    if (p.ece) {
      row["ece"] = *p.ece;
      row["ece_n"] = p.ece_n;
    }
    row["metrics"] = nlohmann::ordered_json::object();
    row["metrics_ci"] = nlohmann::ordered_json::object();
    row["metrics_n"] = nlohmann::ordered_json::object();
    for (const auto& [metric, estimate] : p.metrics) {
      row["metrics"][metric] = estimate.mean;
      row["metrics_ci"][metric] = interval_json(estimate.ci);
      row["metrics_n"][metric] = estimate.n;
    }
    if (const auto& b = p.vs_single) {
      row["vs_single"] = {{"right_right", b->right_right}, {"right_wrong", b->right_wrong},
                          {"wrong_right", b->wrong_right}, {"wrong_wrong", b->wrong_wrong},
                          {"baseline", b->baseline}};
    }
    if (const auto& d = p.selective) {
      const auto cells = [](const DecisionBreakdown& b) {
        return nlohmann::ordered_json{{"right_right", b.right_right}, {"right_wrong", b.right_wrong},
                                      {"wrong_right", b.wrong_right}, {"wrong_wrong", b.wrong_wrong}};
      };
      row["selective"] = {{"mad_reference", d->mad_reference},
                          {"decisions", d->decisions()},
                          {"debate_rate", d->debate_rate()},
                          {"skipped", cells(d->skipped)},
                          {"skipped_right_unknown", d->skipped_right_unknown},
                          {"skipped_wrong_unknown", d->skipped_wrong_unknown},
                          {"debated_right_unknown", d->debated_right_unknown},
                          {"debated_wrong_unknown", d->debated_wrong_unknown},
                          {"debated", cells(d->debated)},
                          {"beneficial", d->beneficial()},
                          {"judged", d->judged()},
                          {"beneficial_rate", d->beneficial_rate()}};
    }
    j["protocols"].push_back(std::move(row));
  }
  if (summary.difficulty) j["difficulty"] = difficulty_to_json(*summary.difficulty);
  return j.dump(2);
}

}  // namespace parley
