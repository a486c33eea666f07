#include "llm/openai_json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "core/json_writer.h"
#include "core/utf8.h"
#include "llm/token_split.h"

namespace parley::openai {
namespace {

using simdjson::dom::element;

// Control characters would break the one-line promise of CallError::message.
std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c);
  return out;
}

// ---- UTF-8 -----------------------------------------------------------------------------------

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

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

// ---- Repairing a server's JSON text ----------------------------------------------------------

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

// A whole-number literal outside the 64-bit integers (below -2^63 or above 2^64 - 1). Such a
// number is read as a double, as a JSON parser without big integers reads it.
bool is_integer_beyond_64_bits(std::string_view token) {
  const bool negative = token.front() == '-';
  const std::string_view digits = token.substr(negative ? 1 : 0);
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const std::string_view largest = negative ? "9223372036854775808" : "18446744073709551615";
  return digits.size() > largest.size() || (digits.size() == largest.size() && digits > largest);
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
      if (is_unreadable_number(token)) {
        out.append("null");
      } else {
        out.append(token);
        if (is_integer_beyond_64_bits(token)) out.append(".0");
      }
      at = end;
    } else {
      out.push_back(c);
      ++at;
    }
  }
  return repaired;
}

// ---- Reading a server's JSON -----------------------------------------------------------------

// A body parsed with simdjson: the document as sent when it parses, otherwise as repaired
// (repairing copies the whole body, so it is done only for a body that needs it). Its root is
// valid while this object lives. Bodies up to kSharedParserBytes share one parser per thread,
// whose buffers are reused; a larger body (or one parsed while the shared parser is in use) gets
// a parser of its own, so one huge reply does not keep its buffers for the rest of the run.
class JsonBody {
 public:
  static constexpr std::size_t kSharedParserBytes = std::size_t{64} << 10;

  explicit JsonBody(std::string_view body) {
    // A byte-order mark opens some files served as JSON; nlohmann::json skipped it, simdjson does not.
    constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
    if (body.starts_with(kByteOrderMark)) body.remove_prefix(kByteOrderMark.size());
    if (body.size() <= kSharedParserBytes && !shared_in_use_) {
      shared_in_use_ = true;
      parser_ = &shared_parser();
    } else {
      own_ = std::make_unique<simdjson::dom::parser>();
      parser_ = own_.get();
    }
    if (parser_->parse(body.data(), body.size()).get(root_) == simdjson::SUCCESS) {
      parsed_ = true;
      return;
    }
    const RepairedJson repaired = repair_json_text(body);
    parsed_ = parser_->parse(repaired.text).get(root_) == simdjson::SUCCESS;
    replaced_utf8_ = parsed_ && repaired.replaced_utf8;
  }
  ~JsonBody() {
    if (own_ == nullptr) shared_in_use_ = false;
  }
  JsonBody(const JsonBody&) = delete;
  JsonBody& operator=(const JsonBody&) = delete;

  // The document's root; nullptr when the body is not JSON even once repaired.
  const element* root() const { return parsed_ ? &root_ : nullptr; }
  // Whether invalid UTF-8 or an unpaired surrogate escape was replaced by U+FFFD.
  bool replaced_utf8() const { return replaced_utf8_; }

 private:
  static simdjson::dom::parser& shared_parser() {
    thread_local simdjson::dom::parser parser;
    return parser;
  }
  static thread_local bool shared_in_use_;

  std::unique_ptr<simdjson::dom::parser> own_;
  simdjson::dom::parser* parser_ = nullptr;
  element root_;
  bool parsed_ = false;
  bool replaced_utf8_ = false;
};

thread_local bool JsonBody::shared_in_use_ = false;

