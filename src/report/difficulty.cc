// The difficulty breakdown of SVR-MAD Fig. 1–2 (parley/report.h) from "priors" and "scores"
// events (src/protocols/svr_mad.cc).
#include "report/difficulty.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace parley {
namespace {

using Json = nlohmann::json;

std::optional<Json> event_json(const Transcript& t, std::string_view kind) {
  for (const EventRecord& e : t.events) {
    if (e.kind != kind) continue;
    auto j = Json::parse(e.detail, nullptr, false);
    if (!j.is_discarded()) return j;
  }
  return std::nullopt;
}

// Index of the agent ranked first by `value` (higher first; ties to the first agent); nullopt
// when no agent has the signal.
template <class Value>
std::optional<std::size_t> top(const Json& agents, Value value) {
  std::optional<std::size_t> best;
  double best_value = 0.0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const std::optional<double> v = value(agents[i]);
    if (!v) continue;
    if (!best || *v > best_value) {
      best = i;
      best_value = *v;
    }
  }
  return best;
}

std::optional<double> number(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? std::optional<double>(j[key].get<double>()) : std::nullopt;
}

bool stopped_unanimous(const Transcript& t) {
  for (const EventRecord& e : t.events) {
    if (e.kind != "stop") continue;
    const auto j = Json::parse(e.detail, nullptr, false);
    if (j.is_object() && j.value("reason", "") == "unanimous") return true;
  }
  return false;
}

}  // namespace

PreDebateRecord pre_debate_record(const std::vector<Transcript>& transcripts,
                                  const std::vector<std::string>& preferred) {
  std::map<std::string, bool> has_priors;
  for (const Transcript& t : transcripts)
    if (!has_priors[t.protocol]) has_priors[t.protocol] = event_json(t, "priors").has_value();
  PreDebateRecord record;
  for (const auto& name : preferred)
    if (has_priors[name]) {
      record.source = name;
      break;
    }
  if (record.source.empty()) {
    for (const auto& [name, yes] : has_priors)
      if (yes) {
        record.source = name;
        break;
      }
  }
  for (const Transcript& t : transcripts) {
    if (!record.source.empty() && t.protocol == record.source && stopped_unanimous(t))
      record.unanimous.insert({t.task_id, t.seed});
  }
  return record;
}

std::optional<DifficultyBreakdown> difficulty_breakdown(const std::vector<Transcript>& transcripts,
                                                        const std::vector<std::string>& protocol_order) {
  // The source: the first protocol, in the experiment's order, that recorded priors.
  const PreDebateRecord record = pre_debate_record(transcripts, protocol_order);
  const std::string& source = record.source;
  if (source.empty()) return std::nullopt;

  DifficultyBreakdown out;
  out.source = source;
  std::map<UnitKey, int> difficulty;  // unit → correct before
  std::map<int, DifficultyGroup> groups;
  for (const Transcript& t : transcripts) {
    if (t.protocol != source) continue;
    const auto priors = event_json(t, "priors");
    if (!priors || !priors->is_array() || priors->empty()) continue;
    out.agents = std::max(out.agents, static_cast<int>(priors->size()));
    if (record.unanimous.count({t.task_id, t.seed})) {
      ++out.unanimous;
      continue;
    }
    int correct = 0;
    for (const Json& agent : *priors) correct += agent.value("correct", false) ? 1 : 0;
    difficulty[{t.task_id, t.seed}] = correct;
    DifficultyGroup& g = groups[correct];
    g.correct_before = correct;
    ++g.units;
    const auto count = [&](const std::string& signal, std::optional<std::size_t> first) {
      if (!first) return;
      ++g.ranked[signal];
      if ((*priors)[*first].value("correct", false)) ++g.top_correct[signal];
    };
    count("min_ll", top(*priors, [](const Json& a) { return number(a, "min_ll"); }));
    count("ppl", top(*priors, [](const Json& a) -> std::optional<double> {
            const auto ppl = number(a, "ppl");
            return ppl ? std::optional<double>(-*ppl) : std::nullopt;  // lower perplexity ranks first
          }));
    count("confidence", top(*priors, [](const Json& a) { return number(a, "confidence"); }));
    if (const auto scores = event_json(t, "scores"); scores && scores->size() == priors->size())
      count("svr", top(*scores, [](const Json& a) { return number(a, "score"); }));
  }
  for (const Transcript& t : transcripts) {
    const auto it = difficulty.find({t.task_id, t.seed});
    if (it == difficulty.end()) continue;
    DifficultyGroup& g = groups[it->second];
    ++g.protocol_units[t.protocol];
    if (t.correct) ++g.protocol_correct[t.protocol];
  }
  for (auto& [correct, g] : groups) out.groups.push_back(std::move(g));
  return out;
}

nlohmann::ordered_json difficulty_to_json(const DifficultyBreakdown& d) {
  nlohmann::ordered_json j{{"source", d.source}, {"agents", d.agents}, {"unanimous", d.unanimous}};
  j["groups"] = nlohmann::ordered_json::array();
  for (const DifficultyGroup& g : d.groups) {
    nlohmann::ordered_json row{{"correct_before", g.correct_before}, {"units", g.units}};
    for (const auto& [signal, n] : g.ranked) {
      const auto hit = g.top_correct.count(signal) ? g.top_correct.at(signal) : 0;
      row["top_correct"][signal] = static_cast<double>(hit) / static_cast<double>(n);
    }
    for (const auto& [protocol, n] : g.protocol_units) {
      const auto hit = g.protocol_correct.count(protocol) ? g.protocol_correct.at(protocol) : 0;
      row["accuracy"][protocol] = static_cast<double>(hit) / static_cast<double>(n);
    }
    j["groups"].push_back(std::move(row));
  }
  return j;
}

std::string render_difficulty(const DifficultyBreakdown& d, const std::vector<std::string>& protocols) {
  std::string out = fmt::format(
      "\nby difficulty (SVR-MAD Fig. 1-2): units by agents right before debate, from {}'s {} pre-debate "
      "answers "
      "({} unanimous units left out)\n",
      d.source, d.agents, d.unanimous);
  const std::vector<std::string> signals = {"min_ll", "ppl", "confidence", "svr"};
  out += fmt::format("{:>12}  {:>5}", "right before", "units");
  for (const auto& s : signals) out += fmt::format("  {:>10}", "top " + s);
  out += "  |";
  for (const auto& p : protocols) out += fmt::format("  {:>{}}", p, std::max<std::size_t>(7, p.size()));
  out += "\n";
  const auto share = [](std::int64_t hit, std::int64_t n) {
    return n ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(hit) / static_cast<double>(n))
             : std::string("-");
  };
  for (const DifficultyGroup& g : d.groups) {
    out += fmt::format("{:>12}  {:>5}", g.correct_before, g.units);
    for (const auto& s : signals) {
      const auto n = g.ranked.count(s) ? g.ranked.at(s) : 0;
      out += fmt::format("  {:>10}", share(g.top_correct.count(s) ? g.top_correct.at(s) : 0, n));
    }
    out += "  |";
    for (const auto& p : protocols) {
      const auto n = g.protocol_units.count(p) ? g.protocol_units.at(p) : 0;
      out += fmt::format("  {:>{}}", share(g.protocol_correct.count(p) ? g.protocol_correct.at(p) : 0, n),
                         std::max<std::size_t>(7, p.size()));
    }
    out += "\n";
  }
  out += "top X = share of units whose agent ranked first by X was right; then each protocol's accuracy\n";
  return out;
}

}  // namespace parley
