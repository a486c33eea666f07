// NativeHttpTransport: HTTP/1.1 POSTs to plain http:// endpoints on parley's own non-blocking
// sockets, driven from the EventLoop thread through one edge-triggered epoll set. Replies are
// parsed by Boost.Beast's buffer-oriented response parser (Beast as a parser only: no asio I/O);
// requests are one short head we write plus the caller's body. Per call this does a fraction of
// libcurl's work (docs/performance.md), and an idle connection costs a descriptor and a few
// dozen bytes. Only the URLs plain_http_target accepts come here (make_http_transport routes).
//
// A connection is registered once, for input and output, edge-triggered, and stays in the set
// while it is pooled: a server closing an idle connection wakes us and the connection is dropped
// at once. A reused connection that fails before any byte of the reply arrived was closed by the
// server in between; the request is then sent once more on a new connection (counted in
// HttpResponse::resends). A transfer whose CancelSignal fires closes its connection at once (the
// server sees the client go) and completes as cancelled.

#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
// g++ 12 with -fsanitize=address,undefined (PARLEY_SANITIZE) warns that Beast 1.74's
// boost::optional<std::uint64_t> content length "may be used uninitialized" where it is
// inlined; a false positive inside Boost, silenced for these headers only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#pragma GCC diagnostic pop
#include <cerrno>
#include <chrono>
#include <coroutine>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "beast_feed.h"
#include "http_support.h"
#include "parley/llm_client.h"
#include "parley/version.h"
#include "plain_http_target.h"
#include "waitable_transport.h"

namespace parley {
namespace {

namespace beast_http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using Failure = HttpResponse::Failure;
using ReplyParser = beast_http::response_parser<beast_http::string_body>;

struct Transfer;
struct Origin;

// One TCP connection: carrying a transfer, or idle in its origin's pool.
struct Connection {
  int fd = -1;
  Origin* origin = nullptr;
  Transfer* transfer = nullptr;  // while it carries one
  bool served = false;           // a reply was read from it: it is a kept-alive connection
  Connection* previous_idle = nullptr;
  Connection* next_idle = nullptr;
};

// Where requests go (scheme, host and port) and its idle connections, most recently used first.
struct Origin {
  http::PlainHttpTarget target;  // path of the first URL seen; the origin's requests carry their own
  Connection* idle = nullptr;
};

// A URL seen before: its origin and the path to put on the request line.
struct KnownUrl {
  std::string url;
  std::string path;
  Origin* origin = nullptr;
};

// One POST in flight. Lives in the awaiting coroutine's frame.
struct Transfer {
  class NativeHttpTransport* owner = nullptr;
  Transfer* previous = nullptr;  // the transport's list of transfers in flight
  Transfer* next = nullptr;
  HttpRequest request;
  HttpResponse response;
  std::coroutine_handle<> waiter;
  const KnownUrl* url = nullptr;
  Connection* connection = nullptr;
  Clock::time_point started;
  std::optional<Clock::time_point> total_deadline;
  std::multimap<Clock::time_point, Transfer*>::iterator timer;
  bool timed = false;
  bool connecting = false;
  std::size_t address_index = 0;  // which of the origin's addresses is being connected to
  std::string head;       // request line and headers
  std::size_t sent = 0;   // bytes of head and body written
  bool reply_started = false;
  std::optional<ReplyParser> parser;
  std::string unparsed;  // reply bytes the parser has not taken yet (an incomplete header)
  CancelSignal::Subscription cancel_subscription;  // to request.cancel while in flight

  Transfer() = default;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;
  ~Transfer();
};

class NativeHttpTransport final : public WaitableTransport {
 public:
  static constexpr std::size_t kReadBufferBytes = 64 * 1024;
  // libcurl's default when no connect timeout is given.
  static constexpr std::chrono::milliseconds kDefaultConnectTimeout{300000};

