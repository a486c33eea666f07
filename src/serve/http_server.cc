// HttpServer (http_server.h). A connection is in one of four states:
//   idle      no byte of a request yet (new, or kept alive): closed after idle_timeout;
//   reading   a request started: bytes go to Beast's parser until it is complete (→ handling)
//             or wrong (→ an error response, closing), or request_timeout passes (→ 408);
//   handling  a handler's coroutine owns the request; the socket is not read, so the bytes of a
//             pipelined request wait in the kernel until the handler ends; a hang-up fires the
//             exchange's disconnected();
//   closing   the last response goes out, then shutdown(SHUT_WR), and what the peer still sends
//             is read and dropped until it closes (at most kLinger): closing at once with unread
//             input would reset the connection and could destroy the response on its way.
// Output is queued per connection and written as far as the socket takes it; an EPOLLOUT edge
// writes more. A peer that reads nothing of pending output for idle_timeout counts as gone.
// Connections are freed at the end of poll(), after the batch of events that may name them.

#include "serve/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
// g++ 12 with the sanitizers warns of Beast 1.74's boost::optional "maybe uninitialized", a false
// positive inside Boost (as in src/llm/native_http_transport.cc).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#pragma GCC diagnostic pop
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <system_error>

#include "core/text.h"
#include "llm/beast_feed.h"
#include "llm/http_support.h"
#include "serve/http1.h"

namespace parley::serve {
namespace {

namespace beast_http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using RequestParser = beast_http::request_parser<beast_http::string_body>;

constexpr std::size_t kReadBufferBytes = 64 * 1024;
constexpr std::size_t kMaxRejectedOpen = 256;  // rejected connections kept while their 503 goes out
constexpr milliseconds kLinger{2000};          // the longest wait for a closing peer's close
constexpr milliseconds kAcceptRetry{100};      // after accept() ran out of descriptors
constexpr std::size_t kMaxIov = 64;

constexpr std::string_view kPeerClosed = "the client closed the connection";
constexpr std::string_view kPeerReset = "the client reset the connection";
constexpr std::string_view kPeerStalled = "the client stopped reading";
constexpr std::string_view kServerStopped = "the server stopped";

std::string_view view(boost::beast::string_view text) { return {text.data(), text.size()}; }

std::string peer_name(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(v6.sin6_port));
  }
  const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
  inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
  return std::string(text) + ":" + std::to_string(ntohs(v4.sin_port));
}

}  // namespace

struct Connection {
  enum class State { kIdle, kReading, kHandling, kClosing };
  int fd = -1;
  State state = State::kIdle;
  bool counted = true;       // counts against max_connections (a rejected one does not)
  bool readable = false;     // an input edge came, and the socket was not read to EAGAIN since
  bool close_after = false;  // close once the current response is out
  bool shut = false;         // closing, all sent: shutdown(SHUT_WR) done, waiting for the peer's close
  std::string peer;
  std::string input;  // received, not yet parsed
  // Received and not yet handed to a handler: the request being read (its header and body so far
  // in the parser, the rest in `input`) and any after it. Counts against max_buffered_input.
  std::size_t buffered = 0;
  std::optional<RequestParser> parser;
  std::vector<std::string> output;  // queued; output[output_front] is partly sent
  std::size_t output_front = 0;
  std::size_t output_offset = 0;
  std::size_t pending = 0;  // bytes queued, not yet sent
  Exchange* exchange = nullptr;
  std::multimap<Clock::time_point, Connection*>::iterator timer;
  bool timed = false;
  Connection* previous = nullptr;  // the server's open connections
  Connection* next = nullptr;
};

struct ServerCore {
  ServerCore(EventLoop& event_loop, Handler request_handler, HttpLimits request_limits,
             ErrorBody error_body_of)
      : loop(event_loop),
        handler(std::make_shared<const Handler>(std::move(request_handler))),
        limits(request_limits),
        error_body(std::move(error_body_of)) {
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
  }
  ~ServerCore();
  ServerCore(const ServerCore&) = delete;
  ServerCore& operator=(const ServerCore&) = delete;

  Result<Ok> bind_and_listen(const sockaddr_storage& address, socklen_t length);
  void poll(milliseconds max_wait);
  void stop();
  void cancel();
  std::optional<Clock::time_point> next_deadline() const;

