// OpenAiClient: chat completions and embeddings against an OpenAI-compatible endpoint, with
// retries and a per-endpoint concurrency limit. JSON stays in openai_json; this file is control flow.

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/hash.h"
#include "llm/openai_json.h"
#include "parley/llm_client.h"

namespace parley {
namespace {

std::chrono::milliseconds to_ms(double seconds) {
  return std::chrono::milliseconds(std::llround(std::max(0.0, seconds) * 1000.0));
}

std::string endpoint_url(std::string base_url, std::string_view path) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  return base_url + std::string(path);
}

class OpenAiClient final : public LlmClient {
 public:
  OpenAiClient(EventLoop& loop, HttpTransport& transport, EndpointOptions options)
      : loop_(loop),
        transport_(transport),
        options_(std::move(options)),
        chat_url_(endpoint_url(options_.base_url, "/chat/completions")),
        embeddings_url_(endpoint_url(options_.base_url, "/embeddings")),
        permits_(static_cast<std::size_t>(std::max(options_.max_concurrency, 1))),
        jitter_(fnv1a64(options_.base_url)) {
    headers_.push_back("Content-Type: application/json");
    if (!options_.api_key_env.empty()) {
      const char* key = std::getenv(options_.api_key_env.c_str());
      if (key != nullptr && *key != '\0') {
        api_key_ = key;
        headers_.push_back("Authorization: Bearer " + api_key_);
      }
    }
  }

  bool simulated() const override { return false; }

  Async<ChatResult> chat(ChatRequest request) override {
    const std::string& model = request.model.empty() ? options_.model : request.model;
    const std::string body = openai::chat_request_body(model, request.messages, request.sampling);
    const auto parse = [&request](std::string_view reply) {
      return openai::parse_chat_response(reply, request.messages);
    };
    co_return co_await post_with_retries<ChatResponse>(chat_url_, body, parse);
  }

  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    const std::string& model = request.model.empty() ? options_.model : request.model;
    const std::string body = openai::embedding_request_body(model, request.inputs);
    const auto parse = [&request](std::string_view reply) {
      return openai::parse_embedding_response(reply, request.inputs);
    };
    co_return co_await post_with_retries<EmbeddingResponse>(embeddings_url_, body, parse);
  }

 private:
  // POSTs `body` to `url` until it succeeds or the retry policy gives up. `parse` turns a 2xx
  // body into a Response or an openai::BadResponse. Callers await it at once, so the arguments
  // may be references into their frames.
  template <class Response, class Parse>
  Async<std::variant<Response, CallError>> post_with_retries(const std::string& url, const std::string& body,
                                                             const Parse& parse) {
    for (int attempt = 1;; ++attempt) {
      // The permit covers the attempt only: a request backing off must not block others.
      co_await permits_.acquire();
      HttpRequest http;
      http.url = url;
      http.body = body;
      http.headers = headers_;
      http.timeout = to_ms(options_.timeout_s);
      http.connect_timeout = to_ms(options_.connect_timeout_s);
      HttpResponse response = co_await transport_.post(std::move(http));
      permits_.release(loop_);

      std::variant<Response, CallError> outcome = interpret<Response>(response, parse);
      if (auto* success = std::get_if<Response>(&outcome)) {
        success->latency_ms = response.elapsed_ms;
        success->attempts = attempt;
        co_return std::move(outcome);
      }
      auto& error = std::get<CallError>(outcome);
      error.attempts = attempt;
      if (!options_.retry.should_retry(error, attempt)) co_return std::move(outcome);
      co_await loop_.sleep_for(options_.retry.delay(attempt, response.retry_after_s, jitter_.uniform()));
    }
  }

  template <class Response, class Parse>
  std::variant<Response, CallError> interpret(const HttpResponse& response, const Parse& parse) const {
    switch (response.failure) {
      case HttpResponse::Failure::kTimeout:
        return CallError{CallErrorKind::kTimeout, 0, redact(response.failure_message)};
      case HttpResponse::Failure::kConnection:
        return CallError{CallErrorKind::kConnection, 0, redact(response.failure_message)};
      case HttpResponse::Failure::kCancelled:
        return CallError{CallErrorKind::kCancelled, 0, response.failure_message};
      case HttpResponse::Failure::kNone:
        break;
    }
    if (response.status < 200 || response.status >= 300) {
      std::string message = "HTTP " + std::to_string(response.status);
      std::string server_says = openai::error_summary(redact(response.body));
      if (!server_says.empty()) message += ": " + server_says;
      return CallError{CallErrorKind::kHttpStatus, response.status, std::move(message)};
    }
    auto parsed = parse(std::string_view(response.body));
    if (auto* bad = std::get_if<openai::BadResponse>(&parsed))
      return CallError{CallErrorKind::kBadResponse, response.status, redact(std::move(bad->message))};
    return std::move(std::get<Response>(parsed));
  }

  // Servers sometimes quote the key they rejected ("Incorrect API key provided: sk-...").
  std::string redact(std::string message) const {
    if (api_key_.empty()) return message;
    constexpr std::string_view kMark = "[redacted]";
    for (auto at = message.find(api_key_); at != std::string::npos; at = message.find(api_key_, at + kMark.size())) {
      message.replace(at, api_key_.size(), kMark);
    }
    return message;
  }

  EventLoop& loop_;
  HttpTransport& transport_;
  EndpointOptions options_;
  std::string chat_url_;
  std::string embeddings_url_;
  std::vector<std::string> headers_;
  std::string api_key_;
  AsyncSemaphore permits_;
  Rng jitter_;
};

}  // namespace

std::unique_ptr<LlmClient> make_openai_client(EventLoop& loop, HttpTransport& transport, EndpointOptions options) {
  return std::make_unique<OpenAiClient>(loop, transport, std::move(options));
}

}  // namespace parley