  explicit NativeHttpTransport(EventLoop& loop) : loop_(loop) {
    const rlim_t open_files = http::raise_open_file_limit_once();
    // Keep idle connections for reuse, leaving descriptors to spare (as the curl transport does).
    max_idle_ = static_cast<std::size_t>(std::clamp<rlim_t>(open_files, 1024, 1 << 20) - 512);
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
  }

  ~NativeHttpTransport() override {
    while (Transfer* transfer = first_) {
      close_connection(*transfer);
      unlink(*transfer);
    }
    for (const auto& origin : origins_) {
      while (Connection* connection = origin->idle) {
        take_idle(*connection);
        discard(connection);
      }
    }
    bury_closed();
    close(epoll_fd_);
  }

  NativeHttpTransport(const NativeHttpTransport&) = delete;
  NativeHttpTransport& operator=(const NativeHttpTransport&) = delete;

  Async<HttpResponse> post(HttpRequest request) override {
    Transfer transfer;
    transfer.request = std::move(request);
    co_await Start{this, &transfer};
    co_return std::move(transfer.response);
  }

  std::size_t in_flight() const override { return in_flight_; }
  bool busy() const override { return in_flight_ > 0; }
  int wait_fd() const override { return epoll_fd_; }
  std::optional<Clock::time_point> next_deadline() const override {
    if (timers_.empty()) return std::nullopt;
    return timers_.begin()->first;
  }

  void poll(std::chrono::milliseconds max_wait) override {
    const auto wait = http::wait_before(max_wait, next_deadline());
    const int ready = epoll_wait(epoll_fd_, events_.data(), static_cast<int>(events_.size()),
                                 static_cast<int>(wait.count()));
    for (int i = 0; i < ready; ++i) {
      const epoll_event& event = events_[static_cast<std::size_t>(i)];
      auto* connection = static_cast<Connection*>(event.data.ptr);
      if (connection->fd < 0) continue;  // closed earlier in this batch
      if (connection->transfer == nullptr) {
        // An idle connection has nothing to say: the server closed it (or broke the protocol).
        if (event.events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
          take_idle(*connection);
          discard(connection);
        }
        continue;
      }
      advance(*connection->transfer);
    }
    expire_timers();
    bury_closed();
  }

  void cancel() override {
    while (Transfer* transfer = first_) {
      close_connection(*transfer);
      transfer->response = HttpResponse{};
      finish(*transfer, Failure::kCancelled, "the run was stopped");
    }
    bury_closed();
  }

  // The transfer's signal fired: its connection is closed, never pooled (what it carried is
  // half a request or a reply nobody will read, and the server must see the client go). The
  // response keeps its resends: a request sent again before it was cancelled was sent twice.
  void cancel_transfer(Transfer& transfer) {
    fail_connection(transfer, Failure::kCancelled, http::cancelled_message(*transfer.request.cancel));
  }

  // The coroutine frame holding `transfer` is being destroyed while it is in flight.
  void abandon(Transfer& transfer) {
    close_connection(transfer);
    unlink(transfer);
  }

 private:
  struct Start {
    NativeHttpTransport* transport;
    Transfer* transfer;
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> waiter) {
      transfer->waiter = waiter;
      return transport->start(*transfer);
    }
    void await_resume() const noexcept {}
  };

