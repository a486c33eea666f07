#include "llm/openai_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace parley::openai {
namespace {

using nlohmann::json;

// Control characters would break the one-line promise of CallError::message.
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
  return out;
}

std::string truncate_utf8(std::string text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "...";
}

const json* member(const json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::optional<std::int64_t> integer_member(const json& object, const char* name) {
  const json* value = member(object, name);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_integer()) return value->get<std::int64_t>();
  if (value->is_number_float()) return static_cast<std::int64_t>(std::llround(value->get<double>()));
  return std::nullopt;
}

std::string string_or_empty(const json* value) {
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// Servers differ: usage may be absent, null, or an object without counts.
bool fill_usage(const json& body, Usage& usage) {
  const json* object = member(body, "usage");
  if (object == nullptr || !object->is_object()) return false;
  auto prompt = integer_member(*object, "prompt_tokens");
  auto completion = integer_member(*object, "completion_tokens");
  if (!prompt && !completion) return false;
  usage.prompt_tokens = prompt.value_or(0);
  usage.completion_tokens = completion.value_or(0);
  if (const json* details = member(*object, "prompt_tokens_details"))
    usage.cached_tokens = integer_member(*details, "cached_tokens").value_or(0);
  return true;
}

// The body as a JSON object, or why it is not one.
std::variant<json, BadResponse> parse_object(std::string_view body) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return BadResponse{"invalid JSON in response: " + error_summary(body, 80)};
  if (!parsed.is_object()) return BadResponse{"response is not a JSON object"};
  return parsed;
}

// One embedding's values; nullopt unless it is an array of finite numbers (the parser refuses
// overflowing literals today; the check keeps the promise should that change).
std::optional<std::vector<double>> finite_numbers(const json* values) {
  if (values == nullptr || !values->is_array()) return std::nullopt;
  std::vector<double> out;
  out.reserve(values->size());
  for (const json& value : *values) {
    if (!value.is_number() || !std::isfinite(value.get<double>())) return std::nullopt;
    out.push_back(value.get<double>());
  }
  return out;
}

std::optional<LogprobStats> logprob_stats(const json& choice) {
  const json* logprobs = member(choice, "logprobs");
  if (logprobs == nullptr) return std::nullopt;
  const json* content = member(*logprobs, "content");
  if (content == nullptr || !content->is_array() || content->empty()) return std::nullopt;
  std::vector<double> values;
  values.reserve(content->size());
  for (const json& token : *content) {
    const json* logprob = member(token, "logprob");
    if (logprob != nullptr && logprob->is_number()) values.push_back(logprob->get<double>());
  }
  if (values.empty()) return std::nullopt;
  return reduce_logprobs(values);
}

}  // namespace

