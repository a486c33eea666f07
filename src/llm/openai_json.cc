#include "llm/openai_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <utility>

#include <fmt/format.h>
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


const json* member(const json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

std::string string_or_empty(const json* value) {
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// ---- Repairing a server's JSON text ----------------------------------------------------------

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// The length of the UTF-8 sequence at text[at] and whether it is valid (shortest form, no
// surrogates, at most U+10FFFF). An invalid one's length is its longest valid prefix (at least
// 1 byte), so each broken sequence becomes one U+FFFD, as the Unicode standard recommends.
std::pair<std::size_t, bool> utf8_sequence(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead < 0x80) return {1, true};
  std::size_t continuation = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range allowed for the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuation = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuation = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuation = 3;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return {1, false};
  }
  for (std::size_t k = 1; k <= continuation; ++k) {
    if (at + k >= text.size()) return {k, false};
    const auto byte = static_cast<unsigned char>(text[at + k]);
    if (byte < (k == 1 ? low : 0x80) || byte > (k == 1 ? high : 0xBF)) return {k, false};
  }
  return {continuation + 1, true};
}

// Appends the UTF-8 sequence at text[at], or U+FFFD for an invalid one; returns its length.
std::size_t append_utf8_sequence(std::string_view text, std::size_t at, std::string& out, bool& replaced) {
  const auto [length, valid] = utf8_sequence(text, at);
  if (valid) {
    out.append(text.substr(at, length));
  } else {
    out.append(kReplacementCharacter);
    replaced = true;
  }
  return length;
}

std::string replace_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool replaced = false;
  for (std::size_t at = 0; at < text.size();) at += append_utf8_sequence(text, at, out, replaced);
  return out;
}

// The code unit of a "\uXXXX" escape at text[at], or nullopt when there is none.
std::optional<unsigned> unicode_escape(std::string_view text, std::size_t at) {
  if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u') return std::nullopt;
  unsigned value = 0;
  for (std::size_t k = 2; k < 6; ++k) {
    const char c = text[at + k];
    unsigned digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<unsigned>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<unsigned>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    value = value * 16 + digit;
  }
  return value;
}

bool is_bare_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '+' ||
         c == '.';
}

// A bare token (outside strings) meant as a number that no JSON parser reads: NaN, Infinity,
// or a literal beyond a double's range.
bool is_unreadable_number(std::string_view token) {
  if (token == "NaN" || token == "Infinity" || token == "-Infinity" || token == "+Infinity") return true;
  const char first = token.front();
  if (first != '-' && (first < '0' || first > '9')) return false;  // true, false, null or garbage
  // Only an exponent or a very long literal can overflow; strtod is skipped for the others.
  if (token.find_first_of("eE") == std::string_view::npos && token.size() < 300) return false;
  const std::string literal(token);
  return !std::isfinite(std::strtod(literal.c_str(), nullptr));
}

struct RepairedJson {
  std::string text;
  bool replaced_utf8 = false;  // invalid UTF-8 or an unpaired surrogate escape became U+FFFD
};

// The body with what would make the whole reply unreadable repaired (see the header), in one
// pass that knows whether it is inside a string.
RepairedJson repair_json_text(std::string_view body) {
  RepairedJson repaired;
  std::string& out = repaired.text;
  out.reserve(body.size());
  bool in_string = false;
  for (std::size_t at = 0; at < body.size();) {
    const char c = body[at];
    if (static_cast<unsigned char>(c) >= 0x80) {
      at += append_utf8_sequence(body, at, out, repaired.replaced_utf8);
    } else if (in_string && c == '\\') {
      const auto unit = unicode_escape(body, at);
      if (unit && *unit >= 0xD800 && *unit <= 0xDFFF) {
        const auto next = unicode_escape(body, at + 6);
        if (*unit <= 0xDBFF && next && *next >= 0xDC00 && *next <= 0xDFFF) {
          out.append(body.substr(at, 12));  // a surrogate pair
          at += 12;
        } else {
          out.append("\\ufffd");
          repaired.replaced_utf8 = true;
          at += 6;
        }
      } else {
        // Any other escape is copied with the character it escapes (\" does not end the string).
        const std::size_t length = std::min<std::size_t>(2, body.size() - at);
        out.append(body.substr(at, length));
        at += length;
      }
    } else if (c == '"') {
      in_string = !in_string;
      out.push_back(c);
      ++at;
    } else if (!in_string && is_bare_token_char(c)) {
      std::size_t end = at;
      while (end < body.size() && is_bare_token_char(body[end])) ++end;
      const std::string_view token = body.substr(at, end - at);
      out.append(is_unreadable_number(token) ? std::string_view("null") : token);
      at = end;
    } else {
      out.push_back(c);
      ++at;
    }
  }
  return repaired;
}

