// OpenAiClient: chat completions and embeddings against an OpenAI-compatible endpoint, with
// retries and a per-endpoint concurrency limit. JSON stays in openai_json; this file is control flow.

#include <chrono>
#include <cmath>
#include <coroutine>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/hash.h"
#include "llm/openai_json.h"
#include "llm/redact.h"
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

// The key in the endpoint's variable ("" when none is named or it is unset). The runner
// checks it first; a key that would inject a header here is a bug of the caller.
std::string api_key_of(const EndpointOptions& options) {
  if (options.api_key_env.empty()) return {};
  const char* key = std::getenv(options.api_key_env.c_str());
  if (key == nullptr) return {};
  if (!is_sendable_api_key(key))
    throw std::invalid_argument("the API key in " + options.api_key_env + " holds a control character");
  return key;
}

// Whether a failed request with "n" was refused for asking "n" (openai::refuses_n reads the
// server's error). A timeout or a rate limit is never about "n"; any other error is the
// ordinary error it is (a bad key, a prompt too long), never a sign that "n" is unsupported.
bool rejects_n(const CallError& error, const HttpResponse& response) {
  return error.kind == CallErrorKind::kHttpStatus && error.http_status != 408 && error.http_status != 429 &&
         openai::refuses_n(response.body);
}

class OpenAiClient final : public LlmClient {
 public:
  OpenAiClient(EventLoop& loop, HttpTransport& transport, EndpointOptions options)
      : loop_(loop),
        transport_(transport),
        options_(std::move(options)),
        chat_url_(endpoint_url(options_.base_url, "/chat/completions")),
        embeddings_url_(endpoint_url(options_.base_url, "/embeddings")),
        api_key_(api_key_of(options_)),
        redactor_(api_key_, options_.base_url),
        permits_(static_cast<std::size_t>(std::max(options_.max_concurrency, 1))),
        jitter_(fnv1a64(options_.base_url)) {
    headers_.push_back("Content-Type: application/json");
    if (!api_key_.empty()) headers_.push_back("Authorization: Bearer " + api_key_);
  }

  bool simulated() const override { return false; }

