// The event loop of FakeOpenAiServer: one epoll instance, edge-triggered per connection, a
// min-heap of reply deadlines for the epoll_wait timeout, and an eventfd to stop the loop.

#include "support/fake_openai_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <queue>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "support/http_parser.h"

namespace parley::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kListenerTag = UINT64_MAX;
constexpr std::uint64_t kWakeTag = UINT64_MAX - 1;
constexpr std::string_view kChatPath = "/v1/chat/completions";
constexpr std::string_view kEmbeddingsPath = "/v1/embeddings";
// How long a connection we closed for writing waits for the peer's FIN before we drop it.
constexpr auto kDrainTimeout = std::chrono::seconds(2);
// After EMFILE, retry accept later instead of spinning on the level-triggered listener.
constexpr auto kAcceptPause = std::chrono::milliseconds(100);

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

void raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);  // best effort: tests with few connections work without it
}

const char* reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Status";
  }
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The bytes of `response` on the wire; only half the body when it is to be reset mid-body.
std::string serialize(const FakeResponse& response, bool keep_alive) {
  std::string wire =
      "HTTP/1.1 " + std::to_string(response.status) + " " + reason_phrase(response.status) + "\r\n";
  bool has_content_type = false;
  for (const auto& [name, value] : response.headers) {
    // These two describe our framing, so only we may set them.
    if (iequals(name, "content-length") || iequals(name, "connection")) continue;
    has_content_type = has_content_type || iequals(name, "content-type");
    wire += name + ": " + value + "\r\n";
  }
  if (!has_content_type) wire += "Content-Type: application/json\r\n";
  wire += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  wire += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  if (response.reset_mid_body) {
    wire.append(response.body, 0, response.body.size() / 2);
  } else {
    wire += response.body;
  }
  return wire;
}

FakeResponse json_error(int status, const std::string& message) {
  FakeResponse response;
  response.status = status;
  const char* type = status == 404   ? "not_found_error"
                     : status >= 500 ? "server_error"
                                     : "invalid_request_error";
  nlohmann::json body = {{"error", {{"message", message}, {"type", type}, {"code", status}}}};
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

struct OutgoingReply {
  Clock::time_point ready_at;
  std::string bytes;
  bool answers_request = true;  // false for "100 Continue" and framing errors
  bool close_after = false;
  bool reset_after = false;
};

struct Connection {
  enum class Ending { kNone, kClose, kReset };  // what to do once `out` is flushed

  int fd = -1;  // -1 once closed; the object lives until the end of the loop iteration
  std::uint64_t id = 0;
  HttpRequestParser parser;
  std::deque<OutgoingReply> replies;  // request order; each leaves only after those before it
  std::string out;                    // released replies not yet taken by the kernel
  std::size_t out_sent = 0;
  bool reading_requests = true;  // false after a request that ends the connection
  bool peer_closed = false;      // the peer sent FIN
  Ending ending = Ending::kNone;
  bool draining = false;  // we sent FIN and discard input until the peer's FIN (or a timeout)
  Clock::time_point drain_deadline;
};

struct Timer {
  Clock::time_point at;
  std::uint64_t connection;
  bool operator>(const Timer& other) const { return at > other.at; }
};

void update_peak(std::atomic<std::uint64_t>& peak, std::uint64_t value) {
  std::uint64_t seen = peak.load(std::memory_order_relaxed);
  while (value > seen && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

class FakeOpenAiServer::Impl {
 public:
  Impl(Handler handler, int port);
  ~Impl();

  int port() const { return port_; }
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> peak_open_connections{0};
  std::atomic<std::uint64_t> peak_pending{0};
  std::atomic<std::uint64_t> requests_abandoned{0};

 private:
  void run();
  int timeout_ms() const;
  void accept_connections();
  void on_event(Connection& connection, std::uint32_t events);
  void read_input(Connection& connection);
  void handle_requests(Connection& connection);
  FakeResponse route(const FakeRequest& request);
  void enqueue(Connection& connection, OutgoingReply reply);
  void release_and_write(Connection& connection);
  void write_output(Connection& connection);
  void start_drain(Connection& connection);
  void count_abandoned(const Connection& connection);
  void close_connection(Connection& connection, bool reset);
  void run_timers();

  Handler handler_;
  int port_ = 0;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread thread_;

  // Loop-thread state.
  std::unordered_map<std::uint64_t, std::unique_ptr<Connection>> connections_;
  std::vector<std::uint64_t> closed_;  // erased at the end of each iteration
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t next_connection_id_ = 1;
  std::uint64_t next_request_index_ = 0;
  std::uint64_t open_connections_ = 0;
  std::uint64_t pending_ = 0;
  bool accept_paused_ = false;
  Clock::time_point accept_resume_at_;
  std::vector<char> read_buffer_ = std::vector<char>(64 * 1024);
};

FakeOpenAiServer::Impl::Impl(Handler handler, int port) : handler_(std::move(handler)) {
  raise_open_file_limit();
  // On failure the destructor does not run; close what was opened so far here.
  auto cleanup = [this] {
    for (int fd : {listen_fd_, epoll_fd_, wake_fd_}) {
      if (fd >= 0) ::close(fd);
    }
  };
  try {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw_errno("fake server: socket");
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      throw_errno("fake server: bind 127.0.0.1:" + std::to_string(port));
    }
    if (::listen(listen_fd_, SOMAXCONN) != 0) throw_errno("fake server: listen");
    socklen_t length = sizeof address;
    if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw_errno("fake server: getsockname");
    }
    port_ = ntohs(address.sin_port);

    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw_errno("fake server: epoll_create1");
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) throw_errno("fake server: eventfd");
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = kListenerTag;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &event) != 0) throw_errno("fake server: epoll_ctl");
    event.data.u64 = kWakeTag;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &event) != 0) throw_errno("fake server: epoll_ctl");
  } catch (...) {
    cleanup();
    throw;
  }
  thread_ = std::thread([this] { run(); });
}