std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const Sampling& sampling) {
  json list = json::array();
  for (const auto& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
  json body = {{"model", model},
               {"messages", std::move(list)},
               {"temperature", sampling.temperature},
               {"top_p", sampling.top_p},
               {"max_tokens", sampling.max_tokens}};
  if (sampling.seed) body["seed"] = *sampling.seed;
  if (sampling.logprobs) body["logprobs"] = true;
  // Prompts come from datasets; replace bad UTF-8 rather than fail the call.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::variant<ChatResponse, BadResponse> parse_chat_response(std::string_view body,
                                                            const std::vector<ChatMessage>& prompt) {
  auto object = parse_object(body);
  if (auto* bad = std::get_if<BadResponse>(&object)) return std::move(*bad);
  const json& parsed = std::get<json>(object);
  const json* choices = member(parsed, "choices");
  if (choices == nullptr || !choices->is_array() || choices->empty())
    return BadResponse{"response has no choices"};
  const json& choice = (*choices)[0];
  const json* message = member(choice, "message");
  if (message == nullptr || !message->is_object()) return BadResponse{"response choice has no message"};

  ChatResponse response;
  const json* content = member(*message, "content");
  if (content != nullptr && !content->is_string() && !content->is_null())
    return BadResponse{"response message content is not a string"};
  response.text = string_or_empty(content);
  // vLLM and DeepSeek say reasoning_content; some servers (Ollama, OpenRouter) say reasoning.
  response.reasoning = string_or_empty(member(*message, "reasoning_content"));
  if (response.reasoning.empty()) response.reasoning = string_or_empty(member(*message, "reasoning"));
  response.finish_reason = string_or_empty(member(choice, "finish_reason"));
  if (!fill_usage(parsed, response.usage)) {
    response.usage.prompt_tokens = estimate_prompt_tokens(prompt);
    response.usage.completion_tokens = estimate_tokens(response.text);
    response.usage.estimated = true;
  }
  response.logprobs = logprob_stats(choice);
  return response;
}

std::string embedding_request_body(const std::string& model, const std::vector<std::string>& inputs) {
  json body = {{"model", model}, {"input", inputs}, {"encoding_format", "float"}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);  // texts may hold bad UTF-8
}

std::variant<EmbeddingResponse, BadResponse> parse_embedding_response(
    std::string_view body, const std::vector<std::string>& inputs) {
  auto object = parse_object(body);
  if (auto* bad = std::get_if<BadResponse>(&object)) return std::move(*bad);
  const json& parsed = std::get<json>(object);
  const json* data = member(parsed, "data");
  if (data == nullptr || !data->is_array()) return BadResponse{"response has no data array"};
  const std::size_t count = inputs.size();
  if (data->size() != count) {
    return BadResponse{"response has " + std::to_string(data->size()) + " embeddings for " +
                       std::to_string(count) + " inputs"};
  }

  EmbeddingResponse response;
  response.vectors.resize(count);
  std::vector<bool> placed(count, false);
  for (std::size_t position = 0; position < count; ++position) {
    const json& item = (*data)[position];
    std::size_t index = position;
    if (const json* given = member(item, "index")) {
      if (!given->is_number_unsigned()) return BadResponse{"embedding index is not a non-negative integer"};
      const auto value = given->get<std::uint64_t>();
      if (value >= count) {
        return BadResponse{"embedding index " + std::to_string(value) + " is out of range for " +
                           std::to_string(count) + " inputs"};
      }
      index = static_cast<std::size_t>(value);
    }
    if (placed[index]) return BadResponse{"embedding index " + std::to_string(index) + " appears twice"};
    placed[index] = true;
    auto values = finite_numbers(member(item, "embedding"));
    if (!values)
      return BadResponse{"embedding " + std::to_string(index) + " is not an array of finite numbers"};
    if (values->empty()) return BadResponse{"embedding " + std::to_string(index) + " is empty"};
    response.vectors[index] = std::move(*values);
  }
  // count entries, each index in range and none twice: every input has its vector.
  for (std::size_t index = 1; index < count; ++index) {
    if (response.vectors[index].size() != response.vectors[0].size()) {
      return BadResponse{"embedding " + std::to_string(index) + " has " +
                         std::to_string(response.vectors[index].size()) + " values, embedding 0 has " +
                         std::to_string(response.vectors[0].size())};
    }
  }

  const json* usage = member(parsed, "usage");
  if (auto prompt = usage != nullptr ? integer_member(*usage, "prompt_tokens") : std::nullopt) {
    response.usage.prompt_tokens = *prompt;
  } else {
    for (const auto& input : inputs) response.usage.prompt_tokens += estimate_tokens(input);
    response.usage.estimated = true;
  }
  return response;
}

std::string error_summary(std::string_view body, std::size_t max_bytes) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string text;
  if (!parsed.is_discarded()) {
    // {"error": {"message": ...}} (OpenAI), {"error": "..."}, {"message": ...} (vLLM), {"detail": ...}.
    const json* error = member(parsed, "error");
    if (error != nullptr && error->is_string()) {
      text = error->get<std::string>();
    } else if (error != nullptr) {
      text = string_or_empty(member(*error, "message"));
    }
    if (text.empty()) text = string_or_empty(member(parsed, "message"));
    if (text.empty()) text = string_or_empty(member(parsed, "detail"));
  }
  if (text.empty()) text = std::string(body);
  return truncate_utf8(one_line(text), max_bytes);
}

LogprobStats reduce_logprobs(const std::vector<double>& token_logprobs) {
  LogprobStats stats;
  if (token_logprobs.empty()) return stats;
  double sum = 0.0;
  stats.min_token_logprob = token_logprobs.front();
  for (double logprob : token_logprobs) {
    sum += logprob;
    stats.min_token_logprob = std::min(stats.min_token_logprob, logprob);
  }
  stats.tokens = static_cast<int>(token_logprobs.size());
  stats.perplexity = std::exp(-sum / static_cast<double>(token_logprobs.size()));
  return stats;
}

}  // namespace parley::openai
