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
    co_return answer(request, true);
  }
  // With supports_n, one call for all samples, as a server honouring "n" answers: each
  // sample's request is recorded in `requests`, the call's size in `n_calls`, and the prompt is
  // billed once, to the first sample. Otherwise the default: one chat() per sample.
  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override {
    if (!supports_n) co_return co_await LlmClient::chat_n(std::move(request), n);
    n_calls.push_back(n);
    std::vector<ChatRequest> samples;
    for (int i = 0; i < n; ++i) {
      samples.push_back(request);
      samples.back().note.sample += i;
      requests.push_back(samples.back());
    }
    co_await loop_.yield();
    std::vector<ChatResult> results;
    for (const ChatRequest& sample : samples) results.push_back(answer(sample, results.empty()));
    co_return results;
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
  bool supports_n = false;
  std::vector<int> n_calls;  // the size of each chat_n call answered at once (supports_n)
  std::vector<EmbeddingRequest> embedding_requests;
  std::function<std::variant<std::vector<double>, CallError>(const std::string& text)> embedding;
  // Whether replies say their usage is an estimate (a server that reported none).
  bool usage_estimated = false;
  // The attempts each reply reports having taken (retries before it succeeded + 1).
  int attempts = 1;
  // The token log-probabilities of each reply (nullopt: the server returned none, the default).
  std::function<std::optional<LogprobStats>(const ChatRequest&)> logprobs;

 private:
  // The script's reply, its prompt billed when `bills_prompt`.
  ChatResult answer(const ChatRequest& request, bool bills_prompt) const {
    auto reply = script_(request);
    if (auto* error = std::get_if<CallError>(&reply)) return *error;
    ChatResponse response;
    response.text = std::get<std::string>(reply);
    response.usage.prompt_tokens = bills_prompt ? estimate_prompt_tokens(request.messages) : 0;
    response.usage.completion_tokens = estimate_tokens(response.text);
    response.usage.estimated = usage_estimated;
    response.attempts = attempts;
    if (logprobs) response.logprobs = logprobs(request);
    return response;
  }

  EventLoop& loop_;
  Script script_;
};

}  // namespace parley::testing