// The body's root as a JSON object; or why it is not one.
std::variant<element, BadResponse> object_root(const JsonBody& parsed, std::string_view body,
                                               std::vector<std::string>& warnings) {
  const element* root = parsed.root();
  if (root == nullptr) return BadResponse{"invalid JSON in response: " + error_summary(body, 80)};
  if (!root->is_object()) return BadResponse{"response is not a JSON object"};
  if (parsed.replaced_utf8()) warnings.emplace_back("invalid UTF-8 in the reply replaced by U+FFFD");
  return *root;
}

// object.<name>; nullopt when `object` is not an object or has no such member. Of repeated
// names the last counts, as it did when replies were read with nlohmann::json.
std::optional<element> member(const element& object, std::string_view name) {
  simdjson::dom::object fields;
  if (object.get_object().get(fields) != simdjson::SUCCESS) return std::nullopt;
  std::optional<element> found;
  for (const auto field : fields) {
    if (field.key == name) found = field.value;
  }
  return found;
}

std::optional<element> member(const std::optional<element>& object, std::string_view name) {
  return object ? member(*object, name) : std::nullopt;
}

std::string string_or_empty(const std::optional<element>& value) {
  std::string_view text;
  if (!value || value->get_string().get(text) != simdjson::SUCCESS) return {};
  return std::string(text);
}

// A number's value (either integer kind converted); callers checked is_number().
double number_of(const element& value) {
  double number = 0.0;
  return value.get_double().get(number) == simdjson::SUCCESS ? number : 0.0;
}

// ---- Usage and log-probabilities: believed only when plausible -------------------------------

// The largest token count believed for `bytes` bytes of text (see the header).
std::int64_t plausible_tokens(std::size_t bytes) {
  return kUsageSlackTokens + kUsageTokensPerByte * static_cast<std::int64_t>(bytes);
}

nlohmann::json to_nlohmann(const element& value) {
  simdjson::dom::array items;
  simdjson::dom::object fields;
  std::string_view text;
  if (value.get_array().get(items) == simdjson::SUCCESS) {
    nlohmann::json array = nlohmann::json::array();
    for (const element item : items) array.push_back(to_nlohmann(item));
    return array;
  }
  if (value.get_object().get(fields) == simdjson::SUCCESS) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto field : fields) object[std::string(field.key)] = to_nlohmann(field.value);
    return object;
  }
  if (value.get_string().get(text) == simdjson::SUCCESS) return std::string(text);
  if (value.is_int64()) return value.get_int64().value_unsafe();
  if (value.is_uint64()) return value.get_uint64().value_unsafe();
  if (value.is_number()) return number_of(value);
  bool flag = false;
  if (value.get_bool().get(flag) == simdjson::SUCCESS) return flag;
  return nullptr;
}

