// Reply builders for FakeOpenAiServer: OpenAI-format bodies, the deterministic answer model
// and fault injection by request index.

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/fake_openai_server.h"

namespace parley::testing {
namespace {

using nlohmann::json;

// Bodies hold whatever text tests feed in; replace bad UTF-8 rather than throw mid-reply.
std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

std::int64_t ceil_quarter(std::size_t bytes) { return static_cast<std::int64_t>((bytes + 3) / 4); }

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// A message's text: a string, or the text parts of an array of content parts.
std::string message_text(const json& message) {
  auto content = message.find("content");
  if (content == message.end()) return {};
  if (content->is_string()) return content->get<std::string>();
  std::string text;
  if (content->is_array()) {
    for (const json& part : *content) {
      auto part_text = part.find("text");
      if (part.is_object() && part_text != part.end() && part_text->is_string())
        text += part_text->get<std::string>();
    }
  }
  return text;
}

// Splits `text` into `count` pieces on UTF-8 character boundaries, so the pieces concatenate
// back to the text the way real tokens do.
std::vector<std::string> split_into_tokens(const std::string& text, std::size_t count) {
  std::vector<std::string> tokens;
  std::size_t start = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t end = i + 1 == count ? text.size() : text.size() * (i + 1) / count;
    end = std::max(end, start);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    tokens.push_back(text.substr(start, end - start));
    start = end;
  }
  return tokens;
}

const char* error_type(int status) {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 404:
      return "not_found_error";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 500 ? "server_error" : "api_error";
  }
}

FakeResponse error_reply(int status, const std::string& message) {
  FakeResponse response;
  response.status = status;
  response.body = dump({{"error", {{"message", message}, {"type", error_type(status)}, {"code", status}}}});
  return response;
}

bool due(int period, std::uint64_t index) {
  return period > 0 && index % static_cast<std::uint64_t>(period) == static_cast<std::uint64_t>(period) - 1;
}

}  // namespace

std::string completion_body(const CompletionSpec& spec) {
  json message = {{"role", "assistant"}, {"content", spec.content}};
  if (spec.reasoning_content) message["reasoning_content"] = *spec.reasoning_content;
  json choice = {{"index", 0},
                 {"message", std::move(message)},
                 {"logprobs", nullptr},
                 {"finish_reason", spec.finish_reason}};
  if (!spec.token_logprobs.empty()) {
    json content = json::array();
    std::vector<std::string> tokens = split_into_tokens(spec.content, spec.token_logprobs.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      content.push_back(
          {{"token", tokens[i]}, {"logprob", spec.token_logprobs[i]}, {"top_logprobs", json::array()}});
    }
    choice["logprobs"] = {{"content", std::move(content)}};
  }
  json choices = json::array({std::move(choice)});
  for (const std::string& content : spec.more_choices) {
    choices.push_back({{"index", choices.size()},
                       {"message", {{"role", "assistant"}, {"content", content}}},
                       {"logprobs", nullptr},
                       {"finish_reason", spec.finish_reason}});
  }
  json body = {{"id", "chatcmpl-fake"},
               {"object", "chat.completion"},
               {"created", 1700000000},
               {"model", "fake-model"},
               {"choices", std::move(choices)}};
  if (spec.include_usage) {
    json usage = {{"prompt_tokens", spec.prompt_tokens},
                  {"completion_tokens", spec.completion_tokens},
                  {"total_tokens", spec.prompt_tokens + spec.completion_tokens}};
    if (spec.cached_tokens) usage["prompt_tokens_details"] = {{"cached_tokens", *spec.cached_tokens}};
    body["usage"] = std::move(usage);
  }
  return dump(body);
}

FakeResponse ok_reply(const CompletionSpec& spec) {
  FakeResponse response;
  response.body = completion_body(spec);
  return response;
}

FakeResponse embedding_reply(const std::vector<std::vector<double>>& vectors,
                             std::optional<std::int64_t> prompt_tokens) {
  json data = json::array();
  for (std::size_t i = 0; i < vectors.size(); ++i)
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", vectors[i]}});
  json body = {{"object", "list"}, {"model", "fake-embedder"}, {"data", std::move(data)}};
  if (prompt_tokens) body["usage"] = {{"prompt_tokens", *prompt_tokens}, {"total_tokens", *prompt_tokens}};
  FakeResponse response;
  response.body = dump(body);
  return response;
}

FakeResponse status_reply(int status, std::optional<int> retry_after_s) {
  FakeResponse response = error_reply(status, "fake server: HTTP " + std::to_string(status));
  if (retry_after_s) response.headers.emplace_back("Retry-After", std::to_string(*retry_after_s));
  return response;
}

FakeResponse invalid_json_reply() {
  FakeResponse response;
  response.body = "{\"id\": \"chatcmpl-fake\", \"choices\": [ this is not JSON";
  return response;
}