  // Input.
  void on_event(Connection& c, std::uint32_t events);
  void read_requests(Connection& c);
  void parse_input(Connection& c);
  void start_exchange(Connection& c);
  static Async<void> run_exchange(ServerCore* core, Connection* connection, IncomingRequest request);
  void finish_exchange(Exchange& exchange, bool threw);
  void discard_input(Connection& c);
  void set_buffered(Connection& c, std::size_t bytes);
  // Output.
  void queue(Connection& c, std::string data);
  void flush(Connection& c);
  std::string error_response(int status, std::string_view message, bool close, int version) const;
  void fail_request(Connection& c, int status, std::string_view message);
  void begin_closing(Connection& c);
  void shut(Connection& c);
  // Connections.
  void accept_all();
  void reject(int fd);
  Connection* open(int fd, std::string peer, bool counted);
  void close_connection(Connection& c, std::string_view reason);
  void abort(Connection& c, std::string_view reason);
  void set_timer(Connection& c, Clock::time_point when);
  void clear_timer(Connection& c);
  void expire_timers();
  void bury();
  void wake_writer(Exchange& exchange);

  EventLoop& loop;
  // Shared with every request's coroutine: a handler may outlive the server (it then writes into
  // nothing), and its closure must live as long.
  std::shared_ptr<const Handler> handler;
  HttpLimits limits;
  ErrorBody error_body;
  int epoll_fd = -1;
  int listen_fd = -1;
  bool stopping = false;
  std::optional<Clock::time_point> accept_retry;
  Connection* first = nullptr;  // open connections, linked
  std::size_t rejected_open = 0;
  HttpServer::Stats stats;
  Exchange* exchanges = nullptr;  // alive, linked: a server destroyed under them lets go of them
  std::multimap<Clock::time_point, Connection*> timers;
  std::vector<Connection*> closed;  // freed at the end of poll()
  std::array<epoll_event, 1024> events{};
  std::array<char, kReadBufferBytes> read_buffer{};
};

// ---- IncomingRequest -------------------------------------------------------------------------

std::optional<std::string_view> IncomingRequest::header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return std::string_view(value);
  }
  return std::nullopt;
}

std::size_t IncomingRequest::header_count(std::string_view lowercase_name) const {
  return static_cast<std::size_t>(std::count_if(
      headers.begin(), headers.end(), [&](const auto& header) { return header.first == lowercase_name; }));
}

// ---- Reading requests ------------------------------------------------------------------------

void ServerCore::on_event(Connection& c, std::uint32_t flags) {
  if (flags & EPOLLIN) c.readable = true;
  if (flags & EPOLLOUT) flush(c);
  if (c.fd < 0) return;
  if (flags & (EPOLLERR | EPOLLHUP)) return close_connection(c, kPeerReset);
  if (c.readable) {
    if (c.state == Connection::State::kClosing) {
      discard_input(c);
    } else if (c.state != Connection::State::kHandling) {
      read_requests(c);
    }
  }
  // A half-close while a request is handled: the client will send nothing more, and a client
  // that closed its connection looks the same. Either way the exchange learns it now.
  if (c.fd >= 0 && (flags & EPOLLRDHUP) && c.state == Connection::State::kHandling)
    close_connection(c, kPeerClosed);
}

void ServerCore::read_requests(Connection& c) {
  for (;;) {
    parse_input(c);
    if (c.fd < 0 || c.state == Connection::State::kHandling || c.state == Connection::State::kClosing) return;
    if (!c.readable) return;
    const ssize_t got = recv(c.fd, read_buffer.data(), read_buffer.size(), 0);
    if (got > 0) {
      const auto bytes = static_cast<std::size_t>(got);
      if (stats.buffered_input + bytes > limits.max_buffered_input)
        return fail_request(c, 503, "the server is receiving too many requests at once; retry");
      c.input.append(read_buffer.data(), bytes);
      set_buffered(c, c.buffered + bytes);
      continue;
    }
    if (got < 0 && errno == EAGAIN) {  // (== EWOULDBLOCK; a call that never blocks is never interrupted)
      c.readable = false;
      return;
    }
    return close_connection(c, kPeerClosed);  // no exchange to tell why
  }
}

