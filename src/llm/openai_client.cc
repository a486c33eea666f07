// OpenAiClient: chat completions and embeddings against an OpenAI-compatible endpoint, with
// retries, a per-endpoint concurrency limit, a request's CancelSignal stopping its call, and the
// probes that find out once whether the endpoint takes "n" and "logprobs". JSON stays in
// openai_json; this file is control flow.

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
#include "llm/http_support.h"
#include "llm/openai_json.h"
#include "llm/redact.h"
#include "llm/wait_list.h"
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

// Whether a failed request was refused for asking what `names` looks for in the server's error
// (openai::refuses_n, openai::refuses_logprobs). A timeout or a rate limit is never about it;
// any other error is the ordinary error it is (a bad key, a prompt too long), never a sign that
// the parameter is unsupported.
bool refused_for(const CallError& error, const HttpResponse& response, bool (*names)(std::string_view)) {
  return error.kind == CallErrorKind::kHttpStatus && error.http_status != 408 && error.http_status != 429 &&
         names(response.body);
}

// The call's signal ended it after `attempts` requests were sent.
CallError cancelled_error(const CancelSignal& cancel, int attempts) {
  return CallError{CallErrorKind::kCancelled, 0, http::cancelled_message(cancel), attempts};
}

// Counts `attempts` more requests sent for a call: one refused for a parameter, then sent again.
void add_attempts(ChatResult& result, int attempts) {
  std::visit([attempts](auto& outcome) { outcome.attempts += attempts; }, result);
}

// What an endpoint was found to take ("n", "logprobs"): unknown until a request asking for it
// is answered. The first such request is the probe (begin_probe); requests arriving while it is
// in flight wait for its answer (wait), so a server that refuses is asked once, not once per call.
class Capability {
 public:
  enum class State { kUnknown, kProbing, kSupported, kUnsupported };

  State state() const { return state_; }
  bool probing() const { return state_ == State::kProbing; }
  bool unsupported() const { return state_ == State::kUnsupported; }
  // Makes the caller the probe when nothing is known yet; true when it is.
  bool begin_probe() {
    if (state_ != State::kUnknown) return false;
    state_ = State::kProbing;
    return true;
  }
  // Records what was learnt (kUnknown: nothing; the next request probes again) and wakes the
  // requests that waited for the probe.
  void settle(State state) {
    state_ = state;
    waiters_.notify_all();
  }
  // Awaitable: until the probe in flight settles; co_await yields false when `*cancel` fired first.
  WaitList::Wait wait(EventLoop& loop, CancelSignal* cancel) { return waiters_.wait(loop, cancel); }

 private:
  State state_ = State::kUnknown;
  WaitList waiters_;
};
using Support = Capability::State;

