// Both HTTP transports (libcurl's and the native one) against loopback servers that send exact
// bytes: every behaviour here is checked on each of them, so their parity is tested, not assumed.
// Routing and the native transport's own limits follow at the end.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "llm/http_support.h"
#include "parley/llm_client.h"
#include "support/http_parser.h"

namespace parley {
namespace {

using Clock = std::chrono::steady_clock;
using Failure = HttpResponse::Failure;
using namespace std::chrono_literals;

// What the server does with one request: send `reply` (raw bytes) after `delay`, then close the
// connection or not. An empty reply with close_after closes without replying.
struct Answer {
  std::string reply;
  bool close_after = false;
  std::chrono::milliseconds delay{0};
  std::size_t piece_bytes = 0;  // > 0: sent in pieces this long, a millisecond apart
  bool reset_after = false;     // then reset the connection (RST, not FIN)
};

// A request as the server saw it.
struct Seen {
  testing::HttpRequest request;
  int connection = 0;  // 1, 2, ... in accept order
};

std::string reply_with_length(std::string_view body, std::string_view extra_headers = "") {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + std::string(extra_headers) +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

// A listening socket on 127.0.0.1 (an ephemeral port) with room for `backlog` connections
// waiting to be accepted; returns the descriptor and sets `port`. Throws std::system_error.
int listen_on_loopback(int backlog, int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, backlog) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::system_error(errno, std::generic_category(), "listening on 127.0.0.1");
  }
  port = ntohs(address.sin_port);
  return fd;
}

std::string url_of(int port, std::string_view path = "/v1/chat/completions") {
  return "http://127.0.0.1:" + std::to_string(port) + std::string(path);
}

// A thread per connection; answers request i (in arrival order) with answer(i). Serves from
// construction on.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::function<Answer(std::size_t)> answer, int backlog = 64)
      : answer_(std::move(answer)), listen_fd_(listen_on_loopback(backlog, port_)) {
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~ScriptedServer() {
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    if (acceptor_.joinable()) acceptor_.join();
    {
      std::lock_guard lock(mutex_);
      for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& thread : connections_) thread.join();
    ::close(listen_fd_);
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  int port() const { return port_; }
  std::string url(std::string_view path = "/v1/chat/completions") const { return url_of(port_, path); }
  std::vector<Seen> seen() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }
  int connections() const { return accepted_; }
  // Connections the client closed while the server was still to answer a request on them.
  int hangups() const { return hangups_; }
  // Waits (up to two seconds) until `count` hang-ups were seen; false if they were not.
  bool await_hangups(int count) const {
    for (auto waited = 0ms; waited < 2000ms; waited += 5ms) {
      if (hangups_ >= count) return true;
      std::this_thread::sleep_for(5ms);
    }
    return hangups_ >= count;
  }

 private:
  // Whether the client closed its end (an orderly FIN or a reset) of `fd`: what a server sees
  // of a client that went away while it was working on the reply.
  static bool client_closed(int fd) {
    char byte = 0;
    const ssize_t got = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
  }

  void accept_loop() {
    while (!stopping_) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      const int connection = ++accepted_;
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // pieces go out as they are sent
      std::lock_guard lock(mutex_);
      open_.push_back(fd);
      connections_.emplace_back([this, fd, connection] { serve(fd, connection); });
    }
  }

  void serve(int fd, int connection) {
    testing::HttpRequestParser parser;
    char buffer[16384];
    bool open = true;
    while (open && !stopping_) {
      const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
      if (got <= 0) break;
      parser.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
      testing::HttpRequest request;
      while (open && parser.next(request) == testing::ParseResult::kRequest) {
        std::size_t index = 0;
        {
          std::lock_guard lock(mutex_);
          index = seen_.size();
          seen_.push_back({request, connection});
        }
        const Answer answer = answer_(index);
        for (auto waited = 0ms; waited < answer.delay && !stopping_ && open; waited += 10ms) {
          std::this_thread::sleep_for(10ms);
          if (client_closed(fd)) {
            ++hangups_;
            open = false;
          }
        }
        if (!open) break;
        std::string_view out = answer.reply;
        while (!out.empty()) {
          const std::size_t piece = answer.piece_bytes > 0 ? std::min(answer.piece_bytes, out.size()) : out.size();
          if (answer.piece_bytes > 0) std::this_thread::sleep_for(1ms);
          const ssize_t sent = ::send(fd, out.data(), piece, MSG_NOSIGNAL);
          if (sent <= 0) break;
          out.remove_prefix(static_cast<std::size_t>(sent));
        }
        if (answer.reset_after) {
          const linger abort_on_close{1, 0};
          ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
        }
        if (answer.close_after || answer.reset_after) open = false;
      }
    }
    std::lock_guard lock(mutex_);
    std::erase(open_, fd);
    ::close(fd);
  }

