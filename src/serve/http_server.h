#pragma once
// HttpServer: the HTTP/1.1 server under `parley serve`'s OpenAI-compatible gateway. It is an
// IoDriver of the caller's EventLoop: the listening socket and every connection sit in one
// edge-triggered epoll set, requests are parsed by Boost.Beast's request parser (as a parser
// only, fed the bytes we read), and each request is handled by one coroutine spawned on the
// loop — thousands of requests in flight on the loop's one thread, never a thread per request.
// Responses are written by the server (status line, headers, Content-Length or chunked framing)
// through a per-connection output queue, with backpressure. Everything here runs on the loop's
// thread; nothing is thread-safe.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parley/async.h"
#include "parley/cancel.h"
#include "parley/result.h"

namespace parley::serve {

// What the server accepts, and how long it waits.
struct HttpLimits {
  // Request line and headers; beyond → 431, close.
  std::size_t max_header_bytes = 16 * 1024;
  // Beyond → 413, close (at once when Content-Length says so up front).
  std::size_t max_body_bytes = 1 << 20;
  // Open connections; one more is answered 503 and closed.
  std::size_t max_connections = 10000;
  // Bytes received of requests not yet handed to a handler (headers and bodies being read, and
  // input not yet parsed), all connections together: the connection whose bytes would take the
  // total past this is answered 503 and closed. A request larger than this is never taken.
  std::size_t max_buffered_input = 64 << 20;
  // A started request must be complete by then → 408, close (slowloris).
  std::chrono::milliseconds request_timeout{30000};
  // A connection with no request started (new, or kept alive) is closed after this long; so is
  // one whose peer reads none of the pending output for this long (as if it were gone).
  std::chrono::milliseconds idle_timeout{60000};
  // write() suspends while more than this is unsent (backpressure).
  std::size_t max_pending_output = 4 << 20;
};

struct IncomingRequest {
  std::string method, target;                                // target as sent ("/v1/models?x=1")
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::string body;                                          // de-chunked
  std::string peer;                                          // "127.0.0.1:54321", "[::1]:54321"
  int version = 11;                                          // 10 or 11 (HTTP/1.0, HTTP/1.1)

  std::optional<std::string_view> header(std::string_view lowercase_name) const;  // the first
  std::size_t header_count(std::string_view lowercase_name) const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

struct ServerCore;  // the server's state and its work (http_server.cc)
struct Connection;

// One request and its response; lives until the handler's coroutine ends. A response's status
// must be 200..599, its header names tokens and its values one line (else std::invalid_argument,
// before anything is sent); Content-Length, Transfer-Encoding and Connection are the server's and
// dropped when given. Answering twice, or writing outside a stream, is a bug (std::logic_error).
// A handler that throws or returns without answering gets a 500 (the connection lives on); one
// that leaves a stream unended has its connection reset, so the client cannot take it as whole.
class Exchange {
 public:
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  ~Exchange();

  const IncomingRequest& request() const { return request_; }
  // A response with Content-Length (204 and 304: neither it nor the body); to HEAD, without
  // the body. Returns once queued, suspending as write() does.
  Async<void> respond(int status, Headers headers, std::string body);
  // Starts a response of unknown length: Transfer-Encoding: chunked (to HTTP/1.0, the body runs
  // to the connection's close).
  Async<void> begin_stream(int status, Headers headers);
  // One chunk (empty: nothing is sent). Returns once queued, suspending while more than
  // max_pending_output is unsent; a no-op once the peer is gone.
  Async<void> write(std::string data);
  Async<void> end_stream();  // the last chunk
  bool peer_gone() const { return gone_; }
  // Fired when the peer closes (a half-close counts), resets or stops reading the connection
  // while the request is handled, or when the server stops hard (EventLoop::cancel); its reason
  // says which.
  CancelSignal& disconnected() { return disconnected_; }

 private:
  friend struct ServerCore;
  Exchange(ServerCore* core, Connection* connection, IncomingRequest request);
  enum class Phase { kNone, kStreaming, kDone };
  // Suspends the handler while its connection has more than max_pending_output unsent.
  Async<void> drain();

  ServerCore* core_;
  Connection* connection_;  // null once the server let go of it
  IncomingRequest request_;
  Phase phase_ = Phase::kNone;
  bool gone_ = false;
  bool head_ = false;               // a HEAD request: no body is sent
  bool raw_stream_ = false;         // a stream to HTTP/1.0: no chunk framing
  std::coroutine_handle<> writer_;  // a write waiting for the output to drain
  CancelSignal disconnected_;
  Exchange* previous_ = nullptr;  // the server's exchanges alive
  Exchange* next_ = nullptr;
};

using Handler = std::function<Async<void>(Exchange&)>;
// Body of the responses the server makes itself (400 malformed, 408, 413, 431, 500 when a
// handler throws or does not answer, 503): e.g. OpenAI-style JSON. Sent as application/json
// when it starts with '{', else as text/plain. Empty: the message as text.
using ErrorBody = std::function<std::string(int status, std::string_view message)>;

class HttpServer final : public IoDriver {
 public:
  // Binds host (an IPv4 or IPv6 literal, with or without brackets, or "localhost", which is
  // 127.0.0.1) and port (0: any free one), listens, and adds itself to the loop's I/O drivers
  // (it removes itself when destroyed). An Error when the host is not such a name or the port
  // cannot be bound. The loop must outlive the server. Destroyed while handlers still run, the
  // server leaves them be (they keep the handler alive): their peers count as gone, and what
  // they write goes nowhere.
  static Result<std::unique_ptr<HttpServer>> listen(EventLoop& loop, const std::string& host,
                                                    std::uint16_t port, Handler handler, HttpLimits limits,
                                                    ErrorBody error_body);
  ~HttpServer() override;
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const { return port_; }

  // Stops accepting and closes idle connections; requests being handled finish (their
  // responses say Connection: close); busy() turns false when none is left, so loop.run()
  // returns.
  void stop();

  struct Stats {
    std::uint64_t accepted = 0;              // connections taken in (not counting the rejected)
    std::uint64_t requests = 0;              // requests handed to the handler
    std::uint64_t rejected_connections = 0;  // answered 503 at max_connections
    std::size_t open_connections = 0;        // not counting the rejected, being closed
    std::size_t buffered_input = 0;          // held against max_buffered_input now
  };
  Stats stats() const;

  // IoDriver. busy(): listening, or connections open. cancel() is the hard stop: stop(), every
  // exchange's disconnected() fires and every connection closes.
  bool busy() const override;
  void poll(std::chrono::milliseconds max_wait) override;
  void cancel() override;
  int wait_fd() const override { return epoll_fd_; }
  std::optional<std::chrono::steady_clock::time_point> next_deadline() const override;

 private:
  explicit HttpServer(std::unique_ptr<ServerCore> core);

  std::unique_ptr<ServerCore> core_;
  int epoll_fd_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace parley::serve