// The body, repaired, as a JSON object; or why it is not one.
std::variant<json, BadResponse> parse_object(std::string_view body, std::vector<std::string>& warnings) {
  const RepairedJson repaired = repair_json_text(body);
  json parsed = json::parse(repaired.text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return BadResponse{"invalid JSON in response: " + error_summary(body, 80)};
  if (!parsed.is_object()) return BadResponse{"response is not a JSON object"};
  if (repaired.replaced_utf8) warnings.emplace_back("invalid UTF-8 in the reply replaced by U+FFFD");
  return parsed;
}

// ---- Usage and log-probabilities: believed only when plausible -------------------------------

// The largest token count believed for `bytes` bytes of text (see the header).
std::int64_t plausible_tokens(std::size_t bytes) {
  return kUsageSlackTokens + kUsageTokensPerByte * static_cast<std::int64_t>(bytes);
}

// A JSON value as a one-line warning quotes it.
std::string quoted(const json& value) {
  return shorten_utf8(value.dump(-1, ' ', false, json::error_handler_t::replace), 40);
}

// object.<name> as a whole number from 0 to `limit`; otherwise nullopt and why (also when it
// is missing). `field` names it in the reason.
std::optional<std::int64_t> token_count(const json& object, const char* name, const std::string& field,
                                        std::int64_t limit, std::string& problem) {
  const json* value = member(object, name);
  if (value == nullptr) {
    problem = field + " is missing";
    return std::nullopt;
  }
  if (!value->is_number()) {
    problem = fmt::format("{} {} is not a number", field, quoted(*value));
    return std::nullopt;
  }
  const double number = value->get<double>();  // exact for every count a limit lets through
  if (number != std::floor(number)) {
    problem = fmt::format("{} {} is not a whole number", field, quoted(*value));
  } else if (number < 0) {
    problem = fmt::format("{} {} is negative", field, quoted(*value));
  } else if (number > static_cast<double>(limit)) {
    problem = fmt::format("{} {} is more than {}, the most this call can plausibly use", field, quoted(*value),
                          limit);
  } else {
    return static_cast<std::int64_t>(number);
  }
  return std::nullopt;
}

// The body's usage object when it has any of `counts`; nullptr when the server sent no counts
// (servers differ: usage may be absent, null, or an object without counts).
const json* usage_object(const json& body, std::initializer_list<const char*> counts) {
  const json* usage = member(body, "usage");
  if (usage == nullptr) return nullptr;
  for (const char* name : counts) {
    if (member(*usage, name) != nullptr) return usage;
  }
  return nullptr;
}

void warn_usage_not_believed(const std::string& problem, std::vector<std::string>& warnings) {
  warnings.push_back("usage not believed, tokens estimated: " + problem);
}

// The server's chat usage when it is believable (see the header); otherwise nullopt, with a
// warning when counts were sent but not believed.
std::optional<Usage> chat_usage(const json& body, std::int64_t prompt_limit, std::int64_t completion_limit,
                                std::vector<std::string>& warnings) {
  const json* usage = usage_object(body, {"prompt_tokens", "completion_tokens"});
  if (usage == nullptr) return std::nullopt;
  std::string problem;
  const auto prompt = token_count(*usage, "prompt_tokens", "usage.prompt_tokens", prompt_limit, problem);
  const auto completion =
      prompt ? token_count(*usage, "completion_tokens", "usage.completion_tokens", completion_limit, problem)
             : std::nullopt;
  if (prompt && completion) {
    Usage counted{*prompt, *completion, 0, false};
    const json* details = member(*usage, "prompt_tokens_details");
    const json* cached = details != nullptr ? member(*details, "cached_tokens") : nullptr;
    if (cached == nullptr || cached->is_null()) return counted;  // servers without a prompt cache
    const auto count = token_count(*details, "cached_tokens", "usage.prompt_tokens_details.cached_tokens",
                                   *prompt, problem);
    if (count) {
      counted.cached_tokens = *count;
      return counted;
    }
  }
  warn_usage_not_believed(problem, warnings);
  return std::nullopt;
}

// The reply's log-probability statistics; nullopt when the server sent none, or (with a
// warning) when they cannot be believed: one token without a finite logprob spoils them all.
std::optional<LogprobStats> logprob_stats(const json& choice, std::vector<std::string>& warnings) {
  const json* logprobs = member(choice, "logprobs");
  const json* content = logprobs != nullptr ? member(*logprobs, "content") : nullptr;
  if (content == nullptr || content->is_null()) return std::nullopt;
  if (!content->is_array()) {
    warnings.emplace_back("logprobs dropped: logprobs.content is not an array");
    return std::nullopt;
  }
  std::vector<double> values;
  values.reserve(content->size());
  for (std::size_t index = 0; index < content->size(); ++index) {
    const json* logprob = member((*content)[index], "logprob");
    if (logprob == nullptr || !logprob->is_number() || !std::isfinite(logprob->get<double>())) {
      warnings.push_back(fmt::format("logprobs dropped: token {} has no finite logprob ({})", index,
                                     logprob == nullptr ? std::string("none") : quoted(*logprob)));
      return std::nullopt;
    }
    values.push_back(logprob->get<double>());
  }
  if (values.empty()) return std::nullopt;
  return reduce_logprobs(values);
}

// One embedding's values; nullopt unless it is an array of finite numbers (an overflowing
// literal reaches here as null).
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

}  // namespace