// Feeds the buffered input to the parser: a complete request starts its exchange, a bad one is
// answered with its error; an incomplete one waits for more.
void ServerCore::parse_input(Connection& c) {
  if (c.input.empty()) return;
  if (c.state == Connection::State::kIdle) {
    c.state = Connection::State::kReading;
    set_timer(c, Clock::now() + limits.request_timeout);
  }
  if (!c.parser) {
    c.parser.emplace();
    c.parser->header_limit(static_cast<std::uint32_t>(
        std::min<std::size_t>(limits.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
    c.parser->body_limit(limits.max_body_bytes);
  }
  RequestParser& parser = *c.parser;
  std::string_view input = c.input;
  const auto error = http::feed(parser, input, [&](std::size_t left) -> boost::system::error_code {
    const auto& message = parser.get();
    // Only while none of the body is here: a client that sent it along waits for nothing.
    if (left == 0 && !parser.is_done() && message.version() >= 11 &&
        boost::beast::iequals(message[beast_http::field::expect], "100-continue")) {
      queue(c, "HTTP/1.1 100 Continue\r\n\r\n");
      flush(c);
      if (c.fd < 0) return beast_http::error::end_of_stream;  // closed, and the parser with it
    }
    return {};
  });
  if (c.fd < 0) return;
  c.input.erase(0, c.input.size() - input.size());
  if (error == beast_http::error::header_limit)
    return fail_request(c, 431, "the request's header is too large");
  if (error == beast_http::error::body_limit) return fail_request(c, 413, "the request's body is too large");
  if (error) return fail_request(c, 400, "malformed request: " + error.message());
  if (parser.is_done()) start_exchange(c);
}

void ServerCore::start_exchange(Connection& c) {
  auto message = c.parser->release();
  c.parser.reset();
  set_buffered(c, c.input.size());  // a pipelined request's bytes may follow
  IncomingRequest request;
  request.method = std::string(view(message.method_string()));
  request.target = std::string(view(message.target()));
  request.version = static_cast<int>(message.version());
  request.headers.reserve(static_cast<std::size_t>(std::distance(message.begin(), message.end())));
  for (const auto& field : message) {
    request.headers.emplace_back(ascii_lower(view(field.name_string())),
                                 std::string(view(field.value())));
  }
  request.body = std::move(message.body());
  request.peer = c.peer;
  c.close_after = !message.keep_alive() || stopping;
  c.state = Connection::State::kHandling;
  clear_timer(c);
  ++stats.requests;
  loop.spawn(run_exchange(this, &c, std::move(request)));
}

// The request's coroutine. It begins on a later turn of the loop, never inside poll().
Async<void> ServerCore::run_exchange(ServerCore* core, Connection* connection, IncomingRequest request) {
  Exchange exchange(core, connection, std::move(request));
  const std::shared_ptr<const Handler> handler = core->handler;
  co_await core->loop.yield();
  bool threw = false;
  try {
    co_await (*handler)(exchange);
  } catch (...) {
    threw = true;  // answered with a 500 when nothing was sent yet
  }
  if (exchange.core_ != nullptr) exchange.core_->finish_exchange(exchange, threw);
}

// The handler ended: answer for it if it did not, then read the next request or close.
void ServerCore::finish_exchange(Exchange& exchange, bool threw) {
  Connection* c = exchange.connection_;
  if (c == nullptr) return;  // the peer is gone and the connection with it
  exchange.connection_ = nullptr;
  c->exchange = nullptr;
  switch (exchange.phase_) {
    case Exchange::Phase::kNone:
      queue(*c, error_response(500, threw ? "internal error" : "the server sent no response",
                               c->close_after || stopping, exchange.request_.version));
      flush(*c);
      if (c->fd < 0) return;
      break;
    case Exchange::Phase::kStreaming:
      return abort(*c, "the response was not finished");  // a reset: the client must not take it as whole
    case Exchange::Phase::kDone:
      break;
  }
  if (c->close_after || stopping) return begin_closing(*c);
  c->state = Connection::State::kIdle;
  set_timer(*c, Clock::now() + limits.idle_timeout);
  read_requests(*c);  // a pipelined request may be buffered already, or waiting in the socket
}

void ServerCore::set_buffered(Connection& c, std::size_t bytes) {
  stats.buffered_input = stats.buffered_input - c.buffered + bytes;
  c.buffered = bytes;
}

void ServerCore::discard_input(Connection& c) {
  for (;;) {
    const ssize_t got = recv(c.fd, read_buffer.data(), read_buffer.size(), 0);
    if (got > 0) continue;
    if (got < 0 && errno == EAGAIN) {
      c.readable = false;
      return;
    }
    if (got == 0 && !c.shut) {  // the peer sends no more but may still read the response
      c.readable = false;
      return;
    }
    return close_connection(c, kPeerClosed);
  }
}

// ---- Writing responses -----------------------------------------------------------------------

void ServerCore::queue(Connection& c, std::string data) {
  if (c.fd < 0 || data.empty()) return;
  c.pending += data.size();
  c.output.push_back(std::move(data));
}

void ServerCore::flush(Connection& c) {
  bool progressed = false;
  while (c.pending > 0) {
    std::array<iovec, kMaxIov> parts{};
    std::size_t count = 0;
    for (std::size_t i = c.output_front; i < c.output.size() && count < parts.size(); ++i) {
      const std::size_t skip = i == c.output_front ? c.output_offset : 0;
      parts[count++] = iovec{c.output[i].data() + skip, c.output[i].size() - skip};
    }
    msghdr message{};
    message.msg_iov = parts.data();
    message.msg_iovlen = count;
    const ssize_t written = sendmsg(c.fd, &message, MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EAGAIN) break;
      return close_connection(c, errno == EPIPE || errno == ECONNRESET ? kPeerReset : std::strerror(errno));
    }
    progressed = true;
    auto left = static_cast<std::size_t>(written);
    c.pending -= left;
    while (left > 0) {
      const std::size_t rest = c.output[c.output_front].size() - c.output_offset;
      if (left < rest) {
        c.output_offset += left;
        break;
      }
      left -= rest;
      std::string().swap(c.output[c.output_front++]);
      c.output_offset = 0;
    }
  }
  if (c.pending == 0) {
    c.output.clear();
    c.output_front = 0;
  } else if (c.output_front >= kMaxIov && 2 * c.output_front >= c.output.size()) {
    // A stream whose reader stays a little behind never empties its queue: drop the sent entries.
    c.output.erase(c.output.begin(), c.output.begin() + static_cast<std::ptrdiff_t>(c.output_front));
    c.output_front = 0;
  }
  // Output that waits gives the peer idle_timeout to read some of it, from the last progress.
  const bool stalled = c.pending > 0 && (progressed || !c.timed);
  switch (c.state) {
    case Connection::State::kIdle:  // kept alive: idle from the last byte out
      if (progressed) set_timer(c, Clock::now() + limits.idle_timeout);
      break;
    case Connection::State::kReading:  // request_timeout holds
      break;
    case Connection::State::kHandling:
      if (stalled) {
        set_timer(c, Clock::now() + limits.idle_timeout);
      } else if (c.pending == 0) {
        clear_timer(c);
      }
      break;
    case Connection::State::kClosing:
      if (stalled) {
        set_timer(c, Clock::now() + limits.idle_timeout);
      } else if (c.pending == 0 && !c.shut) {
        shut(c);
      }
      break;
  }
  if (c.exchange != nullptr && c.pending <= limits.max_pending_output) wake_writer(*c.exchange);
}

// A response the server makes itself, head and body.
std::string ServerCore::error_response(int status, std::string_view message, bool close, int version) const {
  std::string body;
  if (error_body) {
    try {
      body = error_body(status, message);
    } catch (const std::exception&) {
      body = std::string(message);
    }
  } else {
    body = std::string(message);
  }
  const std::string type =
      !body.empty() && body.front() == '{' ? "application/json" : "text/plain; charset=utf-8";
  const Headers headers{{"Content-Type", type}};
  const std::string framing = "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return http1::response_head(status, headers, framing, close, version) + body;
}

// A request the server answers itself, then closes: its bytes cannot be trusted to end where the
// next request begins.
void ServerCore::fail_request(Connection& c, int status, std::string_view message) {
  queue(c, error_response(status, message, /*close=*/true, 11));
  begin_closing(c);
}

// No request is read from here on: what was received of one is dropped.
void ServerCore::begin_closing(Connection& c) {
  c.state = Connection::State::kClosing;
  c.parser.reset();
  c.input.clear();
  set_buffered(c, 0);
  clear_timer(c);  // flush() sets the closing state's own: output stalled, or the linger
  flush(c);
}

void ServerCore::shut(Connection& c) {
  shutdown(c.fd, SHUT_WR);
  c.shut = true;
  set_timer(c, Clock::now() + std::min(kLinger, limits.idle_timeout));
  if (c.readable) discard_input(c);
}

void ServerCore::wake_writer(Exchange& exchange) {
  if (exchange.writer_) loop.post(std::exchange(exchange.writer_, nullptr));
}

// ---- Exchange --------------------------------------------------------------------------------

Exchange::Exchange(ServerCore* core, Connection* connection, IncomingRequest request)
    : core_(core), connection_(connection), request_(std::move(request)) {
  head_ = request_.method == "HEAD";
  connection->exchange = this;
  next_ = core->exchanges;
  if (next_ != nullptr) next_->previous_ = this;
  core->exchanges = this;
}

Exchange::~Exchange() {
  if (core_ == nullptr) return;
  (previous_ != nullptr ? previous_->next_ : core_->exchanges) = next_;
  if (next_ != nullptr) next_->previous_ = previous_;
  if (connection_ != nullptr) connection_->exchange = nullptr;
}

Async<void> Exchange::drain() {
  struct Drained {
    Exchange* exchange;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { exchange->writer_ = h; }
    void await_resume() const noexcept {}
  };
  while (connection_ != nullptr && connection_->pending > core_->limits.max_pending_output)
    co_await Drained{this};
}

Async<void> Exchange::respond(int status, Headers headers, std::string body) {
  if (phase_ != Phase::kNone) throw std::logic_error("respond(): the response was begun already");
  http1::check_response(status, headers);
  phase_ = Phase::kDone;
  if (connection_ == nullptr) co_return;
  Connection& c = *connection_;
  const bool no_body = http1::bodiless(status);
  const std::string framing = no_body ? "" : "Content-Length: " + std::to_string(body.size()) + "\r\n";
  core_->queue(c, http1::response_head(status, headers, framing, c.close_after, request_.version));
  if (!head_ && !no_body) core_->queue(c, std::move(body));
  core_->flush(c);
  co_await drain();
}

Async<void> Exchange::begin_stream(int status, Headers headers) {
  if (phase_ != Phase::kNone) throw std::logic_error("begin_stream(): the response was begun already");
  http1::check_response(status, headers);
  phase_ = Phase::kStreaming;
  if (connection_ == nullptr) co_return;
  Connection& c = *connection_;
  raw_stream_ = request_.version < 11;  // HTTP/1.0 knows no chunks: the close ends the body
  if (raw_stream_) c.close_after = true;
  const std::string framing = raw_stream_ ? "" : "Transfer-Encoding: chunked\r\n";
  core_->queue(c, http1::response_head(status, headers, framing, c.close_after, request_.version));
  core_->flush(c);
  co_await drain();
}

Async<void> Exchange::write(std::string data) {
  if (phase_ != Phase::kStreaming) throw std::logic_error("write() outside a stream");
  if (connection_ == nullptr || head_ || data.empty()) co_return;
  Connection& c = *connection_;
  if (!raw_stream_) core_->queue(c, http1::chunk_line(data.size()));
  core_->queue(c, std::move(data));
  if (!raw_stream_) core_->queue(c, "\r\n");
  core_->flush(c);
  co_await drain();
}

Async<void> Exchange::end_stream() {
  if (phase_ != Phase::kStreaming) throw std::logic_error("end_stream() outside a stream");
  phase_ = Phase::kDone;
  if (connection_ == nullptr || head_ || raw_stream_) co_return;
  core_->queue(*connection_, "0\r\n\r\n");
  core_->flush(*connection_);
  co_await drain();
}

// ---- Connections -----------------------------------------------------------------------------

Result<Ok> ServerCore::bind_and_listen(const sockaddr_storage& address, socklen_t length) {
  listen_fd = socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd < 0) return Error{std::string("socket: ") + std::strerror(errno)};
  const int one = 1;
  setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listen_fd, reinterpret_cast<const sockaddr*>(&address), length) != 0 ||
      ::listen(listen_fd, SOMAXCONN) != 0) {
    return Error{std::strerror(errno)};
  }
  epoll_event event{};
  event.events = EPOLLIN | EPOLLET;
  event.data.ptr = nullptr;  // the listener
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &event) != 0) return Error{std::strerror(errno)};
  return Ok{};
}