  std::function<Answer(std::size_t)> answer_;
  int port_ = 0;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> hangups_{0};
  mutable std::mutex mutex_;
  std::vector<Seen> seen_;
  std::vector<int> open_;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

// A listener that never accepts, its queue filled, so that connecting to it never completes.
class FullListener {
 public:
  FullListener() : listen_fd_(listen_on_loopback(0, port_)) {
    for (int i = 0; i < 4; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(static_cast<std::uint16_t>(port_));
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
      fillers_.push_back(fd);
    }
    std::this_thread::sleep_for(50ms);
  }
  ~FullListener() {
    for (int fd : fillers_) ::close(fd);
    ::close(listen_fd_);
  }
  FullListener(const FullListener&) = delete;
  FullListener& operator=(const FullListener&) = delete;
  int port() const { return port_; }
  std::string url() const { return url_of(port_); }

 private:
  int port_ = 0;
  int listen_fd_ = -1;
  std::vector<int> fillers_;
};

// A loopback port nothing listens on (it did a moment ago): connecting is refused.
int refused_port() {
  int port = 0;
  ::close(listen_on_loopback(1, port));
  return port;
}

enum class Kind { kCurl, kNative };

std::unique_ptr<HttpTransport> make_transport(Kind kind, EventLoop& loop) {
  return kind == Kind::kCurl ? make_curl_transport(loop) : make_native_http_transport(loop);
}

// POSTs through one transport on its own loop.
class TransportTest : public ::testing::TestWithParam<Kind> {
 protected:
  TransportTest() : transport_(make_transport(GetParam(), loop_)) { loop_.add_io(transport_.get()); }
  ~TransportTest() override { loop_.remove_io(transport_.get()); }

  HttpRequest request_to(const std::string& url) {
    url_ = url;
    HttpRequest request;
    request.url = url_;
    request.body = body_;
    request.headers = headers_;
    request.timeout = 5000ms;
    request.connect_timeout = 2000ms;
    return request;
  }

  std::vector<HttpResponse> post_all(const std::vector<HttpRequest>& requests) {
    std::vector<HttpResponse> responses(requests.size());
    auto one = [&](std::size_t i) -> Async<void> { responses[i] = co_await transport_->post(requests[i]); };
    for (std::size_t i = 0; i < requests.size(); ++i) loop_.spawn(one(i));
    loop_.run();
    EXPECT_EQ(transport_->in_flight(), 0u);
    return responses;
  }
  HttpResponse post(const HttpRequest& request) { return post_all({request})[0]; }