std::string shorten_utf8(std::string text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "...";
}

std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const Sampling& sampling, int n) {
  json list = json::array();
  for (const auto& m : messages) list.push_back({{"role", m.role}, {"content", m.content}});
  json body = {{"model", model},
               {"messages", std::move(list)},
               {"temperature", sampling.temperature},
               {"top_p", sampling.top_p},
               {"max_tokens", sampling.max_tokens}};
  if (sampling.seed) body["seed"] = *sampling.seed;
  if (sampling.logprobs) body["logprobs"] = true;
  if (n > 1) body["n"] = n;
  // Prompts come from datasets; replace bad UTF-8 rather than fail the call.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::variant<std::vector<ChatResponse>, BadResponse> parse_chat_choices(std::string_view body,
                                                                        const ChatRequest& request, int n) {
  std::vector<std::string> reply_warnings;  // about the whole reply, given to every choice
  auto object = parse_object(body, reply_warnings);
  if (auto* bad = std::get_if<BadResponse>(&object)) return std::move(*bad);
  const json& parsed = std::get<json>(object);
  const json* choices = member(parsed, "choices");
  if (choices == nullptr || !choices->is_array() || choices->empty())
    return BadResponse{"response has no choices"};
  std::vector<ChatResponse> responses(
      std::min<std::size_t>(choices->size(), static_cast<std::size_t>(std::max(n, 1))));
  std::vector<std::vector<std::string>> choice_warnings(responses.size());
  std::int64_t completion_limit = 0;
  std::vector<std::int64_t> completion_estimates;
  for (std::size_t index = 0; index < responses.size(); ++index) {
    const json& choice = (*choices)[index];
    ChatResponse& response = responses[index];
    const json* message = member(choice, "message");
    if (message == nullptr || !message->is_object()) return BadResponse{"response choice has no message"};
    const json* content = member(*message, "content");
    if (content != nullptr && !content->is_string() && !content->is_null())
      return BadResponse{"response message content is not a string"};
    response.text = string_or_empty(content);
    // vLLM and DeepSeek say reasoning_content; some servers (Ollama, OpenRouter) say reasoning.
    response.reasoning = string_or_empty(member(*message, "reasoning_content"));
    if (response.reasoning.empty()) response.reasoning = string_or_empty(member(*message, "reasoning"));
    response.finish_reason = string_or_empty(member(choice, "finish_reason"));
    response.logprobs = logprob_stats(choice, choice_warnings[index]);
    completion_limit += plausible_tokens(response.text.size() + response.reasoning.size()) +
                        std::max(request.sampling.max_tokens, 0);
    completion_estimates.push_back(estimate_tokens(response.text) + estimate_tokens(response.reasoning));
  }

  std::size_t prompt_bytes = 0;
  for (const auto& m : request.messages) prompt_bytes += m.content.size();
  const auto usage = chat_usage(parsed, plausible_tokens(prompt_bytes), completion_limit, reply_warnings);
  const std::vector<std::int64_t> completions =
      usage ? split_tokens(usage->completion_tokens, completion_estimates) : std::vector<std::int64_t>();
  for (std::size_t index = 0; index < responses.size(); ++index) {
    ChatResponse& response = responses[index];
    const bool first = index == 0;  // one request: its prompt is read, and billed, once
    if (usage) {
      response.usage = Usage{first ? usage->prompt_tokens : 0, completions[index],
                             first ? usage->cached_tokens : 0, false};
    } else {
      response.usage.prompt_tokens = first ? estimate_prompt_tokens(request.messages) : 0;
      response.usage.completion_tokens = estimate_tokens(response.text);
      response.usage.estimated = true;
    }
    response.warnings = reply_warnings;
    response.warnings.insert(response.warnings.end(), choice_warnings[index].begin(),
                             choice_warnings[index].end());
  }
  return responses;
}