FakeResponse empty_choices_reply() {
  FakeResponse response;
  response.body = dump({{"id", "chatcmpl-fake"},
                        {"object", "chat.completion"},
                        {"created", 1700000000},
                        {"model", "fake-model"},
                        {"choices", json::array()},
                        {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 0}, {"total_tokens", 10}}}});
  return response;
}

FakeResponse answer_reply(const FakeRequest& request) {
  json chat = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (!chat.is_object() || !chat.contains("messages") || !chat["messages"].is_array()) {
    return error_reply(400, "fake server: expected a JSON chat request with a \"messages\" array");
  }
  std::size_t prompt_bytes = 0;
  std::string question;
  for (const json& message : chat["messages"]) {
    if (!message.is_object()) continue;
    std::string text = message_text(message);
    prompt_bytes += text.size();
    auto role = message.find("role");
    if (role != message.end() && *role == "user") question = std::move(text);
  }

  // Offered options are "(A)", "(B)", ... or lines "A. ...", "B. ...", counted from A while
  // consecutive, in any user message (later debate turns quote peers, not the options).
  auto offers = [&](char letter) {
    for (const json& message : chat["messages"]) {
      if (!message.is_object()) continue;
      auto role = message.find("role");
      if (role == message.end() || *role != "user") continue;
      const std::string text = message_text(message);
      if (text.find(std::string{'(', letter, ')'}) != std::string::npos ||
          text.find(std::string{'\n', letter, '.', ' '}) != std::string::npos)
        return true;
    }
    return false;
  };
  int options = 0;
  while (options < 4 && offers(static_cast<char>('A' + options))) ++options;
  const auto content_answering = [&](const std::string& text) {
    const std::uint64_t hash = fnv1a(text);
    const std::string answer =
        options > 0 ? std::string(1, static_cast<char>('A' + hash % static_cast<std::uint64_t>(options)))
                    : std::to_string(hash % 1000);
    return "Let me think step by step. Weighing the question carefully points to one answer.\nAnswer: " +
           answer + "\nConfidence: 80%";
  };
  const json& n = chat.contains("n") ? chat["n"] : json(1);
  const std::int64_t choices = n.is_number_integer() ? std::max<std::int64_t>(n.get<std::int64_t>(), 1) : 1;
  CompletionSpec spec;
  spec.content = content_answering(question);
  spec.completion_tokens = ceil_quarter(spec.content.size());
  for (std::int64_t i = 1; i < choices; ++i) {
    spec.more_choices.push_back(content_answering(question + " #" + std::to_string(i)));
    spec.completion_tokens += ceil_quarter(spec.more_choices.back().size());
  }
  spec.prompt_tokens = ceil_quarter(prompt_bytes);
  return ok_reply(spec);
}

namespace {

// The number of choices a chat request asks for ("n"; 1 when absent or not a number).
std::int64_t choices_asked(const FakeRequest& request) {
  const json chat = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (!chat.is_object() || !chat.contains("n") || !chat["n"].is_number_integer()) return 1;
  return chat["n"].get<std::int64_t>();
}

// The request without its "n".
FakeRequest without_n(const FakeRequest& request) {
  FakeRequest stripped = request;
  json chat = json::parse(request.body, nullptr, /*allow_exceptions=*/false);
  if (chat.is_object()) {
    chat.erase("n");
    stripped.body = dump(chat);
  }
  return stripped;
}

}  // namespace

Handler faulty_handler(FaultPlan plan, Handler fallback) {
  return [plan, fallback = std::move(fallback)](const FakeRequest& asked) {
    const std::uint64_t i = asked.index;
    const bool asks_n = (plan.reject_n || plan.ignore_n) && choices_asked(asked) > 1;
    const FakeRequest request = asks_n && plan.ignore_n ? without_n(asked) : asked;
    FakeResponse response;
    if (asks_n && plan.reject_n) {
      response = error_reply(400, "fake server: n > 1 is not supported, ask for one choice");
    } else if (due(plan.every_500, i)) {
      response = status_reply(500);
    } else if (due(plan.every_429, i)) {
      response = status_reply(429, plan.retry_after_s);
    } else if (due(plan.every_slow, i)) {
      response = fallback(request);
      response.delay_ms += plan.slow_ms;
    } else if (due(plan.every_reset, i)) {
      response = fallback(request);
      response.reset_mid_body = true;
    } else if (due(plan.every_invalid_json, i)) {
      response = invalid_json_reply();
    } else if (due(plan.every_empty_choices, i)) {
      response = empty_choices_reply();
    } else if (due(plan.every_no_usage, i)) {
      response = fallback(request);
      json body = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_object()) {
        body.erase("usage");
        response.body = dump(body);
      }
    } else {
      response = fallback(request);
    }
    response.delay_ms += plan.base_delay_ms;
    return response;
  };
}

}  // namespace parley::testing