// What the error to a request refused, as post_with_retries finds it: its "n", its "logprobs".
struct Refusals {
  bool n = false;
  bool logprobs = false;
};

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
    if (request.sampling.logprobs) return chat_with_logprobs(std::move(request));
    return post_with_retries<ChatResponse>(chat_url_, std::move(request));
  }

  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override {
    if (n <= 1) co_return co_await LlmClient::chat_n(std::move(request), n);
    const auto count = static_cast<std::size_t>(n);
    // Waits out the probes in flight; a call never holds a probe while it waits for another.
    while (n_support_.probing() || (request.sampling.logprobs && logprobs_.probing())) {
      Capability& probe = n_support_.probing() ? n_support_ : logprobs_;
      if (!co_await probe.wait(loop_, request.cancel))
        co_return std::vector<ChatResult>(count, ChatResult(cancelled_error(*request.cancel, 0)));
    }
    // Without "n", one chat() per sample, each asking for log-probabilities as chat() does.
    if (n_support_.unsupported()) co_return co_await LlmClient::chat_n(std::move(request), n);
    if (logprobs_.unsupported()) request.sampling.logprobs = false;
    const bool probing_n = n_support_.begin_probe();
    const bool probing_logprobs = request.sampling.logprobs && logprobs_.begin_probe();
    Refusals refused;
    const ChoicesRequest asked{&request, n};
    auto outcome = co_await post_with_retries<Choices>(chat_url_, asked, &refused);
    std::vector<ChatResult> results;
    if (auto* reply = std::get_if<Choices>(&outcome)) {
      if (probing_logprobs) logprobs_.settle(Support::kSupported);
      for (ChatResponse& choice : reply->choices) {
        choice.latency_ms = reply->latency_ms;
        choice.attempts = reply->attempts;
        results.emplace_back(std::move(choice));
      }
      if (results.size() == count) {
        if (probing_n) n_support_.settle(Support::kSupported);
        co_return results;
      }
      // Fewer choices than asked: the server ignores "n". Those it sent are kept.
    } else {
      const CallError error = std::get<CallError>(outcome);
      if (refused.logprobs) {
        // Asked again at once without log-probabilities; "n" is still to be found out.
        logprobs_.settle(Support::kUnsupported);
        if (probing_n) n_support_.settle(Support::kUnknown);
        results = co_await chat_n(std::move(request), n);  // which now leaves logprobs out
        for (ChatResult& result : results) add_attempts(result, error.attempts);
        co_return results;
      }
      if (probing_logprobs) logprobs_.settle(Support::kUnknown);  // not an answer about logprobs
      if (!refused.n) {
        if (probing_n) n_support_.settle(Support::kUnknown);  // not an answer about "n": probe again later
        co_return std::vector<ChatResult>(count, ChatResult(error));
      }
    }
    n_support_.settle(Support::kUnsupported);
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
  // A chat request asked with "n"; chat_n awaits the call at once, so the pointer into its
  // frame outlives it.
  struct ChoicesRequest {
    const ChatRequest* request;
    int n;
  };

  // A chat asking for log-probabilities: sent with them while the endpoint takes them (or may:
  // the first such request is the probe, which later ones wait for), without them once it
  // refused them. A request refused for them is sent again at once without them, and the
  // endpoint remembers; its reply then simply has no logprobs.
  Async<ChatResult> chat_with_logprobs(ChatRequest request) {
    while (logprobs_.probing())
      if (!co_await logprobs_.wait(loop_, request.cancel)) co_return cancelled_error(*request.cancel, 0);
    if (logprobs_.unsupported()) request.sampling.logprobs = false;
    const bool probing = request.sampling.logprobs && logprobs_.begin_probe();
    Refusals refused;
    const ChatRequest* asked = &request;  // read while each post is awaited, here
    ChatResult outcome = co_await post_with_retries<ChatResponse>(chat_url_, asked, &refused);
    if (refused.logprobs) {
      logprobs_.settle(Support::kUnsupported);
      const int refused_attempts = std::get<CallError>(outcome).attempts;
      request.sampling.logprobs = false;
      outcome = co_await post_with_retries<ChatResponse>(chat_url_, asked);
      add_attempts(outcome, refused_attempts);
    } else if (probing) {
      logprobs_.settle(std::holds_alternative<ChatResponse>(outcome) ? Support::kSupported
                                                                     : Support::kUnknown);
    }
    co_return outcome;
  }

  const std::string& model_of(const std::string& requested) const {
    return requested.empty() ? options_.model : requested;
  }
  std::string body_of(const ChatRequest& request) const {
    return openai::chat_request_body(model_of(request.model), request.messages, request.sampling);
  }
  std::string body_of(const ChatRequest* request) const { return body_of(*request); }
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
  static std::variant<ChatResponse, openai::BadResponse> parse(std::string_view reply,
                                                               const ChatRequest* request) {
    return openai::parse_chat_response(reply, *request);
  }
  static std::variant<EmbeddingResponse, openai::BadResponse> parse(std::string_view reply,
                                                                    const EmbeddingRequest& request) {
    return openai::parse_embedding_response(reply, request.inputs);
  }
  // The request's signal.
  static CancelSignal* cancel_of(const ChatRequest& request) { return request.cancel; }
  static CancelSignal* cancel_of(const ChatRequest* request) { return request->cancel; }
  static CancelSignal* cancel_of(const EmbeddingRequest& request) { return request.cancel; }
  static CancelSignal* cancel_of(const ChoicesRequest& asked) { return asked.request->cancel; }
  // What the error to a chat request refused: its "n" (asked with chat_n), its "logprobs".
  static Refusals refused_by(const CallError& error, const HttpResponse& response,
                             const ChatRequest* request) {
    return {false, request->sampling.logprobs && refused_for(error, response, openai::refuses_logprobs)};
  }
  static Refusals refused_by(const CallError& error, const HttpResponse& response,
                             const ChoicesRequest& asked) {
    return {refused_for(error, response, openai::refuses_n),
            asked.request->sampling.logprobs && refused_for(error, response, openai::refuses_logprobs)};
  }

  // POSTs the request's body to `url` until it succeeds or the retry policy gives up; a 2xx
  // body is parsed into a Response or an openai::BadResponse. The body is written once, when
  // the first permit is held, and sent again as it is on every retry. With `refusals`, an error
  // refusing the request's "n" or "logprobs" (refused_for) is returned at once, not retried, and
  // says so there. The request's signal ends the call wherever it waits — for a permit (it
  // leaves the queue), on the transport (the connection is closed), in a back-off — with a
  // kCancelled error, never retried.
  template <class Response, class Request>
  Async<std::variant<Response, CallError>> post_with_retries(const std::string& url, Request request,
                                                             [[maybe_unused]] Refusals* refusals = nullptr) {
    CancelSignal* const cancel = cancel_of(request);
    std::string body;
    int sent = 0;  // requests sent, a transport's resends included
    for (int attempt = 1;; ++attempt) {
      // The permit covers the attempt only: a request backing off must not block others.
      if (!co_await permits_.acquire(loop_, cancel)) co_return cancelled_error(*cancel, sent);
      if (attempt == 1) body = body_of(request);
      HttpRequest http;
      http.url = url;
      http.body = body;
      http.headers = headers_;  // views: url, body and headers_ outlive the attempt
      http.timeout = to_ms(options_.timeout_s);
      http.connect_timeout = to_ms(options_.connect_timeout_s);
      http.max_response_bytes = options_.max_reply_bytes;
      http.cancel = cancel;
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
      if constexpr (std::is_same_v<Request, const ChatRequest*> || std::is_same_v<Request, ChoicesRequest>) {
        if (refusals != nullptr) {
          *refusals = refused_by(error, response, request);
          if (refusals->n || refusals->logprobs) co_return std::move(outcome);
        }
      }
      if (!options_.retry.should_retry(error, attempt)) co_return std::move(outcome);
      const auto pause = options_.retry.delay(attempt, response.retry_after_s, jitter_.uniform());
      if (!co_await loop_.sleep_for(pause, cancel)) co_return cancelled_error(*cancel, sent);
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
  Capability n_support_;  // whether the endpoint honours "n" (chat_n)
  Capability logprobs_;   // whether it takes "logprobs"
};

}  // namespace

std::unique_ptr<LlmClient> make_openai_client(EventLoop& loop, HttpTransport& transport, EndpointOptions options) {
  return std::make_unique<OpenAiClient>(loop, transport, std::move(options));
}

}  // namespace parley
