// Transcript <-> JSON: the transcripts.jsonl line format (docs/formats.md) and the form the
// store keeps. Field order is fixed (ordered_json) so exports are byte-stable across runs.
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "parley/store.h"

namespace parley {
namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

template <class T>
std::optional<T> optional_from(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

Json message_to_json(const MessageRecord& m) {
  Json j;
  j["id"] = m.id;
  if (m.repeats) j["repeats"] = *m.repeats;
  j["round"] = m.round;
  j["agent"] = m.agent;
  j["role"] = m.role;
  j["prompt_tokens"] = m.prompt_tokens;
  j["completion_tokens"] = m.completion_tokens;
  j["cached_tokens"] = m.cached_tokens;
  j["tokens_estimated"] = m.tokens_estimated;
  j["text"] = m.text;
  if (!m.reasoning.empty()) j["reasoning"] = m.reasoning;
  j["answer"] = optional_json(m.answer);
  j["confidence"] = optional_json(m.confidence);
  j["latency_ms"] = m.latency_ms;
  j["attempts"] = m.attempts;
  if (m.error) j["error"] = *m.error;
  if (m.min_token_logprob) j["min_token_logprob"] = *m.min_token_logprob;
  if (m.perplexity) j["perplexity"] = *m.perplexity;
  if (!m.shown.empty()) j["shown"] = m.shown;
  if (!m.warnings.empty()) j["warnings"] = m.warnings;
  return j;
}

MessageRecord message_from_json(const Json& j) {
  MessageRecord m;
  m.id = j.at("id").get<int>();
  m.repeats = optional_from<int>(j, "repeats");
  m.round = j.at("round").get<int>();
  m.agent = j.at("agent").get<std::string>();
  m.role = j.at("role").get<std::string>();
  m.prompt_tokens = j.at("prompt_tokens").get<std::int64_t>();
  m.completion_tokens = j.at("completion_tokens").get<std::int64_t>();
  m.cached_tokens = j.value("cached_tokens", std::int64_t{0});
  m.tokens_estimated = j.value("tokens_estimated", false);
  m.text = j.at("text").get<std::string>();
  m.reasoning = j.value("reasoning", std::string());
  m.answer = optional_from<std::string>(j, "answer");
  m.confidence = optional_from<double>(j, "confidence");
  m.latency_ms = j.value("latency_ms", 0.0);
  m.attempts = j.value("attempts", 1);
  m.error = optional_from<std::string>(j, "error");
  m.min_token_logprob = optional_from<double>(j, "min_token_logprob");
  m.perplexity = optional_from<double>(j, "perplexity");
  m.shown = j.value("shown", std::vector<std::string>{});
  m.warnings = j.value("warnings", std::vector<std::string>{});
  return m;
}

}  // namespace

std::string transcript_to_json(const Transcript& t) {
  Json j;
  j["task_id"] = t.task_id;
  j["protocol"] = t.protocol;
  j["seed"] = t.seed;
  j["gold"] = t.gold;
  j["final_answer"] = optional_json(t.final_answer);
  j["correct"] = t.correct;
  j["status"] = debate_status_name(t.status);
  j["status_reason"] = t.status_reason;
  j["prompt_tokens"] = t.prompt_tokens();
  j["completion_tokens"] = t.completion_tokens();
  j["calls"] = t.calls();
  j["latency_ms"] = t.latency_ms();
  j["wall_ms"] = t.wall_ms;
  j["metrics"] = Json::object();
  for (const auto& [name, value] : t.metrics) j["metrics"][name] = value;
  j["events"] = Json::array();
  for (const auto& e : t.events) j["events"].push_back(Json{{"round", e.round}, {"kind", e.kind}, {"detail", e.detail}});
  j["messages"] = Json::array();
  for (const auto& m : t.messages) j["messages"].push_back(message_to_json(m));
  // Invalid UTF-8 in model output is replaced rather than failing the export.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<Transcript> transcript_from_json(std::string_view text) {
  try {
    const Json j = Json::parse(text);
    Transcript t;
    t.task_id = j.at("task_id").get<std::string>();
    t.protocol = j.at("protocol").get<std::string>();
    t.seed = j.at("seed").get<std::uint64_t>();
    t.gold = j.at("gold").get<std::string>();
    t.final_answer = optional_from<std::string>(j, "final_answer");
    t.correct = j.at("correct").get<bool>();
    const auto status_name = j.at("status").get<std::string>();
    auto status = parse_debate_status(status_name);
    if (!status) return Error{fmt::format("transcript: unknown status \"{}\"", status_name)};
    t.status = *status;
    t.status_reason = j.value("status_reason", std::string());
    t.wall_ms = j.value("wall_ms", 0.0);
    if (auto it = j.find("metrics"); it != j.end())
      for (const auto& [name, value] : it->items()) t.metrics[name] = value.get<double>();
    if (auto it = j.find("events"); it != j.end())
      for (const auto& e : *it)
        t.events.push_back({e.at("round").get<int>(), e.at("kind").get<std::string>(), e.at("detail").get<std::string>()});
    for (const auto& m : j.at("messages")) {
      // Calls written before they had an identity cannot be told apart when a re-ask is folded
      // into its turn, so such a transcript is refused rather than measured by a guess.
      if (!m.contains("id")) {
        return Error{"transcript: its calls have no \"id\" (written by an older parley, whose re-asks do "
                     "not name the call they repeat); run the experiment again with this parley"};
      }
      MessageRecord record = message_from_json(m);
      const int index = static_cast<int>(t.messages.size());
      if (record.id != index) {
        return Error{fmt::format("transcript: call {} has id {}; ids are the calls' positions", index, record.id)};
      }
      if (record.repeats && (*record.repeats < 0 || *record.repeats >= index)) {
        return Error{fmt::format("transcript: call {} repeats call {}, which is not an earlier call", index,
                                 *record.repeats)};
      }
      t.messages.push_back(std::move(record));
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("transcript: {}", e.what())};
  }
}

}  // namespace parley