std::variant<ChatResponse, BadResponse> parse_chat_response(std::string_view body, const ChatRequest& request) {
  auto choices = parse_chat_choices(body, request, 1);
  if (auto* bad = std::get_if<BadResponse>(&choices)) return std::move(*bad);
  return std::move(std::get<std::vector<ChatResponse>>(choices).front());
}

std::vector<std::int64_t> split_tokens(std::int64_t total, const std::vector<std::int64_t>& weights) {
  std::vector<std::int64_t> parts(weights.size(), 0);
  if (weights.empty()) return parts;
  std::vector<std::int64_t> shares = weights;
  std::int64_t sum = 0;
  for (std::int64_t share : shares) sum += share;
  if (sum <= 0) {
    std::fill(shares.begin(), shares.end(), 1);
    sum = static_cast<std::int64_t>(shares.size());
  }
  // total · share / sum, computed as q · share + r · share / sum so that nothing overflows
  // for weights summing below 2^31.
  const std::int64_t quotient = total / sum;
  const std::int64_t rest = total % sum;
  std::vector<std::int64_t> remainders(shares.size());
  std::int64_t handed = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    parts[i] = quotient * shares[i] + rest * shares[i] / sum;
    remainders[i] = rest * shares[i] % sum;
    handed += parts[i];
  }
  std::vector<std::size_t> order(shares.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&remainders](std::size_t a, std::size_t b) { return remainders[a] > remainders[b]; });
  for (std::size_t k = 0; handed < total; ++k, ++handed) ++parts[order[k]];
  return parts;
}

std::string embedding_request_body(const std::string& model, const std::vector<std::string>& inputs) {
  json body = {{"model", model}, {"input", inputs}, {"encoding_format", "float"}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);  // texts may hold bad UTF-8
}

std::variant<EmbeddingResponse, BadResponse> parse_embedding_response(
    std::string_view body, const std::vector<std::string>& inputs) {
  EmbeddingResponse response;
  auto object = parse_object(body, response.warnings);
  if (auto* bad = std::get_if<BadResponse>(&object)) return std::move(*bad);
  const json& parsed = std::get<json>(object);
  const json* data = member(parsed, "data");
  if (data == nullptr || !data->is_array()) return BadResponse{"response has no data array"};
  const std::size_t count = inputs.size();
  if (data->size() != count) {
    return BadResponse{"response has " + std::to_string(data->size()) + " embeddings for " +
                       std::to_string(count) + " inputs"};
  }

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

  std::size_t input_bytes = 0;
  for (const auto& input : inputs) input_bytes += input.size();
  std::optional<std::int64_t> prompt;
  if (const json* usage = usage_object(parsed, {"prompt_tokens"})) {
    std::string problem;
    prompt = token_count(*usage, "prompt_tokens", "usage.prompt_tokens", plausible_tokens(input_bytes), problem);
    if (!prompt) warn_usage_not_believed(problem, response.warnings);
  }
  if (prompt) {
    response.usage.prompt_tokens = *prompt;
  } else {
    for (const auto& input : inputs) response.usage.prompt_tokens += estimate_tokens(input);
    response.usage.estimated = true;
  }
  return response;
}

std::string error_summary(std::string_view body, std::size_t max_bytes) {
  json parsed = json::parse(repair_json_text(body).text, nullptr, /*allow_exceptions=*/false);
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
  if (text.empty()) text = replace_invalid_utf8(body);
  return shorten_utf8(one_line(text), max_bytes);
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