FakeOpenAiServer::Impl::~Impl() {
  stopping_ = true;
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t written = ::write(wake_fd_, &one, sizeof one);
  thread_.join();
  for (auto& [id, connection] : connections_) {
    if (connection->fd >= 0) ::close(connection->fd);
  }
  ::close(listen_fd_);
  ::close(epoll_fd_);
  ::close(wake_fd_);
}

void FakeOpenAiServer::Impl::run() {
  std::vector<epoll_event> events(1024);
  while (!stopping_) {
    int count = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), timeout_ms());
    if (count < 0 && errno != EINTR) break;  // only EBADF/EINVAL, i.e. a bug: stop rather than spin
    for (int i = 0; i < count; ++i) {
      std::uint64_t tag = events[i].data.u64;
      if (tag == kListenerTag) {
        accept_connections();
      } else if (tag == kWakeTag) {
        std::uint64_t value = 0;
        [[maybe_unused]] ssize_t got = ::read(wake_fd_, &value, sizeof value);
      } else if (auto it = connections_.find(tag); it != connections_.end() && it->second->fd >= 0) {
        on_event(*it->second, events[i].events);
      }
    }
    if (accept_paused_ && Clock::now() >= accept_resume_at_) {
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.u64 = kListenerTag;
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listen_fd_, &event);
      accept_paused_ = false;
    }
    run_timers();
    for (std::uint64_t id : closed_) connections_.erase(id);
    closed_.clear();
  }
}

int FakeOpenAiServer::Impl::timeout_ms() const {
  std::optional<Clock::time_point> next;
  if (!timers_.empty()) next = timers_.top().at;
  if (accept_paused_ && (!next || accept_resume_at_ < *next)) next = accept_resume_at_;
  if (!next) return -1;
  auto wait = *next - Clock::now();
  if (wait <= Clock::duration::zero()) return 0;
  // Round up: waking a little early would only spin until the deadline.
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(wait).count();
  return static_cast<int>(std::min<decltype(ms)>(ms, 60'000));
}

void FakeOpenAiServer::Impl::accept_connections() {
  // A bounded batch keeps replies flowing during a connection storm; the listener is
  // level-triggered, so the rest come back on the next epoll_wait.
  for (int batch = 0; batch < 512; ++batch) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        epoll_event event{};
        event.data.u64 = kListenerTag;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listen_fd_, &event);
        accept_paused_ = true;
        accept_resume_at_ = Clock::now() + kAcceptPause;
      }
      return;  // EAGAIN, or nothing more we can do now
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto connection = std::make_unique<Connection>();
    connection->fd = fd;
    connection->id = next_connection_id_++;
    // Edge-triggered for both directions: registered once, never modified.
    epoll_event event{};
    event.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    event.data.u64 = connection->id;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
      ::close(fd);
      continue;
    }
    connections_.emplace(connection->id, std::move(connection));
    connections_accepted.fetch_add(1, std::memory_order_relaxed);
    update_peak(peak_open_connections, ++open_connections_);
  }
}