  // Begins the transfer; false when it already ended (refused or failed at once).
  bool start(Transfer& transfer) {
    transfer.started = Clock::now();
    if (loop_.cancelled()) {
      transfer.response.failure = Failure::kCancelled;
      transfer.response.failure_message = "the run was stopped";
      return false;
    }
    const HttpRequest& request = transfer.request;
    if (request.cancel != nullptr && request.cancel->fired()) {
      transfer.response.failure = Failure::kCancelled;
      transfer.response.failure_message = http::cancelled_message(*request.cancel);
      return false;
    }
    transfer.url = known_url(request.url);
    if (transfer.url == nullptr) {
      return fail_at_start(transfer, "the native HTTP transport serves only http:// to an IP address or localhost");
    }
    for (const std::string& line : request.headers) {
      if (line.find_first_of("\r\n") != std::string::npos) {
        return fail_at_start(transfer, "a request header holds a line break");  // never echo it: a secret
      }
    }
    build_head(transfer);
    transfer.owner = this;
    transfer.next = first_;
    if (first_ != nullptr) first_->previous = &transfer;
    first_ = &transfer;
    ++in_flight_;
    if (request.timeout.count() > 0) transfer.total_deadline = transfer.started + request.timeout;
    // Runs from CancelSignal::fire, on the loop thread, between coroutines; it only closes a
    // socket and posts the waiter. unlink() unsubscribes, however the transfer ends.
    if (request.cancel != nullptr)
      transfer.cancel_subscription =
          request.cancel->subscribe([this, &transfer] { cancel_transfer(transfer); });
    if (Connection* idle = transfer.url->origin->idle) {
      take_idle(*idle);
      attach(transfer, *idle);
      set_timer(transfer, transfer.total_deadline);
      send_more(transfer);
    } else {
      connect_next(transfer, 0);
    }
    return true;  // a failure on the way was posted: the waiter resumes on a later turn
  }

  static bool fail_at_start(Transfer& transfer, std::string message) {
    transfer.response.failure = Failure::kConnection;
    transfer.response.failure_message = std::move(message);
    return false;
  }

  // The URL's parsed form, made the first time it is seen (clients send a few URLs many times).
  const KnownUrl* known_url(std::string_view url) {
    for (const auto& known : known_urls_) {
      if (known->url == url) return known.get();
    }
    auto target = http::plain_http_target(url);
    if (!target) return nullptr;
    Origin* origin = nullptr;
    for (const auto& candidate : origins_) {
      if (candidate->target.origin == target->origin) origin = candidate.get();
    }
    if (origin == nullptr) {
      origins_.push_back(std::make_unique<Origin>());
      origin = origins_.back().get();
      origin->target = *target;
    }
    known_urls_.push_back(std::make_unique<KnownUrl>(KnownUrl{std::string(url), target->path, origin}));
    return known_urls_.back().get();
  }

  static void build_head(Transfer& transfer) {
    const HttpRequest& request = transfer.request;
    std::string& head = transfer.head;
    head.reserve(128 + request.url.size() + request.headers.size() * 64);
    head.append("POST ").append(transfer.url->path).append(" HTTP/1.1\r\nHost: ");
    head.append(transfer.url->origin->target.origin).append("\r\n");
    bool user_agent = false;
    for (const std::string& line : request.headers) {
      head.append(line).append("\r\n");
      user_agent = user_agent || http::header_named(line, "user-agent");
    }
    if (!user_agent) head.append("User-Agent: parley/" PARLEY_VERSION "\r\n");
    head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n\r\n");
  }