void ServerCore::accept_all() {
  while (listen_fd >= 0) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    const int fd =
        accept4(listen_fd, reinterpret_cast<sockaddr*>(&address), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == ECONNABORTED) continue;
      // Out of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM): the waiting connections
      // stay queued, and no new edge may come for them, so accepting is tried again later.
      if (errno != EAGAIN) accept_retry = Clock::now() + kAcceptRetry;
      return;
    }
    if (stats.open_connections >= limits.max_connections) {
      reject(fd);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // a streamed chunk goes out when written
    Connection* c = open(fd, peer_name(address), /*counted=*/true);
    if (c == nullptr) continue;
    ++stats.accepted;
    set_timer(*c, Clock::now() + limits.idle_timeout);
  }
}

// Past max_connections: a 503, then the connection closes.
void ServerCore::reject(int fd) {
  ++stats.rejected_connections;
  std::string answer = error_response(503, "too many connections", /*close=*/true, 11);
  if (rejected_open >= kMaxRejectedOpen) {  // too many being rejected already: one try, then close
    (void)!::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(fd);
    return;
  }
  Connection* c = open(fd, "", /*counted=*/false);
  if (c == nullptr) return;
  queue(*c, std::move(answer));
  begin_closing(*c);
}

Connection* ServerCore::open(int fd, std::string peer, bool counted) {
  auto* c = new Connection;
  c->fd = fd;
  c->peer = std::move(peer);
  c->counted = counted;
  epoll_event event{};
  event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  event.data.ptr = c;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) {
    ::close(fd);
    delete c;
    return nullptr;
  }
  c->next = first;
  if (first != nullptr) first->previous = c;
  first = c;
  ++(counted ? stats.open_connections : rejected_open);
  return c;
}