void FakeOpenAiServer::Impl::on_event(Connection& connection, std::uint32_t events) {
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) read_input(connection);
  if (connection.fd >= 0 && (events & EPOLLOUT)) write_output(connection);
}

void FakeOpenAiServer::Impl::read_input(Connection& connection) {
  while (!connection.peer_closed) {
    ssize_t got = ::recv(connection.fd, read_buffer_.data(), read_buffer_.size(), 0);
    if (got > 0) {
      if (!connection.reading_requests) continue;  // the connection is ending: discard
      connection.parser.feed(std::string_view(read_buffer_.data(), static_cast<std::size_t>(got)));
      handle_requests(connection);
      if (connection.fd < 0) return;
    } else if (got == 0) {
      connection.peer_closed = true;
      count_abandoned(connection);
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      break;
    } else {
      count_abandoned(connection);
      close_connection(connection, false);  // ECONNRESET and the like
      return;
    }
  }
  if (connection.draining && connection.peer_closed) {
    close_connection(connection, false);
    return;
  }
  release_and_write(connection);
}

void FakeOpenAiServer::Impl::handle_requests(Connection& connection) {
  while (connection.reading_requests) {
    HttpRequest http;
    ParseResult result = connection.parser.next(http);
    Clock::time_point now = Clock::now();
    if (result == ParseResult::kNeedMore) {
      if (connection.parser.take_continue()) {
        enqueue(connection, {now, "HTTP/1.1 100 Continue\r\n\r\n", false, false, false});
      }
      return;
    }
    if (result == ParseResult::kError) {
      FakeResponse error = json_error(connection.parser.error_status(), connection.parser.error_message());
      enqueue(connection, {now, serialize(error, false), false, true, false});
      connection.reading_requests = false;
      return;
    }

    FakeRequest request;
    request.method = std::move(http.method);
    request.path = std::move(http.target);
    request.headers = std::move(http.headers);
    request.body = std::move(http.body);
    request.index = next_request_index_++;
    request.connection = connection.id;
    requests.fetch_add(1, std::memory_order_relaxed);
    update_peak(peak_pending, ++pending_);

    FakeResponse response = route(request);
    bool keep_alive = http.keep_alive && !response.close_after && !response.reset_mid_body && !response.close_unanswered;
    OutgoingReply reply{now + std::chrono::milliseconds(std::max(response.delay_ms, 0)),
                        response.close_unanswered ? std::string() : serialize(response, keep_alive), true, !keep_alive,
                        response.reset_mid_body};
    if (!keep_alive) connection.reading_requests = false;
    enqueue(connection, std::move(reply));
  }
}

FakeResponse FakeOpenAiServer::Impl::route(const FakeRequest& request) {
  std::string_view path = request.path;
  path = path.substr(0, path.find('?'));
  if (request.method != "POST" || (path != kChatPath && path != kEmbeddingsPath)) {
    return json_error(404, "fake server: no route for " + request.method + " " + request.path);
  }
  try {
    return handler_(request);
  } catch (const std::exception& error) {
    return json_error(500, std::string("fake server: handler threw: ") + error.what());
  } catch (...) {
    return json_error(500, "fake server: handler threw");
  }
}

void FakeOpenAiServer::Impl::enqueue(Connection& connection, OutgoingReply reply) {
  if (reply.ready_at > Clock::now()) timers_.push({reply.ready_at, connection.id});
  connection.replies.push_back(std::move(reply));
}

void FakeOpenAiServer::Impl::release_and_write(Connection& connection) {
  Clock::time_point now = Clock::now();
  while (connection.ending == Connection::Ending::kNone && !connection.replies.empty() &&
         connection.replies.front().ready_at <= now) {
    OutgoingReply& reply = connection.replies.front();
    if (connection.out_sent == connection.out.size()) {
      connection.out.clear();
      connection.out_sent = 0;
    }
    connection.out += reply.bytes;
    if (reply.answers_request) --pending_;
    if (reply.reset_after) {
      connection.ending = Connection::Ending::kReset;
    } else if (reply.close_after) {
      connection.ending = Connection::Ending::kClose;
    }
    connection.replies.pop_front();
  }
  write_output(connection);
}