// A JSON value as a one-line warning quotes it (written by nlohmann::json, as it always was:
// warnings are rare, and their text stays the same).
std::string quoted(const element& value) {
  return shorten_utf8(to_nlohmann(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 40);
}

// object.<name> as a whole number from 0 to `limit`; otherwise nullopt and why (also when it
// is missing). `field` names it in the reason.
std::optional<std::int64_t> token_count(const element& object, const char* name, const std::string& field,
                                        std::int64_t limit, std::string& problem) {
  const std::optional<element> value = member(object, name);
  if (!value) {
    problem = field + " is missing";
    return std::nullopt;
  }
  if (!value->is_number()) {
    problem = fmt::format("{} {} is not a number", field, quoted(*value));
    return std::nullopt;
  }
  const double number = number_of(*value);  // exact for every count a limit lets through
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

// The body's usage object when it has any of `counts`; nullopt when the server sent no counts
// (servers differ: usage may be absent, null, or an object without counts).
std::optional<element> usage_object(const element& body, std::initializer_list<const char*> counts) {
  const std::optional<element> usage = member(body, "usage");
  for (const char* name : counts) {
    if (member(usage, name)) return usage;
  }
  return std::nullopt;
}

void warn_usage_not_believed(const std::string& problem, std::vector<std::string>& warnings) {
  warnings.push_back("usage not believed, tokens estimated: " + problem);
}

// The server's chat usage when it is believable (see the header); otherwise nullopt, with a
// warning when counts were sent but not believed.
std::optional<Usage> chat_usage(const element& body, std::int64_t prompt_limit, std::int64_t completion_limit,
                                std::vector<std::string>& warnings) {
  const std::optional<element> usage = usage_object(body, {"prompt_tokens", "completion_tokens"});
  if (!usage) return std::nullopt;
  std::string problem;
  const auto prompt = token_count(*usage, "prompt_tokens", "usage.prompt_tokens", prompt_limit, problem);
  const auto completion =
      prompt ? token_count(*usage, "completion_tokens", "usage.completion_tokens", completion_limit, problem)
             : std::nullopt;
  if (prompt && completion) {
    Usage counted{*prompt, *completion, 0, false};
    const std::optional<element> details = member(*usage, "prompt_tokens_details");
    const std::optional<element> cached = member(details, "cached_tokens");
    if (!cached || cached->is_null()) return counted;  // servers without a prompt cache
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
std::optional<LogprobStats> logprob_stats(const element& choice, std::vector<std::string>& warnings) {
  const std::optional<element> content = member(member(choice, "logprobs"), "content");
  if (!content || content->is_null()) return std::nullopt;
  simdjson::dom::array tokens;
  if (content->get_array().get(tokens) != simdjson::SUCCESS) {
    warnings.emplace_back("logprobs dropped: logprobs.content is not an array");
    return std::nullopt;
  }
  std::vector<double> values;
  values.reserve(tokens.size());
  for (const element token : tokens) {
    const std::optional<element> logprob = member(token, "logprob");
    if (!logprob || !logprob->is_number() || !std::isfinite(number_of(*logprob))) {
      warnings.push_back(fmt::format("logprobs dropped: token {} has no finite logprob ({})", values.size(),
                                     logprob ? quoted(*logprob) : std::string("none")));
      return std::nullopt;
    }
    values.push_back(number_of(*logprob));
  }
  if (values.empty()) return std::nullopt;
  return reduce_logprobs(values);
}

// One embedding's values; nullopt unless it is an array of finite numbers (an overflowing
// literal reaches here as null).
std::optional<std::vector<double>> finite_numbers(const std::optional<element>& values) {
  simdjson::dom::array array;
  if (!values || values->get_array().get(array) != simdjson::SUCCESS) return std::nullopt;
  std::vector<double> out;
  out.reserve(array.size());
  for (const element value : array) {
    if (!value.is_number() || !std::isfinite(number_of(value))) return std::nullopt;
    out.push_back(number_of(value));
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

// Written directly rather than through a JSON tree (building the tree cost more than the rest of
// a call); JsonWriter writes the bytes nlohmann::json's dump() wrote (keys in sorted order, as
// its std::map kept them).
std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const Sampling& sampling, int n) {
  std::size_t size = 160 + model.size();
  for (const auto& m : messages) size += 32 + m.role.size() + m.content.size();
  std::string body;
  body.reserve(size + size / 16);  // room for a few escapes
  JsonWriter json(body);
  json.begin_object();
  if (sampling.logprobs) json.key("logprobs").boolean(true);
  json.key("max_tokens").number(sampling.max_tokens);
  json.key("messages").begin_array();
  for (const auto& m : messages) {
    json.begin_object().key("content").string(m.content).key("role").string(m.role).end_object();
  }
  json.end_array();
  json.key("model").string(model);
  if (n > 1) json.key("n").number(n);
  if (sampling.seed) json.key("seed").number(*sampling.seed);
  json.key("temperature").number(sampling.temperature);
  json.key("top_p").number(sampling.top_p);
  json.end_object();
  return body;
}

namespace {

// The index of the choice at `position`: its "index" (or its position when it has none, or
// null), checked to be a whole number below `count`.
std::variant<std::size_t, BadResponse> choice_index(const element& choice, std::size_t position, std::size_t count) {
  const std::optional<element> given = member(choice, "index");
  if (!given || given->is_null()) return position;
  std::uint64_t value = 0;
  if (given->get_uint64().get(value) != simdjson::SUCCESS)
    return BadResponse{"choice index " + quoted(*given) + " is not a non-negative integer"};
  if (value >= count)
    return BadResponse{"choice index " + std::to_string(value) + " is out of range for " + std::to_string(count) +
                       (count == 1 ? " choice" : " choices")};
  return static_cast<std::size_t>(value);
}

// Servers may send a reply's choices in any order: `sorted` gets them in the order of their
// index, or stays empty when they already stand in it (the usual case, which then costs no
// copy). Each index must appear once.
std::optional<BadResponse> sort_choices(const simdjson::dom::array& choice_list, std::vector<element>& sorted) {
  const std::size_t count = choice_list.size();
  bool in_order = true;
  std::size_t position = 0;
  for (const element choice : choice_list) {
    auto index = choice_index(choice, position, count);
    if (auto* bad = std::get_if<BadResponse>(&index)) return std::move(*bad);
    in_order = in_order && std::get<std::size_t>(index) == position;
    ++position;
  }
  if (in_order) return std::nullopt;
  sorted.resize(count);
  std::vector<bool> placed(count, false);
  position = 0;
  for (const element choice : choice_list) {
    const std::size_t index = std::get<std::size_t>(choice_index(choice, position++, count));
    if (placed[index]) return BadResponse{"choice index " + std::to_string(index) + " appears twice"};
    placed[index] = true;
    sorted[index] = choice;
  }
  return std::nullopt;
}

}  // namespace

std::variant<std::vector<ChatResponse>, BadResponse> parse_chat_choices(std::string_view body,
                                                                        const ChatRequest& request, int n) {
  std::vector<std::string> reply_warnings;  // about the whole reply, given to every choice
  const JsonBody json(body);
  auto object = object_root(json, body, reply_warnings);
  if (auto* bad = std::get_if<BadResponse>(&object)) return std::move(*bad);
  const element& parsed = std::get<element>(object);
  const std::optional<element> choices = member(parsed, "choices");
  simdjson::dom::array choice_list;
  if (!choices || choices->get_array().get(choice_list) != simdjson::SUCCESS || choice_list.size() == 0)
    return BadResponse{"response has no choices"};
  std::vector<element> sorted;
  if (auto bad = sort_choices(choice_list, sorted)) return std::move(*bad);
  std::vector<ChatResponse> responses(
      std::min<std::size_t>(choice_list.size(), static_cast<std::size_t>(std::max(n, 1))));
  std::vector<std::vector<std::string>> choice_warnings(responses.size());
  std::int64_t completion_limit = 0;
  std::vector<std::int64_t> completion_estimates;
  completion_estimates.reserve(responses.size());
  std::size_t index = 0;
  for (; index < responses.size(); ++index) {
    // at() walks the array, but only as far as the few choices asked.
    const element choice = sorted.empty() ? choice_list.at(index).value_unsafe() : sorted[index];
    ChatResponse& response = responses[index];
    const std::optional<element> message = member(choice, "message");
    if (!message || !message->is_object()) return BadResponse{"response choice has no message"};
    const std::optional<element> content = member(*message, "content");
    if (content && !content->is_string() && !content->is_null())
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
  for (index = 0; index < responses.size(); ++index) {
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

std::string embedding_request_body(const std::string& model, const std::vector<std::string>& inputs) {
  std::size_t size = 64 + model.size();
  for (const auto& input : inputs) size += 4 + input.size();
  std::string body;
  body.reserve(size + size / 16);
  JsonWriter json(body);
  json.begin_object().key("encoding_format").string("float").key("input").begin_array();
  for (const auto& input : inputs) json.string(input);  // texts may hold bad UTF-8
  json.end_array().key("model").string(model).end_object();
  return body;
}

std::variant<EmbeddingResponse, BadResponse> parse_embedding_response(
    std::string_view body, const std::vector<std::string>& inputs) {
  EmbeddingResponse response;
  const JsonBody json(body);
  auto object = object_root(json, body, response.warnings);
  if (auto* bad = std::get_if<BadResponse>(&object)) return std::move(*bad);
  const element& parsed = std::get<element>(object);
  const std::optional<element> data = member(parsed, "data");
  simdjson::dom::array items;
  if (!data || data->get_array().get(items) != simdjson::SUCCESS)
    return BadResponse{"response has no data array"};
  const std::size_t count = inputs.size();
  if (items.size() != count) {
    return BadResponse{"response has " + std::to_string(items.size()) + " embeddings for " +
                       std::to_string(count) + " inputs"};
  }

  response.vectors.resize(count);
  std::vector<bool> placed(count, false);
  std::size_t position = 0;
  for (const element item : items) {
    std::size_t index = position++;
    if (const std::optional<element> given = member(item, "index")) {
      std::uint64_t value = 0;
      if (given->get_uint64().get(value) != simdjson::SUCCESS)
        return BadResponse{"embedding index is not a non-negative integer"};
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
  if (const std::optional<element> usage = usage_object(parsed, {"prompt_tokens"})) {
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
  std::string text;
  const JsonBody json(body);
  if (const element* parsed = json.root()) {
    // {"error": {"message": ...}} (OpenAI), {"error": "..."}, {"message": ...} (vLLM), {"detail": ...}.
    const std::optional<element> error = member(*parsed, "error");
    if (error && error->is_string()) {
      text = string_or_empty(error);
    } else if (error) {
      text = string_or_empty(member(*error, "message"));
    }
    if (text.empty()) text = string_or_empty(member(*parsed, "message"));
    if (text.empty()) text = string_or_empty(member(*parsed, "detail"));
  }
  if (text.empty()) text = replace_invalid_utf8(body);
  return shorten_utf8(one_line(text), max_bytes);
}

namespace {

// In a Python repr of validation errors ("[{'type': ..., 'loc': ('body', 'n'), ...}]"), whether a
// field location ends in one of `fields` (each quoted, as 'n'); nullopt when `message` (lower
// case) is no such repr. Such a repr quotes the request back ('n': 3) whatever the error was
// about, so only the locations count.
std::optional<bool> repr_location_names(std::string_view message,
                                        std::initializer_list<std::string_view> fields) {
  const std::size_t first = message.find("'loc':");
  if (first == std::string_view::npos) return std::nullopt;
  for (std::size_t at = first; at != std::string_view::npos; at = message.find("'loc':", at + 1)) {
    const std::size_t close = message.find_first_of(")]", at);
    if (close == std::string_view::npos) continue;
    std::string_view location = message.substr(at, close - at);
    while (location.ends_with(' ') || location.ends_with(',')) location.remove_suffix(1);
    for (const std::string_view field : fields)
      if (location.ends_with(field)) return true;
  }
  return false;
}

std::string lower_case(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Whether one error message names n: quoted ('n', "n", `n`), as the subject of a rule ("n must
// be 1", "n > 1", "only n=1", "n != 1", "n: 4 exceeds ..."), as the argument a sentence ends on
// ("Unrecognized request argument supplied: n"), or in the words of servers that answer one
// choice only. In a Python repr of validation errors only a field location ending in 'n' counts.
bool message_names_n(const std::string& text) {
  const std::string message = lower_case(text);
  if (const auto located = repr_location_names(message, {"'n'"})) return *located;
  for (const std::string_view quoted : {"'n'", "\"n\"", "`n`"}) {
    if (message.find(quoted) != std::string::npos) return true;
  }
  for (const std::string_view phrase : {"completion choice", "parallel sampling"}) {
    if (message.find(phrase) != std::string::npos) return true;
  }
  // A word "n" (not part of "top-n", "n_ctx" or "n/a") followed by a rule about it, or ending
  // the message.
  const auto joins_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
  for (std::size_t at = message.find('n'); at != std::string::npos; at = message.find('n', at + 1)) {
    if (at > 0 && joins_word(message[at - 1])) continue;
    std::string_view rest = std::string_view(message).substr(at + 1);
    if (!rest.empty() && (joins_word(rest.front()) || rest.front() == '/')) continue;
    const std::size_t spaces = rest.find_first_not_of(' ');
    if (spaces == std::string_view::npos) return true;  // "... supplied: n"
    rest.remove_prefix(spaces);
    if ((spaces > 0 && rest.starts_with("must ")) || rest.starts_with('>') || rest.starts_with('<') ||
        rest.starts_with('=') || rest.starts_with("!=") || rest.starts_with(':') || rest == ".") {
      return true;
    }
  }
  return false;
}

// Whether one error message names log-probabilities: "logprobs", "top_logprobs", "log_probs",
// "log probabilities" in any case. The word is distinctive, so any mention counts, except in a
// Python repr of validation errors, where only a field location ending in 'logprobs' or
// 'top_logprobs' does (see repr_location_names).
bool message_names_logprobs(const std::string& text) {
  const std::string message = lower_case(text);
  if (const auto located = repr_location_names(message, {"'logprobs'", "'top_logprobs'"})) return *located;
  for (const std::string_view word : {"logprob", "log_prob", "log prob"}) {
    if (message.find(word) != std::string::npos) return true;
  }
  return false;
}

// What a JSON error object says went wrong: the request fields it names (error.param; the last
// part of each FastAPI/pydantic validation error's loc) and its messages (error as a string,
// error.message, message, detail, each detail[].msg). Only these are read — never the raw body
// (an HTML error page, a traceback) nor the request a server echoes back in a validation error.
struct ErrorSays {
  std::vector<std::string> fields;
  std::vector<std::string> messages;
};

ErrorSays what_the_error_says(std::string_view body) {
  ErrorSays says;
  const JsonBody json(body);
  const element* root = json.root();
  if (root == nullptr || !root->is_object()) return says;
  const std::optional<element> error = member(*root, "error");
  if (error) says.fields.push_back(string_or_empty(member(*error, "param")));
  if (error && error->is_string()) says.messages.push_back(string_or_empty(error));
  if (error) says.messages.push_back(string_or_empty(member(*error, "message")));
  says.messages.push_back(string_or_empty(member(*root, "message")));
  // {"detail": "..."}, or FastAPI's list of validation errors, each with its field's location.
  if (const std::optional<element> detail = member(*root, "detail")) {
    says.messages.push_back(string_or_empty(detail));
    simdjson::dom::array problems;
    if (detail->get_array().get(problems) == simdjson::SUCCESS) {
      for (const element problem : problems) {
        simdjson::dom::array location;
        if (const auto loc = member(problem, "loc"); loc && loc->get_array().get(location) == simdjson::SUCCESS) {
          std::optional<element> last;
          for (const element part : location) last = part;
          if (last) says.fields.push_back(string_or_empty(last));
        }
        says.messages.push_back(string_or_empty(member(problem, "msg")));
      }
    }
  }
  return says;
}

// Whether the error names one of `fields`, or one of its messages passes `names`.
bool error_names(std::string_view body, std::initializer_list<std::string_view> fields,
                 bool (*names)(const std::string&)) {
  const ErrorSays says = what_the_error_says(body);
  for (const std::string& field : says.fields)
    if (std::find(fields.begin(), fields.end(), field) != fields.end()) return true;
  return std::any_of(says.messages.begin(), says.messages.end(),
                     [names](const std::string& message) { return !message.empty() && names(message); });
}

}  // namespace

bool refuses_n(std::string_view body) { return error_names(body, {"n"}, message_names_n); }

bool refuses_logprobs(std::string_view body) {
  return error_names(body, {"logprobs", "top_logprobs"}, message_names_logprobs);
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