// Closes the socket now; the object is freed at the end of poll(). The exchange on it, if any,
// learns that its peer is gone.
void ServerCore::close_connection(Connection& c, std::string_view reason) {
  if (c.fd < 0) return;
  ::close(c.fd);
  c.fd = -1;
  clear_timer(c);
  (c.previous != nullptr ? c.previous->next : first) = c.next;
  if (c.next != nullptr) c.next->previous = c.previous;
  c.previous = c.next = nullptr;
  --(c.counted ? stats.open_connections : rejected_open);
  c.output.clear();
  c.pending = 0;
  c.parser.reset();
  set_buffered(c, 0);
  closed.push_back(&c);
  if (Exchange* exchange = std::exchange(c.exchange, nullptr)) {
    exchange->connection_ = nullptr;
    exchange->gone_ = true;
    wake_writer(*exchange);
    exchange->disconnected_.fire(std::string(reason));
  }
}

// Closes with a reset (no FIN): what was sent is not a whole response.
void ServerCore::abort(Connection& c, std::string_view reason) {
  const linger reset{1, 0};
  setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  close_connection(c, reason);
}

void ServerCore::set_timer(Connection& c, Clock::time_point when) {
  clear_timer(c);
  c.timer = timers.emplace(when, &c);
  c.timed = true;
}

