#pragma once
// ScriptedClient: an LlmClient backend for protocol control-flow tests. A script function
// decides each reply from the request (its annotations say which agent, round and turn it
// is); every request is recorded for assertions. An optional second function gives a reply's
// token log-probabilities, an optional third one embeddings. Replies complete asynchronously through the event loop, like a real
// backend.

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "parley/llm_client.h"

namespace parley::testing {

class ScriptedClient final : public LlmClient {
 public:
  using Script = std::function<std::variant<std::string, CallError>(const ChatRequest&)>;

  ScriptedClient(EventLoop& loop, Script script) : loop_(loop), script_(std::move(script)) {}

  Async<ChatResult> chat(ChatRequest request) override {
    requests.push_back(request);
    co_await loop_.yield();
    auto reply = script_(request);
    if (auto* error = std::get_if<CallError>(&reply)) co_return *error;
    ChatResponse response;
    response.text = std::get<std::string>(reply);
    response.usage.prompt_tokens = estimate_prompt_tokens(request.messages);
    response.usage.completion_tokens = estimate_tokens(response.text);
    response.usage.estimated = usage_estimated;
    response.attempts = attempts;
    if (logprobs) response.logprobs = logprobs(request);
    co_return response;
  }
  // Embeddings by `embedding` (text -> vector or error); without it the default: unsupported.
  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    if (!embedding) co_return co_await LlmClient::embed(std::move(request));
    embedding_requests.push_back(request);
    co_await loop_.yield();
    EmbeddingResponse response;
    for (const auto& text : request.inputs) {
      auto vector = embedding(text);
      if (auto* error = std::get_if<CallError>(&vector)) co_return *error;
      response.vectors.push_back(std::get<std::vector<double>>(std::move(vector)));
      response.usage.prompt_tokens += estimate_tokens(text);
    }
    response.attempts = attempts;
    co_return response;
  }
  bool simulated() const override { return true; }

  std::vector<ChatRequest> requests;
  std::vector<EmbeddingRequest> embedding_requests;
  std::function<std::variant<std::vector<double>, CallError>(const std::string& text)> embedding;
  // Whether replies say their usage is an estimate (a server that reported none).
  bool usage_estimated = false;
  // The attempts each reply reports having taken (retries before it succeeded + 1).
  int attempts = 1;
  // The token log-probabilities of each reply (nullopt: the server returned none, the default).
  std::function<std::optional<LogprobStats>(const ChatRequest&)> logprobs;

 private:
  EventLoop& loop_;
  Script script_;
};

}  // namespace parley::testing
