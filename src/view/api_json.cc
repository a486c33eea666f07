// The API's JSON: typed rows out, with the field names the front end reads.
#include "view/api_json.h"

namespace parley::view {

using nlohmann::json;

json run_json(const RunFacts& facts, const std::string& name, bool report) {
  json seeds = json::array();
  for (std::uint64_t seed : facts.seeds) seeds.push_back(std::to_string(seed));
  return json{{"name", name},
              {"simulated", facts.simulated},
              {"debates", facts.debates},
              {"protocols", facts.protocols},
              {"seeds", std::move(seeds)},
              {"metrics", facts.metrics},
              {"statuses", facts.statuses},
              {"report", report}};
}

json row_json(const DebateRow& r) {
  json metrics = json::object();
  for (const auto& [name, value] : r.metrics) metrics[name] = value;
  return json{{"task_id", r.task_id},
              {"protocol", r.protocol},
              {"seed", std::to_string(r.seed)},
              {"status", debate_status_name(r.status)},
              {"correct", r.correct},
              {"initially_correct", r.initially_correct ? json(*r.initially_correct) : json(nullptr)},
              {"flipped", r.flipped},
              {"tokens", r.tokens},
              {"calls", r.calls},
              {"rounds", r.rounds},
              {"latency_ms", r.latency_ms},
              {"final_answer", r.final_answer ? json(*r.final_answer) : json(nullptr)},
              {"gold", r.gold},
              {"question", r.question},
              {"metrics", std::move(metrics)}};
}

json page_json(const DebatePage& page) {
  json rows = json::array();
  for (const DebateRow& r : page.rows) rows.push_back(row_json(r));
  return json{{"total", page.total}, {"offset", page.offset}, {"limit", page.limit}, {"rows", std::move(rows)}};
}

std::string debate_json(const std::string& transcript, const std::vector<DebateRow>& others) {
  json rows = json::array();
  for (const DebateRow& r : others) rows.push_back(row_json(r));
  std::string out = "{\"transcript\":";
  out += transcript;
  out += ",\"others\":";
  // Replaced rather than refused: a reply's invalid UTF-8 must not fail the page.
  out += rows.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '}';
  return out;
}

std::string error_json(const std::string& message, const std::string& parameter) {
  json body{{"error", message}};
  if (!parameter.empty()) body["parameter"] = parameter;
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace parley::view