  // Opens a connection to the origin's address `index` (or the next that can be tried).
  void connect_next(Transfer& transfer, std::size_t index) {
    const auto& addresses = transfer.url->origin->target.addresses;
    int last_error = 0;
    for (; index < addresses.size(); ++index) {
      const sockaddr_in6& address = addresses[index];
      const int fd = socket(address.sin6_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        last_error = errno;
        continue;
      }
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // a request is one write; send it now
      auto* connection = new Connection{fd, transfer.url->origin};
      const socklen_t length = address.sin6_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
      if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), length) != 0 && errno != EINPROGRESS) {
        last_error = errno;
        discard(connection);
        continue;
      }
      // Added once connecting: a socket not yet connecting would report itself writable at once.
      epoll_event event{};
      event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
      event.data.ptr = connection;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
        last_error = errno;
        discard(connection);
        continue;
      }
      attach(transfer, *connection);
      transfer.address_index = index;
      transfer.connecting = true;
      std::optional<Clock::time_point> deadline = transfer.started + connect_timeout(transfer.request);
      if (transfer.total_deadline && *transfer.total_deadline < *deadline) deadline = transfer.total_deadline;
      set_timer(transfer, deadline);
      return;  // epoll reports the outcome (also when connect() completed at once)
    }
    fail(transfer, Failure::kConnection, "could not connect to " + transfer.url->origin->target.origin + ": " +
                                             std::strerror(last_error != 0 ? last_error : ECONNREFUSED));
  }

  static std::chrono::milliseconds connect_timeout(const HttpRequest& request) {
    return request.connect_timeout.count() > 0 ? request.connect_timeout : kDefaultConnectTimeout;
  }

  // Moves the transfer on after its connection reported readiness.
  void advance(Transfer& transfer) {
    if (transfer.connecting) {
      int error = 0;
      socklen_t length = sizeof error;
      if (getsockopt(transfer.connection->fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
      if (error == EINPROGRESS || error == EALREADY) return;
      if (error != 0) {
        const std::size_t next = transfer.address_index + 1;
        close_connection(transfer);
        if (next < transfer.url->origin->target.addresses.size()) {
          connect_next(transfer, next);
        } else {
          fail(transfer, Failure::kConnection,
               "could not connect to " + transfer.url->origin->target.origin + ": " + std::strerror(error));
        }
        return;
      }
      sockaddr_in6 peer{};
      socklen_t peer_length = sizeof peer;
      if (getpeername(transfer.connection->fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0) {
        return;  // not connected yet: a later edge reports it
      }
      transfer.connecting = false;
      set_timer(transfer, transfer.total_deadline);
    }
    if (!send_more(transfer)) return;
    receive(transfer);
  }

  // Writes what the socket takes; true when the whole request is out.
  bool send_more(Transfer& transfer) {
    const std::string& head = transfer.head;
    const std::string_view body = transfer.request.body;
    const std::size_t total = head.size() + body.size();
    while (transfer.sent < total) {
      std::array<iovec, 2> parts{};
      std::size_t count = 0;
      if (transfer.sent < head.size()) {
        parts[count++] = iovec{const_cast<char*>(head.data() + transfer.sent), head.size() - transfer.sent};
      }
      const std::size_t body_sent = transfer.sent > head.size() ? transfer.sent - head.size() : 0;
      if (body_sent < body.size()) {
        parts[count++] = iovec{const_cast<char*>(body.data() + body_sent), body.size() - body_sent};
      }
      msghdr message{};
      message.msg_iov = parts.data();
      message.msg_iovlen = count;
      const ssize_t written = sendmsg(transfer.connection->fd, &message, MSG_NOSIGNAL);
      if (written >= 0) {
        transfer.sent += static_cast<std::size_t>(written);
        continue;
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;  // an edge says when there is room
      broken(transfer, errno);
      return false;
    }
    return true;
  }

  // Reads and parses until the reply is complete or the socket has nothing more for now.
  void receive(Transfer& transfer) {
    while (transfer.connection != nullptr) {
      const ssize_t got = recv(transfer.connection->fd, read_buffer_.data(), read_buffer_.size(), 0);
      if (got > 0) {
        transfer.reply_started = true;
        parse(transfer, read_buffer_.data(), static_cast<std::size_t>(got));
        continue;  // until EAGAIN: a close after the data comes as no new edge
      }
      if (got == 0) {
        end_of_stream(transfer);
        return;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) broken(transfer, errno);
      return;
    }
  }

  void parse(Transfer& transfer, const char* data, std::size_t size) {
    if (!transfer.unparsed.empty()) {
      transfer.unparsed.append(data, size);
      std::string input = std::move(transfer.unparsed);
      transfer.unparsed.clear();
      parse_input(transfer, input.data(), input.size());
    } else {
      parse_input(transfer, data, size);
    }
  }

  void parse_input(Transfer& transfer, const char* data, std::size_t size) {
    while (true) {
      if (!transfer.parser) {
        transfer.parser.emplace();
        transfer.parser->body_limit(transfer.request.max_response_bytes);
      }
      ReplyParser& parser = *transfer.parser;
      std::string_view input(data, size);
      const auto error = http::feed(parser, input, [&](std::size_t) -> boost::system::error_code {
        // Beast 1.74 does not hold a declared Content-Length against body_limit, so it is
        // checked here, before any of the body is read.
        if (const auto length = parser.content_length(); length && *length > transfer.request.max_response_bytes)
          return beast_http::error::body_limit;
        return {};
      });
      data = input.data();
      size = input.size();
      if (error == beast_http::error::body_limit) {
        return fail_connection(transfer, Failure::kTooLarge, too_large_message(transfer));
      }
      if (error) return fail_connection(transfer, Failure::kConnection, "malformed reply: " + error.message());
      if (!parser.is_done()) {
        transfer.unparsed.assign(data, size);  // an incomplete header: put() waits for all of it
        return;
      }
      if (parser.get().result_int() / 100 == 1) {  // an interim reply (100 Continue): the real one follows
        transfer.parser.reset();
        continue;
      }
      return complete(transfer, /*reusable=*/size == 0 && parser.get().keep_alive());
    }
  }

  void end_of_stream(Transfer& transfer) {
    if (transfer.parser && transfer.parser->is_header_done()) {
      boost::system::error_code error;
      transfer.parser->put_eof(error);  // ends a reply whose body runs to the close
      if (!error && transfer.parser->is_done()) return complete(transfer, /*reusable=*/false);
    }
    if (retry_if_stale(transfer)) return;
    fail_connection(transfer, Failure::kConnection,
                    transfer.reply_started ? "the server closed the connection before the reply was complete"
                                           : "the server closed the connection without replying");
  }

  // A send or receive failed with `error`.
  void broken(Transfer& transfer, int error) {
    if (retry_if_stale(transfer)) return;
    fail_connection(transfer, Failure::kConnection,
                    std::string(transfer.reply_started ? "connection lost during the reply: " : "connection lost: ") +
                        std::strerror(error));
  }

  // A kept-alive connection the server closed while it was idle: nothing of this reply came, so
  // the request is sent again on a new connection. Once: a new connection is never stale.
  bool retry_if_stale(Transfer& transfer) {
    if (transfer.reply_started || !transfer.connection->served) return false;
    ++transfer.response.resends;
    close_connection(transfer);
    transfer.sent = 0;
    transfer.parser.reset();
    transfer.unparsed.clear();
    connect_next(transfer, 0);
    return true;
  }

  std::string too_large_message(const Transfer& transfer) const {
    return "reply larger than " + std::to_string(transfer.request.max_response_bytes) + " bytes";
  }

  void complete(Transfer& transfer, bool reusable) {
    auto& reply = transfer.parser->get();
    HttpResponse& response = transfer.response;
    response.status = reply.result_int();
    response.body = std::move(reply.body());
    if (const auto retry_after = reply.find(beast_http::field::retry_after); retry_after != reply.end()) {
      const auto value = retry_after->value();
      response.retry_after_s = http::retry_after_seconds(std::string_view(value.data(), value.size()));
    }
    transfer.parser.reset();
    Connection* connection = transfer.connection;
    detach(transfer);
    if (reusable && idle_count_ < max_idle_) {
      connection->served = true;
      make_idle(*connection);
    } else {
      discard(connection);
    }
    finish(transfer, Failure::kNone, {});
  }

  // Ends the transfer with `failure`, closing its connection (what it carried is unusable).
  void fail_connection(Transfer& transfer, Failure failure, std::string message) {
    close_connection(transfer);
    fail(transfer, failure, std::move(message));
  }

  void fail(Transfer& transfer, Failure failure, std::string message) {
    HttpResponse& response = transfer.response;
    response.status = 0;  // only complete replies count
    response.retry_after_s.reset();
    finish(transfer, failure, std::move(message));
  }

  void finish(Transfer& transfer, Failure failure, std::string message) {
    transfer.response.failure = failure;
    transfer.response.failure_message = std::move(message);
    transfer.response.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - transfer.started).count();
    transfer.parser.reset();
    std::string().swap(transfer.unparsed);
    unlink(transfer);
    loop_.post(transfer.waiter);
  }

  void expire_timers() {
    const auto now = Clock::now();
    while (!timers_.empty() && timers_.begin()->first <= now) {
      Transfer& transfer = *timers_.begin()->second;
      const auto connect_limit = connect_timeout(transfer.request);
      const bool while_connecting = transfer.connecting && (!transfer.total_deadline || connect_limit < transfer.request.timeout);
      fail_connection(transfer, Failure::kTimeout,
                      while_connecting ? "connecting to " + transfer.url->origin->target.origin + " timed out after " +
                                             std::to_string(connect_limit.count()) + " ms"
                                       : "no complete reply within " + std::to_string(transfer.request.timeout.count()) + " ms");
    }
  }

  void set_timer(Transfer& transfer, std::optional<Clock::time_point> deadline) {
    if (transfer.timed) timers_.erase(transfer.timer);
    transfer.timed = deadline.has_value();
    if (deadline) transfer.timer = timers_.emplace(*deadline, &transfer);
  }

  void attach(Transfer& transfer, Connection& connection) {
    transfer.connection = &connection;
    connection.transfer = &transfer;
  }

  void detach(Transfer& transfer) {
    if (transfer.connection != nullptr) transfer.connection->transfer = nullptr;
    transfer.connection = nullptr;
  }

  void close_connection(Transfer& transfer) {
    Connection* connection = transfer.connection;
    detach(transfer);
    if (connection != nullptr) discard(connection);
  }

  // Takes the transfer off the list of those in flight; it stays off (owner cleared).
  void unlink(Transfer& transfer) {
    set_timer(transfer, std::nullopt);
    transfer.cancel_subscription.reset();
    (transfer.previous != nullptr ? transfer.previous->next : first_) = transfer.next;
    if (transfer.next != nullptr) transfer.next->previous = transfer.previous;
    transfer.previous = transfer.next = nullptr;
    transfer.owner = nullptr;
    --in_flight_;
  }

  void make_idle(Connection& connection) {
    Origin& origin = *connection.origin;  // connection.previous_idle is null: it is in no list
    connection.next_idle = origin.idle;
    if (origin.idle != nullptr) origin.idle->previous_idle = &connection;
    origin.idle = &connection;
    ++idle_count_;
  }

  void take_idle(Connection& connection) {
    Origin& origin = *connection.origin;
    (connection.previous_idle != nullptr ? connection.previous_idle->next_idle : origin.idle) = connection.next_idle;
    if (connection.next_idle != nullptr) connection.next_idle->previous_idle = connection.previous_idle;
    connection.previous_idle = connection.next_idle = nullptr;
    --idle_count_;
  }

  // Closes the socket now; the object lives until this poll() has handled its events.
  void discard(Connection* connection) {
    close(connection->fd);  // also leaves the epoll set
    connection->fd = -1;
    closed_.push_back(connection);
  }

  void bury_closed() {
    for (Connection* connection : closed_) delete connection;
    closed_.clear();
  }

  EventLoop& loop_;
  int epoll_fd_ = -1;
  std::size_t max_idle_ = 0;
  std::size_t idle_count_ = 0;
  std::vector<std::unique_ptr<Origin>> origins_;
  std::vector<std::unique_ptr<KnownUrl>> known_urls_;
  Transfer* first_ = nullptr;  // the transfers in flight, linked
  std::size_t in_flight_ = 0;
  std::multimap<Clock::time_point, Transfer*> timers_;  // each transfer's next deadline
  std::vector<Connection*> closed_;
  std::array<epoll_event, 1024> events_{};
  std::array<char, kReadBufferBytes> read_buffer_{};
};

Transfer::~Transfer() {
  if (owner != nullptr) owner->abandon(*this);
}

}  // namespace

std::unique_ptr<WaitableTransport> make_waitable_native_transport(EventLoop& loop) {
  return std::make_unique<NativeHttpTransport>(loop);
}

std::unique_ptr<HttpTransport> make_native_http_transport(EventLoop& loop) {
  return make_waitable_native_transport(loop);
}

}  // namespace parley