  EventLoop loop_;
  std::unique_ptr<HttpTransport> transport_;
  std::string url_;
  std::string body_ = R"({"model":"m"})";
  std::vector<std::string> headers_ = {"Content-Type: application/json", "Authorization: Bearer sk-test-secret"};
};

void expect_reply(const HttpResponse& response, int status, std::string_view body) {
  EXPECT_EQ(response.failure, Failure::kNone) << response.failure_message;
  EXPECT_EQ(response.status, status);
  EXPECT_EQ(response.body, body);
}

void expect_failure(const HttpResponse& response, Failure failure) {
  EXPECT_EQ(response.failure, failure) << response.failure_message;
  EXPECT_EQ(response.status, 0);
  EXPECT_TRUE(response.body.empty());
  EXPECT_FALSE(response.failure_message.empty());
  EXPECT_EQ(response.failure_message.find('\n'), std::string::npos);
  EXPECT_EQ(response.failure_message.find("sk-test-secret"), std::string::npos);
}

TEST_P(TransportTest, SendsThePostWithItsHeadersAndBody) {
  ScriptedServer server([](std::size_t) { return Answer{reply_with_length("{}")}; });
  expect_reply(post(request_to(server.url("/v1/chat/completions?x=1"))), 200, "{}");
  const auto seen = server.seen();
  ASSERT_EQ(seen.size(), 1u);
  const testing::HttpRequest& request = seen[0].request;
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.target, "/v1/chat/completions?x=1");
  EXPECT_EQ(request.headers.at("host"), "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(request.headers.at("content-type"), "application/json");
  EXPECT_EQ(request.headers.at("authorization"), "Bearer sk-test-secret");
  EXPECT_EQ(request.headers.at("content-length"), std::to_string(body_.size()));
  EXPECT_TRUE(request.headers.at("user-agent").starts_with("parley/"));
  EXPECT_EQ(request.body, body_);
}

TEST_P(TransportTest, SequentialPostsReuseOneConnection) {
  ScriptedServer server([](std::size_t i) { return Answer{reply_with_length("reply " + std::to_string(i))}; });
  for (int i = 0; i < 5; ++i) expect_reply(post(request_to(server.url())), 200, "reply " + std::to_string(i));
  EXPECT_EQ(server.connections(), 1);
}

// The server closes a kept-alive connection while it is idle (as servers do after their
// keep-alive timeout): the next request fails on it before any reply and is sent again, once,
// on a new connection.
TEST_P(TransportTest, AConnectionClosedWhileIdleIsReplacedOnce) {
  ScriptedServer server([](std::size_t i) { return Answer{reply_with_length("reply " + std::to_string(i)), i == 0}; });
  expect_reply(post(request_to(server.url())), 200, "reply 0");
  std::this_thread::sleep_for(100ms);  // the close has arrived
  expect_reply(post(request_to(server.url())), 200, "reply 1");
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.seen().size(), 2u);
}

// The server reads a request on a kept-alive connection and closes it without replying (its
// keep-alive timeout ended as the request arrived): the request is sent again, once, on a new
// connection, and the response says so.
TEST_P(TransportTest, ARequestOnAConnectionClosedUnansweredIsResentAndCounted) {
  ScriptedServer server([](std::size_t i) {
    if (i == 1) return Answer{"", true};
    return Answer{reply_with_length("reply " + std::to_string(i))};
  });
  const HttpResponse first = post(request_to(server.url()));
  expect_reply(first, 200, "reply 0");
  EXPECT_EQ(first.resends, 0);
  const HttpResponse resent = post(request_to(server.url()));
  expect_reply(resent, 200, "reply 2");
  EXPECT_EQ(resent.resends, 1);
  const auto seen = server.seen();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].connection, 1);
  EXPECT_EQ(seen[2].connection, 2);
  EXPECT_EQ(seen[2].request.body, body_);
}

// A failure after a reply began is not retried by the transport (the client's policy decides).
TEST_P(TransportTest, AReusedConnectionClosedMidReplyIsAConnectionFailure) {
  ScriptedServer server([](std::size_t i) {
    if (i == 0) return Answer{reply_with_length("first")};
    return Answer{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":", true};
  });
  expect_reply(post(request_to(server.url())), 200, "first");
  expect_failure(post(request_to(server.url())), Failure::kConnection);
  EXPECT_EQ(server.seen().size(), 2u);
}

TEST_P(TransportTest, ChunkedAndCloseDelimitedBodiesAreRead) {
  ScriptedServer server([](std::size_t i) {
    if (i == 0) {
      return Answer{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n"};
    }
    return Answer{"HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\n\r\nuntil the close", true};
  });
  expect_reply(post(request_to(server.url())), 200, "hello, world");
  expect_reply(post(request_to(server.url())), 201, "until the close");
}

// A reply cut anywhere (inside the status line, a header, a chunk size) is put back together.
TEST_P(TransportTest, RepliesArrivingInPiecesAreReassembled) {
  ScriptedServer server([](std::size_t i) {
    if (i == 0) return Answer{reply_with_length("{\"a\":1}", "Retry-After: 7\r\n"), false, 0ms, 3};
    return Answer{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n",
                  false, 0ms, 2};
  });
  const HttpResponse first = post(request_to(server.url()));
  expect_reply(first, 200, "{\"a\":1}");
  EXPECT_EQ(first.retry_after_s, 7.0);
  expect_reply(post(request_to(server.url())), 200, "hello, world");
  EXPECT_EQ(server.connections(), 1);
}

// "Connection: close" means the connection is not used again, even if the server leaves it open.
TEST_P(TransportTest, ConnectionCloseIsHonoured) {
  ScriptedServer server([](std::size_t i) {
    return Answer{reply_with_length("reply " + std::to_string(i), i == 0 ? "Connection: close\r\n" : "")};
  });
  expect_reply(post(request_to(server.url())), 200, "reply 0");
  expect_reply(post(request_to(server.url())), 200, "reply 1");
  const auto seen = server.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].connection, 1);
  EXPECT_EQ(seen[1].connection, 2);
}