void ServerCore::clear_timer(Connection& c) {
  if (c.timed) timers.erase(c.timer);
  c.timed = false;
}

void ServerCore::expire_timers() {
  const auto now = Clock::now();
  while (!timers.empty() && timers.begin()->first <= now) {
    Connection& c = *timers.begin()->second;
    clear_timer(c);
    switch (c.state) {
      case Connection::State::kIdle:
        close_connection(c, "idle");
        break;
      case Connection::State::kReading:
        fail_request(c, 408, "the request was not complete in time");
        break;
      case Connection::State::kHandling:
      case Connection::State::kClosing:
        close_connection(c, c.shut ? kPeerClosed : kPeerStalled);
        break;
    }
  }
  if (accept_retry && *accept_retry <= now) {
    accept_retry.reset();
    accept_all();
  }
}

void ServerCore::bury() {
  for (Connection* c : closed) delete c;
  closed.clear();
}

void ServerCore::poll(milliseconds max_wait) {
  const auto wait = http::wait_before(max_wait, next_deadline());
  const int ready =
      epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), static_cast<int>(wait.count()));
  for (int i = 0; i < ready; ++i) {
    const epoll_event& event = events[static_cast<std::size_t>(i)];
    if (event.data.ptr == nullptr) {
      accept_all();
      continue;
    }
    auto* c = static_cast<Connection*>(event.data.ptr);
    if (c->fd >= 0) on_event(*c, event.events);  // not closed earlier in this batch
  }
  expire_timers();
  bury();
}

