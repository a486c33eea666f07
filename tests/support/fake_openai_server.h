#pragma once
// FakeOpenAiServer: a scripted OpenAI-compatible HTTP/1.1 server on 127.0.0.1 for tests and
// benchmarks of the HTTP client. One epoll loop on its own thread serves every connection, so
// it holds 10,000+ open keep-alive connections with delayed replies (delays are timers in the
// loop, not sleeping threads). A Handler decides each reply to POST /v1/chat/completions and
// POST /v1/embeddings (other routes get a 404); helpers below build the usual ones.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace parley::testing {

struct FakeRequest {
  std::string method, path;                    // e.g. "POST", "/v1/chat/completions"
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::uint64_t index = 0;       // 0-based arrival order over the server's life (every route)
  std::uint64_t connection = 0;  // id of the TCP connection it came on (1, 2, ...)
};

struct FakeResponse {
  int status = 200;
  std::string body;                                          // sent as is (Content-Length set)
  std::vector<std::pair<std::string, std::string>> headers;  // extra, e.g. {"Retry-After", "1"}
  int delay_ms = 0;             // wait this long (in the event loop) before replying
  bool reset_mid_body = false;  // send the headers and half the body, then RST
  bool close_after = false;     // close the connection after replying
  bool close_unanswered = false;  // close the connection without replying (as a server whose
                                  // keep-alive timeout ends as the request arrives)
};

// Called on the server thread, one request at a time; an exception becomes a 500 reply.
using Handler = std::function<FakeResponse(const FakeRequest&)>;

class FakeOpenAiServer {
 public:
  // Binds 127.0.0.1 (port 0: an ephemeral one) and starts serving; throws std::system_error.
  explicit FakeOpenAiServer(Handler handler);
  FakeOpenAiServer(Handler handler, int port);
  ~FakeOpenAiServer();  // stops the thread, closes everything
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  int port() const;
  std::string base_url() const;  // "http://127.0.0.1:PORT/v1"
  // Counters are safe to read from any thread while the server runs.
  std::uint64_t requests() const;  // complete requests received
  std::uint64_t connections_accepted() const;
  std::uint64_t peak_open_connections() const;
  std::uint64_t peak_pending() const;  // max requests received but not yet answered
  // Requests whose connection the client closed (or reset) before their reply was sent: what a
  // backend sees of a client that gave up on a call.
  std::uint64_t requests_abandoned() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Body of a successful chat completion (OpenAI format).
struct CompletionSpec {
  std::string content;
  std::optional<std::string> reasoning_content;
  bool include_usage = true;
  std::int64_t prompt_tokens = 10, completion_tokens = 5;
  std::optional<std::int64_t> cached_tokens;  // usage.prompt_tokens_details.cached_tokens
  std::vector<double> token_logprobs;         // non-empty: choices[0].logprobs.content[i].logprob
  std::string finish_reason = "stop";
  std::vector<std::string> more_choices;      // contents of choices 1, 2, ... (as asked with "n")
};
std::string completion_body(const CompletionSpec& spec);
FakeResponse ok_reply(const CompletionSpec& spec);
// A successful /embeddings reply: data[i] = {"index": i, "embedding": vectors[i]}; usage only
// when prompt_tokens is given.
FakeResponse embedding_reply(const std::vector<std::vector<double>>& vectors,
                             std::optional<std::int64_t> prompt_tokens = std::nullopt);
// An OpenAI-style {"error": {...}} body; a Retry-After header (seconds) when given.
FakeResponse status_reply(int status, std::optional<int> retry_after_s = std::nullopt);
FakeResponse invalid_json_reply();   // 200 with a body that is not JSON
FakeResponse empty_choices_reply();  // 200 with {"choices": [], ...}

// The default "model": answers deterministically from the last user message. Content is
// "Let me think step by step. ...\nAnswer: X\nConfidence: 80%" where X is a letter A-D (only
// among the offered ones when fewer than four "(A)"-style options appear) or, with no options,
// a number 0-999; both come from a 64-bit FNV-1a hash of the message. A request with "n" = k > 1
// gets k choices, choice i > 0 answering from the hash of the message followed by " #i". Usage:
// prompt_tokens = ceil(bytes of all message contents / 4) (once, whatever "n"),
// completion_tokens = the sum over choices of ceil(bytes of content / 4).
// A body that is not a chat request gets a 400.
FakeResponse answer_reply(const FakeRequest& request);

// Deterministic fault injection by request index: request i gets fault F when period_F > 0 and
// i % period_F == period_F - 1, checked in the order of the fields; otherwise fallback(request).
struct FaultPlan {
  int every_500 = 0;  // HTTP 500
  int every_429 = 0;  // HTTP 429 with Retry-After: retry_after_s
  int retry_after_s = 1;
  int every_slow = 0;  // delay slow_ms before the fallback's answer (past the client's timeout)
  int slow_ms = 3000;
  int every_reset = 0;  // the fallback's answer, reset mid-body
  int every_invalid_json = 0;
  int every_empty_choices = 0;
  int every_no_usage = 0;  // the fallback's answer without its "usage" object
  int base_delay_ms = 0;   // added to every reply
  // Servers without "n": a chat request asking for more than one choice gets an HTTP 400
  // naming "n" (reject_n), or the fallback's answer to it without "n", one choice (ignore_n).
  bool reject_n = false;
  bool ignore_n = false;
};
Handler faulty_handler(FaultPlan plan, Handler fallback = answer_reply);

}  // namespace parley::testing