TEST_P(TransportTest, RefusedConnectionIsAConnectionFailure) {
  const HttpResponse response = post(request_to(url_of(refused_port(), "/v1")));
  expect_failure(response, Failure::kConnection);
}

// A listener whose accept queue is full drops new SYNs, so connecting never completes.
TEST_P(TransportTest, ConnectTimeoutIsATimeout) {
  const FullListener full;
  HttpRequest request = request_to(full.url());
  request.connect_timeout = 300ms;
  const auto started = Clock::now();
  const HttpResponse response = post(request);
  expect_failure(response, Failure::kTimeout);
  EXPECT_GE(Clock::now() - started, 250ms);
  EXPECT_LT(Clock::now() - started, 3000ms);
}

TEST_P(TransportTest, SlowReplyIsATimeout) {
  ScriptedServer server([](std::size_t) { return Answer{reply_with_length("late"), false, 3000ms}; });
  HttpRequest request = request_to(server.url());
  request.timeout = 300ms;
  const auto started = Clock::now();
  expect_failure(post(request), Failure::kTimeout);
  EXPECT_GE(Clock::now() - started, 250ms);
  EXPECT_LT(Clock::now() - started, 2500ms);
}

TEST_P(TransportTest, BodyOverTheLimitIsTooLargeWhetherDeclaredOrChunked) {
  ScriptedServer server([](std::size_t i) {
    if (i == 0) return Answer{reply_with_length("0123456789")};
    return Answer{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n5\r\n6789A\r\n0\r\n\r\n"};
  });
  HttpRequest request = request_to(server.url());
  request.max_response_bytes = 9;
  const HttpResponse declared = post(request);
  expect_failure(declared, Failure::kTooLarge);
  EXPECT_EQ(declared.failure_message, "reply larger than 9 bytes");
  request.max_response_bytes = 10;
  expect_failure(post(request), Failure::kTooLarge);  // 11 bytes in two chunks
}

TEST_P(TransportTest, BodyOfExactlyTheLimitIsRead) {
  ScriptedServer server([](std::size_t i) {
    if (i == 0) return Answer{reply_with_length("0123456789")};
    return Answer{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n4\r\n6789\r\n0\r\n\r\n"};
  });
  HttpRequest request = request_to(server.url());
  request.max_response_bytes = 10;
  expect_reply(post(request), 200, "0123456789");
  expect_reply(post(request), 200, "0123456789");
}

TEST_P(TransportTest, ServerClosingMidBodyIsAConnectionFailure) {
  ScriptedServer server(
      [](std::size_t) { return Answer{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":", true}; });
  expect_failure(post(request_to(server.url())), Failure::kConnection);
}

TEST_P(TransportTest, ResetMidBodyIsAConnectionFailure) {
  ScriptedServer server([](std::size_t) {
    Answer answer{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":"};
    answer.reset_after = true;
    return answer;
  });
  const auto started = Clock::now();
  expect_failure(post(request_to(server.url())), Failure::kConnection);
  EXPECT_LT(Clock::now() - started, 2000ms);  // at once, not at the timeout
}

// An interim "100 Continue" is skipped; the reply that follows is the one returned.
TEST_P(TransportTest, AnInterimReplyIsSkipped) {
  ScriptedServer server([](std::size_t) { return Answer{"HTTP/1.1 100 Continue\r\n\r\n" + reply_with_length("final")}; });
  expect_reply(post(request_to(server.url())), 200, "final");
  expect_reply(post(request_to(server.url())), 200, "final");
  EXPECT_EQ(server.connections(), 1);
}

TEST_P(TransportTest, ServerClosingWithoutReplyingIsAConnectionFailure) {
  ScriptedServer server([](std::size_t) { return Answer{"", true}; });
  expect_failure(post(request_to(server.url())), Failure::kConnection);
}

TEST_P(TransportTest, RetryAfterSecondsIsReadAndTheDateFormIgnored) {
  ScriptedServer server([](std::size_t i) {
    const std::string header = i == 0 ? "Retry-After: 3\r\n" : "Retry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n";
    return Answer{"HTTP/1.1 429 Too Many Requests\r\n" + header + "Content-Length: 2\r\n\r\n{}"};
  });
  const HttpResponse seconds = post(request_to(server.url()));
  expect_reply(seconds, 429, "{}");
  EXPECT_EQ(seconds.retry_after_s, 3.0);
  const HttpResponse date = post(request_to(server.url()));
  expect_reply(date, 429, "{}");
  EXPECT_FALSE(date.retry_after_s.has_value());
}

TEST_P(TransportTest, CancelEndsEveryTransferAndRefusesNewOnes) {
  ScriptedServer server([](std::size_t) { return Answer{reply_with_length("late"), false, 60000ms}; });
  const HttpRequest request = request_to(server.url());
  std::vector<HttpResponse> responses(3);
  auto one = [&](std::size_t i) -> Async<void> { responses[i] = co_await transport_->post(request); };
  auto canceller = [&]() -> Async<void> {
    while (server.seen().size() < 2) co_await loop_.sleep_for(5ms);
    loop_.cancel();
    responses[2] = co_await transport_->post(request);  // after the cancel
  };
  loop_.spawn(one(0));
  loop_.spawn(one(1));
  loop_.spawn(canceller());
  const auto started = Clock::now();
  loop_.run();
  EXPECT_LT(Clock::now() - started, 5000ms);
  EXPECT_EQ(transport_->in_flight(), 0u);
  for (const HttpResponse& response : responses) {
    expect_failure(response, Failure::kCancelled);
    EXPECT_EQ(response.failure_message, "the run was stopped");
  }
  EXPECT_EQ(server.seen().size(), 2u);
}

// A fired signal ends its own transfer only: the connection it went out on is closed, so the
// server sees the client go (a gateway's client went away, and so must its backend call), and it
// is not reused; the other transfer in flight completes as usual.
TEST_P(TransportTest, ASignalEndsItsTransferAndTheServerSeesItsConnectionClose) {
  ScriptedServer server([](std::size_t i) {
    return Answer{reply_with_length("reply " + std::to_string(i)), false, i == 0 ? 60000ms : 300ms};
  });
  CancelSignal signal;
  HttpRequest cancellable = request_to(server.url());
  cancellable.cancel = &signal;
  const HttpRequest plain = request_to(server.url());
  std::vector<HttpResponse> responses(3);
  auto first = [&]() -> Async<void> { responses[0] = co_await transport_->post(cancellable); };
  auto second = [&]() -> Async<void> {
    while (server.seen().empty()) co_await loop_.sleep_for(5ms);  // the cancellable one arrives first
    responses[1] = co_await transport_->post(plain);
  };
  auto canceller = [&]() -> Async<void> {
    while (server.seen().size() < 2) co_await loop_.sleep_for(5ms);
    EXPECT_EQ(signal.subscribers(), 1u);
    signal.fire("client went away");
    EXPECT_EQ(signal.subscribers(), 0u);
  };
  loop_.spawn(first());
  loop_.spawn(second());
  loop_.spawn(canceller());
  const auto started = Clock::now();
  loop_.run();
  EXPECT_LT(Clock::now() - started, 5000ms);
  expect_failure(responses[0], Failure::kCancelled);
  EXPECT_EQ(responses[0].failure_message, "client went away");
  expect_reply(responses[1], 200, "reply 1");
  EXPECT_TRUE(server.await_hangups(1)) << "the server never saw the cancelled transfer's connection close";
  EXPECT_EQ(transport_->in_flight(), 0u);
  // The next request goes out on a connection that did not carry the cancelled transfer.
  expect_reply(post(plain), 200, "reply 2");
  const std::vector<Seen> seen = server.seen();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_NE(seen[2].connection, seen[0].connection);
  EXPECT_EQ(server.hangups(), 1);
}

// A request sent again on a new connection (its kept-alive one was closed unanswered) and then
// cancelled still says it was sent twice.
TEST_P(TransportTest, ACancelledTransferKeepsItsResends) {
  ScriptedServer server([](std::size_t i) {
    if (i == 1) return Answer{"", true};
    if (i == 2) return Answer{reply_with_length("late"), false, 60000ms};
    return Answer{reply_with_length("reply " + std::to_string(i))};
  });
  expect_reply(post(request_to(server.url())), 200, "reply 0");
  CancelSignal signal;
  HttpRequest request = request_to(server.url());
  request.cancel = &signal;
  std::optional<HttpResponse> response;
  auto poster = [&]() -> Async<void> { response = co_await transport_->post(request); };
  auto canceller = [&]() -> Async<void> {
    while (server.seen().size() < 3) co_await loop_.sleep_for(5ms);
    signal.fire();
  };
  loop_.spawn(poster());
  loop_.spawn(canceller());
  loop_.run();
  ASSERT_TRUE(response.has_value());
  expect_failure(*response, Failure::kCancelled);
  EXPECT_EQ(response->resends, 1);
  EXPECT_TRUE(server.await_hangups(1));
}

TEST_P(TransportTest, AnAlreadyFiredSignalEndsThePostAtOnceWithNothingSent) {
  ScriptedServer server([](std::size_t) { return Answer{reply_with_length("unused")}; });
  CancelSignal signal;
  signal.fire("deadline passed");
  HttpRequest request = request_to(server.url());
  request.cancel = &signal;
  const HttpResponse response = post(request);
  expect_failure(response, Failure::kCancelled);
  EXPECT_EQ(response.failure_message, "deadline passed");
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(server.connections(), 0);
}

// Cancelled while connecting: the half-open connection is dropped at once.
TEST_P(TransportTest, ASignalEndsATransferStillConnecting) {
  FullListener listener;
  CancelSignal signal;
  HttpRequest request = request_to(listener.url());
  request.cancel = &signal;
  request.connect_timeout = 60000ms;
  request.timeout = 60000ms;
  std::optional<HttpResponse> response;
  auto poster = [&]() -> Async<void> { response = co_await transport_->post(request); };
  auto canceller = [&]() -> Async<void> {
    co_await loop_.sleep_for(100ms);
    signal.fire();
  };
  loop_.spawn(poster());
  loop_.spawn(canceller());
  const auto started = Clock::now();
  loop_.run();
  EXPECT_LT(Clock::now() - started, 5000ms);
  ASSERT_TRUE(response.has_value());
  expect_failure(*response, Failure::kCancelled);
  EXPECT_EQ(response->failure_message, "cancelled");
  EXPECT_EQ(transport_->in_flight(), 0u);
}

// A transfer that ends otherwise lets go of its signal: firing it later reaches nothing.
TEST_P(TransportTest, ATransferThatEndsUnsubscribesFromItsSignal) {
  ScriptedServer server([](std::size_t) { return Answer{reply_with_length("done")}; });
  CancelSignal signal;
  HttpRequest request = request_to(server.url());
  request.cancel = &signal;
  expect_reply(post(request), 200, "done");
  EXPECT_EQ(signal.subscribers(), 0u);
  signal.fire();
  expect_reply(post(request_to(server.url())), 200, "done");  // the pooled connection still serves
  EXPECT_EQ(server.connections(), 1);
}

TEST_P(TransportTest, HundredsInFlightFromOneThread) {
  ScriptedServer server([](std::size_t i) { return Answer{reply_with_length(std::to_string(i)), false, 300ms}; }, 512);
  const HttpRequest request = request_to(server.url());
  const std::vector<HttpRequest> requests(300, request);
  const auto responses = post_all(requests);
  for (const HttpResponse& response : responses) EXPECT_EQ(response.status, 200) << response.failure_message;
  EXPECT_EQ(server.connections(), 300);  // all at once: none waited for another's connection
}

std::string kind_name(const ::testing::TestParamInfo<Kind>& param) { return param.param == Kind::kCurl ? "Curl" : "Native"; }
INSTANTIATE_TEST_SUITE_P(BothTransports, TransportTest, ::testing::Values(Kind::kCurl, Kind::kNative), kind_name);

// ---- The native transport's limits and the routing transport -----------------------------

// An event loop driven by one transport, made by `make`.
struct Driven {
  explicit Driven(std::unique_ptr<HttpTransport> (*make)(EventLoop&)) : transport(make(loop)) {
    loop.add_io(transport.get());
  }
  ~Driven() { loop.remove_io(transport.get()); }
  HttpResponse post(const HttpRequest& request) {
    HttpResponse response;
    auto one = [&]() -> Async<void> { response = co_await transport->post(request); };
    loop.spawn(one());
    loop.run();
    return response;
  }
  EventLoop loop;
  std::unique_ptr<HttpTransport> transport;
};

TEST(NativeHttpTransport, AUrlItDoesNotServeFailsAtOnce) {
  Driven native(make_native_http_transport);
  for (const std::string url : {"https://127.0.0.1:1/v1", "http://example.invalid/v1", "http://user:pw@127.0.0.1:1/v1"}) {
    HttpRequest request;
    request.url = url;
    const HttpResponse response = native.post(request);
    EXPECT_EQ(response.failure, Failure::kConnection) << url;
    EXPECT_EQ(response.failure_message, "the native HTTP transport serves only http:// to an IP address or localhost");
  }
}

TEST(NativeHttpTransport, AHeaderWithALineBreakIsRefusedWithoutEchoingIt) {
  Driven native(make_native_http_transport);
  const std::string url = "http://127.0.0.1:1/v1";
  const std::vector<std::string> headers = {"Authorization: Bearer sk-x\r\nX-Injected: yes"};
  HttpRequest request;
  request.url = url;
  request.headers = headers;
  const HttpResponse response = native.post(request);
  EXPECT_EQ(response.failure, Failure::kConnection);
  EXPECT_EQ(response.failure_message, "a request header holds a line break");
}

// The native transport's failure messages name what failed and where, never what was sent.
TEST(NativeHttpTransport, FailureMessagesSayWhatFailed) {
  Driven native(make_native_http_transport);
  EventLoop& loop = native.loop;
  HttpTransport* transport = native.transport.get();
  ScriptedServer slow([](std::size_t) { return Answer{reply_with_length("late"), false, 3000ms}; });
  const FullListener full;
  const int refused = refused_port();
  const std::string slow_url = slow.url(), full_url = full.url();
  const std::string refused_url = url_of(refused, "/v1");
  std::vector<HttpResponse> responses(3);
  auto one = [&](std::size_t i, const std::string& url, std::chrono::milliseconds connect_timeout) -> Async<void> {
    HttpRequest request;
    request.url = url;
    request.timeout = 400ms;
    request.connect_timeout = connect_timeout;
    responses[i] = co_await transport->post(request);
  };
  loop.spawn(one(0, slow_url, 300ms));  // connected at once; no reply in time
  loop.spawn(one(1, full_url, 200ms));
  loop.spawn(one(2, refused_url, 200ms));
  loop.run();
  EXPECT_EQ(responses[0].failure_message, "no complete reply within 400 ms");
  EXPECT_EQ(responses[1].failure_message,
            "connecting to 127.0.0.1:" + std::to_string(full.port()) + " timed out after 200 ms");
  EXPECT_EQ(responses[2].failure_message,
            "could not connect to 127.0.0.1:" + std::to_string(refused) + ": Connection refused");
}

// The router sends a URL with credentials to libcurl and a plain one to the native transport,
// both in flight at once from one loop; the server sees curl's Basic authorization.
TEST(RoutingHttpTransport, DrivesBothTransportsFromOneLoop) {
  ScriptedServer server([](std::size_t) { return Answer{reply_with_length("ok"), false, 200ms}; });
  Driven routed(make_http_transport);
  EventLoop& loop = routed.loop;
  HttpTransport* transport = routed.transport.get();
  const std::string plain = server.url();
  const std::string with_credentials = "http://alice:hunter2@127.0.0.1:" + std::to_string(server.port()) + "/v1";
  std::vector<HttpResponse> responses(4);
  auto one = [&](std::size_t i, const std::string& url) -> Async<void> {
    HttpRequest request;
    request.url = url;
    responses[i] = co_await transport->post(request);
  };
  loop.spawn(one(0, plain));
  loop.spawn(one(1, with_credentials));
  loop.spawn(one(2, plain));
  loop.spawn(one(3, with_credentials));
  loop.run();
  for (const HttpResponse& response : responses) expect_reply(response, 200, "ok");
  int basic = 0;
  for (const Seen& seen : server.seen()) basic += seen.request.headers.count("authorization");
  EXPECT_EQ(basic, 2);
  EXPECT_EQ(server.connections(), 4);
}

// Waits as a loop that shares its wait with other drivers does: on wait_fd() alone, bounded by
// next_deadline(), then poll(0). Returns how many waits it took until the transport was idle;
// each must end because there was news, or a deadline passed, never by the five-second guard.
int drive_by_wait_fd(HttpTransport& transport) {
  int waits = 0;
  while (transport.busy() && waits < 100000) {
    const int fd = transport.wait_fd();
    EXPECT_GE(fd, 0);
    const auto deadline = transport.next_deadline();
    const auto timeout = http::wait_before(5000ms, deadline);
    pollfd set{fd, POLLIN, 0};
    const int ready = ::poll(&set, 1, static_cast<int>(timeout.count()));
    if (ready == 0 && !deadline) {
      ADD_FAILURE() << "a wait on wait_fd() with no deadline ended without news";
      break;
    }
    transport.poll(0ms);
    ++waits;
  }
  return waits;
}

// What the loop needs to wait on the router beside another driver (the gateway's server): its
// wait_fd and next_deadline see both transports' news; and a transport that is idle cannot keep
// the descriptor readable (here the native one, whose pooled connection the server closed while
// libcurl's transfer is in flight), or the loop would spin.
TEST(RoutingHttpTransport, ItsWaitFdAndDeadlineAreAllASharedWaitNeeds) {
  EventLoop loop;
  const auto transport = make_http_transport(loop);
  HttpResponse response;
  auto post_to = [&](const std::string& url) -> Async<void> {
    HttpRequest request;
    request.url = url;
    response = co_await transport->post(request);
  };
  {
    ScriptedServer plain([](std::size_t) { return Answer{reply_with_length("native"), false, 50ms}; });
    const std::string url = plain.url();
    loop.spawn(post_to(url));
    EXPECT_LT(drive_by_wait_fd(*transport), 100);
    loop.run();
    expect_reply(response, 200, "native");
  }  // the server closes the connection the native transport keeps
  std::this_thread::sleep_for(50ms);
  ScriptedServer server([](std::size_t) { return Answer{reply_with_length("curl"), false, 300ms}; });
  const std::string with_credentials = "http://alice:hunter2@127.0.0.1:" + std::to_string(server.port()) + "/v1";
  loop.spawn(post_to(with_credentials));
  EXPECT_LT(drive_by_wait_fd(*transport), 100);  // not a spin through 300 ms
  loop.run();
  expect_reply(response, 200, "curl");
}

TEST(HttpSupport, PollWaitsAtMostUntilTheDeadlineRoundedUp) {
  EXPECT_EQ(http::wait_before(-5ms, std::nullopt), 0ms);
  EXPECT_EQ(http::wait_before(70ms, std::nullopt), 70ms);
  EXPECT_EQ(http::wait_before(70ms, Clock::now() - 1s), 0ms);    // overdue: do not wait
  EXPECT_EQ(http::wait_before(70ms, Clock::now() + 10s), 70ms);  // later than max_wait
  const auto soon = http::wait_before(1000ms, Clock::now() + std::chrono::microseconds(30500));
  EXPECT_GE(soon, 31ms);  // 30.5 ms rounds up, never down into a spin
  EXPECT_LE(soon, 32ms);
}

TEST(RoutingHttpTransport, AnUnknownChoiceIsRefused) {
  EventLoop loop;
  ::setenv("PARLEY_HTTP_TRANSPORT", "beast", 1);
  EXPECT_THROW(make_http_transport(loop), std::invalid_argument);
  ::setenv("PARLEY_HTTP_TRANSPORT", "curl", 1);
  EXPECT_NE(make_http_transport(loop), nullptr);
  ::unsetenv("PARLEY_HTTP_TRANSPORT");
}

}  // namespace
}  // namespace parley