  // chat() and embed() are not coroutines themselves: the one coroutine of a call owns its
  // request, so a call queued for a permit holds one frame and no body yet (ten thousand calls
  // in flight and as many waiting made the frames a large part of the heap).
  Async<ChatResult> chat(ChatRequest request) override {
    return post_with_retries<ChatResponse>(chat_url_, std::move(request));
  }

  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override {
    if (n <= 1) co_return co_await LlmClient::chat_n(std::move(request), n);
    while (n_support_ == NSupport::kProbing) co_await NSupportSettled{this};
    std::vector<ChatResult> results;
    if (n_support_ != NSupport::kUnsupported) {
      const bool probing = n_support_ == NSupport::kUnknown;
      if (probing) n_support_ = NSupport::kProbing;
      bool refused_n = false;
      auto outcome = co_await post_with_retries<Choices>(chat_url_, ChoicesRequest{&request, n, &refused_n});
      if (auto* reply = std::get_if<Choices>(&outcome)) {
        for (ChatResponse& choice : reply->choices) {
          choice.latency_ms = reply->latency_ms;
          choice.attempts = reply->attempts;
          results.emplace_back(std::move(choice));
        }
        if (static_cast<int>(results.size()) == n) {
          if (probing) settle_n_support(NSupport::kSupported);
          co_return results;
        }
        // Fewer choices than asked: the server ignores "n". Those it sent are kept.
      } else {
        const CallError& error = std::get<CallError>(outcome);
        if (!refused_n) {
          if (probing) settle_n_support(NSupport::kUnknown);  // not an answer about "n": probe again later
          co_return std::vector<ChatResult>(static_cast<std::size_t>(n), ChatResult(error));
        }
      }
      settle_n_support(NSupport::kUnsupported);
    }
    // One request per sample not answered yet.
    const int answered = static_cast<int>(results.size());
    request.note.sample += answered;
    for (ChatResult& result : co_await LlmClient::chat_n(std::move(request), n - answered))
      results.push_back(std::move(result));
    co_return results;
  }

  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    return post_with_retries<EmbeddingResponse>(embeddings_url_, std::move(request));
  }

 private:
  // The choices of one chat completion asked with "n", as post_with_retries returns them.
  struct Choices {
    std::vector<ChatResponse> choices;
    double latency_ms = 0.0;
    int attempts = 1;
  };
  // A chat request asked with "n"; chat_n awaits the call at once, so pointers into its frame
  // outlive it. refused_n is set when the server refused the request for its "n" (rejects_n).
  struct ChoicesRequest {
    const ChatRequest* request;
    int n;
    bool* refused_n;
  };

  const std::string& model_of(const std::string& requested) const {
    return requested.empty() ? options_.model : requested;
  }
  std::string body_of(const ChatRequest& request) const {
    return openai::chat_request_body(model_of(request.model), request.messages, request.sampling);
  }
  std::string body_of(const EmbeddingRequest& request) const {
    return openai::embedding_request_body(model_of(request.model), request.inputs);
  }
  std::string body_of(const ChoicesRequest& asked) const {
    return openai::chat_request_body(model_of(asked.request->model), asked.request->messages,
                                     asked.request->sampling, asked.n);
  }
  static std::variant<Choices, openai::BadResponse> parse(std::string_view reply, const ChoicesRequest& asked) {
    auto parsed = openai::parse_chat_choices(reply, *asked.request, asked.n);
    if (auto* bad = std::get_if<openai::BadResponse>(&parsed)) return std::move(*bad);
    return Choices{std::move(std::get<std::vector<ChatResponse>>(parsed))};
  }
  static std::variant<ChatResponse, openai::BadResponse> parse(std::string_view reply,
                                                               const ChatRequest& request) {
    return openai::parse_chat_response(reply, request);
  }
  static std::variant<EmbeddingResponse, openai::BadResponse> parse(std::string_view reply,
                                                                    const EmbeddingRequest& request) {
    return openai::parse_embedding_response(reply, request.inputs);
  }

  // POSTs the request's body to `url` until it succeeds or the retry policy gives up; a 2xx
  // body is parsed into a Response or an openai::BadResponse. The body is written once, when
  // the first permit is held, and sent again as it is on every retry. An error refusing "n"
  // (rejects_n) is returned at once, not retried.
  template <class Response, class Request>
  Async<std::variant<Response, CallError>> post_with_retries(const std::string& url, Request request) {
    std::string body;
    int sent = 0;  // requests sent, a transport's resends included
    for (int attempt = 1;; ++attempt) {
      // The permit covers the attempt only: a request backing off must not block others.
      co_await permits_.acquire();
      if (attempt == 1) body = body_of(request);
      HttpRequest http;
      http.url = url;
      http.body = body;
      http.headers = headers_;  // views: url, body and headers_ outlive the attempt
      http.timeout = to_ms(options_.timeout_s);
      http.connect_timeout = to_ms(options_.connect_timeout_s);
      http.max_response_bytes = options_.max_reply_bytes;
      HttpResponse response = co_await transport_.post(http);
      permits_.release(loop_);
      sent += 1 + response.resends;

      std::variant<Response, CallError> outcome = interpret<Response>(response, request);
      if (auto* success = std::get_if<Response>(&outcome)) {
        success->latency_ms = response.elapsed_ms;
        success->attempts = sent;
        co_return std::move(outcome);
      }
      auto& error = std::get<CallError>(outcome);
      error.attempts = sent;
      if constexpr (std::is_same_v<Request, ChoicesRequest>) {
        *request.refused_n = rejects_n(error, response);
        if (*request.refused_n) co_return std::move(outcome);
      }
      if (!options_.retry.should_retry(error, attempt)) co_return std::move(outcome);
      co_await loop_.sleep_for(options_.retry.delay(attempt, response.retry_after_s, jitter_.uniform()));
    }
  }

  template <class Response, class Request>
  std::variant<Response, CallError> interpret(const HttpResponse& response, const Request& request) const {
    // Text from the server is redacted whole before it is cut short, so no secret is cut in two:
    // servers quote the key they rejected, and some echo the request's headers.
    switch (response.failure) {
      case HttpResponse::Failure::kTimeout:
        return CallError{CallErrorKind::kTimeout, 0, redactor_.redact(response.failure_message)};
      case HttpResponse::Failure::kConnection:
        return CallError{CallErrorKind::kConnection, 0, redactor_.redact(response.failure_message)};
      case HttpResponse::Failure::kTooLarge:
        return CallError{CallErrorKind::kTooLarge, 0, response.failure_message};
      case HttpResponse::Failure::kCancelled:
        return CallError{CallErrorKind::kCancelled, 0, response.failure_message};
      case HttpResponse::Failure::kNone:
        break;
    }
    if (response.status < 200 || response.status >= 300) {
      std::string message = "HTTP " + std::to_string(response.status);
      // Redacted as sent, and again once decoded (a secret may be spelled with JSON escapes),
      // and only then cut short, so that a cut cannot split a secret out of reach.
      const std::string decoded = openai::error_summary(redactor_.redact(response.body), std::string::npos);
      std::string server_says = openai::shorten_utf8(redactor_.redact(decoded), openai::kErrorSummaryBytes);
      if (!server_says.empty()) message += ": " + server_says;
      return CallError{CallErrorKind::kHttpStatus, response.status, std::move(message)};
    }
    auto parsed = parse(std::string_view(response.body), request);
    if (std::holds_alternative<openai::BadResponse>(parsed)) {
      // The reason may quote the body: take it from the redacted body (a reply is not redacted
      // when it is kept, as model text may well say "Basic idea").
      auto quoted = parse(std::string_view(redactor_.redact(response.body)), request);
      auto* bad = std::get_if<openai::BadResponse>(&quoted);
      if (bad == nullptr) bad = &std::get<openai::BadResponse>(parsed);
      return CallError{CallErrorKind::kBadResponse, response.status, redactor_.redact(std::move(bad->message))};
    }
    return std::move(std::get<Response>(parsed));
  }

  // Whether the endpoint honours "n", learnt from the first chat_n call (the probe); calls
  // arriving while it is in flight wait for its answer.
  enum class NSupport { kUnknown, kProbing, kSupported, kUnsupported };
  struct NSupportSettled {
    OpenAiClient* client;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> waiter) { client->n_support_waiters_.push_back(waiter); }
    void await_resume() const noexcept {}
  };
  void settle_n_support(NSupport support) {
    n_support_ = support;
    for (std::coroutine_handle<> waiter : std::exchange(n_support_waiters_, {})) loop_.post(waiter);
  }

  EventLoop& loop_;
  HttpTransport& transport_;
  EndpointOptions options_;
  std::string chat_url_;
  std::string embeddings_url_;
  std::string api_key_;
  Redactor redactor_;
  std::vector<std::string> headers_;
  AsyncSemaphore permits_;
  Rng jitter_;
  NSupport n_support_ = NSupport::kUnknown;
  std::vector<std::coroutine_handle<>> n_support_waiters_;
};

}  // namespace

std::unique_ptr<LlmClient> make_openai_client(EventLoop& loop, HttpTransport& transport, EndpointOptions options) {
  return std::make_unique<OpenAiClient>(loop, transport, std::move(options));
}

}  // namespace parley