void FakeOpenAiServer::Impl::write_output(Connection& connection) {
  while (connection.out_sent < connection.out.size()) {
    ssize_t sent = ::send(connection.fd, connection.out.data() + connection.out_sent,
                          connection.out.size() - connection.out_sent, MSG_NOSIGNAL);
    if (sent >= 0) {
      connection.out_sent += static_cast<std::size_t>(sent);
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return;  // EPOLLOUT (edge-triggered) calls back when there is room
    } else {
      close_connection(connection, false);  // EPIPE, ECONNRESET: the peer is gone
      return;
    }
  }
  connection.out.clear();
  connection.out_sent = 0;
  if (connection.ending == Connection::Ending::kReset) {
    close_connection(connection, true);
  } else if (connection.ending == Connection::Ending::kClose) {
    if (!connection.draining) start_drain(connection);
  } else if (connection.peer_closed && connection.replies.empty()) {
    close_connection(connection, false);
  }
}

void FakeOpenAiServer::Impl::count_abandoned(const Connection& connection) {
  const auto unanswered = std::count_if(connection.replies.begin(), connection.replies.end(),
                                        [](const OutgoingReply& reply) { return reply.answers_request; });
  requests_abandoned.fetch_add(static_cast<std::uint64_t>(unanswered), std::memory_order_relaxed);
}

void FakeOpenAiServer::Impl::start_drain(Connection& connection) {
  // close() with unread input would send RST and could destroy the reply in flight; send FIN
  // and wait for the peer's instead.
  if (connection.peer_closed) {
    close_connection(connection, false);
    return;
  }
  ::shutdown(connection.fd, SHUT_WR);
  connection.draining = true;
  connection.reading_requests = false;
  connection.drain_deadline = Clock::now() + kDrainTimeout;
  timers_.push({connection.drain_deadline, connection.id});
}

void FakeOpenAiServer::Impl::close_connection(Connection& connection, bool reset) {
  if (connection.fd < 0) return;
  if (reset) {
    linger abort{1, 0};  // close() now sends RST and drops anything unsent
    ::setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  }
  ::close(connection.fd);
  connection.fd = -1;
  for (const OutgoingReply& reply : connection.replies) {
    if (reply.answers_request) --pending_;
  }
  connection.replies.clear();
  --open_connections_;
  closed_.push_back(connection.id);
}

void FakeOpenAiServer::Impl::run_timers() {
  Clock::time_point now = Clock::now();
  while (!timers_.empty() && timers_.top().at <= now) {
    std::uint64_t id = timers_.top().connection;
    timers_.pop();
    // Stale timers (the connection closed, or its reply already left) just find nothing to do.
    auto it = connections_.find(id);
    if (it == connections_.end() || it->second->fd < 0) continue;
    Connection& connection = *it->second;
    if (connection.draining) {
      if (now >= connection.drain_deadline) close_connection(connection, false);
    } else {
      release_and_write(connection);
    }
  }
}

FakeOpenAiServer::FakeOpenAiServer(Handler handler) : FakeOpenAiServer(std::move(handler), 0) {}
FakeOpenAiServer::FakeOpenAiServer(Handler handler, int port)
    : impl_(std::make_unique<Impl>(std::move(handler), port)) {}
FakeOpenAiServer::~FakeOpenAiServer() = default;

int FakeOpenAiServer::port() const { return impl_->port(); }
std::string FakeOpenAiServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/v1";
}
std::uint64_t FakeOpenAiServer::requests() const { return impl_->requests.load(); }
std::uint64_t FakeOpenAiServer::connections_accepted() const { return impl_->connections_accepted.load(); }
std::uint64_t FakeOpenAiServer::peak_open_connections() const { return impl_->peak_open_connections.load(); }
std::uint64_t FakeOpenAiServer::peak_pending() const { return impl_->peak_pending.load(); }
std::uint64_t FakeOpenAiServer::requests_abandoned() const { return impl_->requests_abandoned.load(); }

}  // namespace parley::testing