std::optional<Clock::time_point> ServerCore::next_deadline() const {
  std::optional<Clock::time_point> deadline = accept_retry;
  if (!timers.empty() && (!deadline || timers.begin()->first < *deadline)) deadline = timers.begin()->first;
  return deadline;
}

void ServerCore::stop() {
  stopping = true;
  accept_retry.reset();
  if (listen_fd >= 0) {
    ::close(listen_fd);
    listen_fd = -1;
  }
  for (Connection* c = first; c != nullptr;) {
    Connection* next = c->next;
    if (c->state == Connection::State::kHandling) {
      c->close_after = true;  // its response says so, unless it began already
    } else if (c->pending > 0 && c->state != Connection::State::kClosing) {
      begin_closing(*c);  // the last response is still on its way (a request begun after it is dropped)
    } else if (c->state != Connection::State::kClosing) {
      close_connection(*c, kServerStopped);
    }
    c = next;
  }
}

void ServerCore::cancel() {
  stop();
  while (first != nullptr) close_connection(*first, kServerStopped);
}

ServerCore::~ServerCore() {
  for (Exchange* exchange = exchanges; exchange != nullptr; exchange = exchange->next_) {
    // Handlers still running: they write into nothing from now on.
    exchange->core_ = nullptr;
    exchange->connection_ = nullptr;
    exchange->gone_ = true;
    wake_writer(*exchange);
  }
  for (Connection* c = first; c != nullptr; c = c->next) {
    ::close(c->fd);
    closed.push_back(c);
  }
  bury();
  if (listen_fd >= 0) ::close(listen_fd);
  ::close(epoll_fd);
}

// ---- HttpServer ------------------------------------------------------------------------------

Result<std::unique_ptr<HttpServer>> HttpServer::listen(EventLoop& loop, const std::string& host,
                                                       std::uint16_t port, Handler handler, HttpLimits limits,
                                                       ErrorBody error_body) {
  std::string name = host == "localhost" ? "127.0.0.1" : host;
  if (name.starts_with('[') && name.ends_with(']')) name = name.substr(1, name.size() - 2);
  sockaddr_storage address{};
  socklen_t length = 0;
  auto& v4 = reinterpret_cast<sockaddr_in&>(address);
  auto& v6 = reinterpret_cast<sockaddr_in6&>(address);
  if (inet_pton(AF_INET, name.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    length = sizeof v4;
  } else if (inet_pton(AF_INET6, name.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    length = sizeof v6;
  } else {
    return Error{"cannot listen on \"" + host + "\": not an IP address or localhost"};
  }
  http::raise_open_file_limit_once();
  auto core = std::make_unique<ServerCore>(loop, std::move(handler), limits, std::move(error_body));
  if (auto listening = core->bind_and_listen(address, length); !listening) {
    return Error{"cannot listen on " + host + ":" + std::to_string(port) + ": " + listening.error().message};
  }
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  getsockname(core->listen_fd, reinterpret_cast<sockaddr*>(&bound), &bound_length);
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(core)));
  server->port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(bound).sin6_port
                                                    : reinterpret_cast<sockaddr_in&>(bound).sin_port);
  loop.add_io(server.get());
  return server;
}

HttpServer::HttpServer(std::unique_ptr<ServerCore> core)
    : core_(std::move(core)), epoll_fd_(core_->epoll_fd) {}

HttpServer::~HttpServer() { core_->loop.remove_io(this); }

void HttpServer::stop() { core_->stop(); }

HttpServer::Stats HttpServer::stats() const { return core_->stats; }

bool HttpServer::busy() const { return core_->listen_fd >= 0 || core_->first != nullptr; }

void HttpServer::poll(std::chrono::milliseconds max_wait) { core_->poll(max_wait); }

void HttpServer::cancel() { core_->cancel(); }

std::optional<std::chrono::steady_clock::time_point> HttpServer::next_deadline() const {
  return core_->next_deadline();
}

}  // namespace parley::serve
