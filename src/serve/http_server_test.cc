// The HTTP server on real loopback sockets: the loop runs on the test's thread, the client
// (test_client.h, raw blocking sockets) on another, so every byte crosses the kernel as it would
// from curl.
#include "serve/http_server.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "parley/llm_client.h"
#include "serve/test_client.h"

namespace parley::serve {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
using testing::Client;
using testing::Response;

std::string json_error(int status, std::string_view message) {
  return "{\"error\":{\"code\":" + std::to_string(status) + ",\"message\":\"" + std::string(message) + "\"}}";
}

// Suspends until `flag` is set (from the client's thread).
Async<void> until(EventLoop& loop, const std::atomic<bool>& flag) {
  while (!flag) co_await loop.sleep_for(1ms);
}

// Waiters released together, on the loop's thread.
class Gate {
 public:
  explicit Gate(EventLoop& loop) : loop_(loop) {}
  auto wait() {
    struct Awaiter {
      Gate* gate;
      bool await_ready() const noexcept { return gate->open_; }
      void await_suspend(std::coroutine_handle<> h) { gate->waiters_.push_back(h); }
      void await_resume() const noexcept {}
    };
    return Awaiter{this};
  }
  void open() {
    open_ = true;
    for (auto h : waiters_) loop_.post(h);
    waiters_.clear();
  }

 private:
  EventLoop& loop_;
  bool open_ = false;
  std::vector<std::coroutine_handle<>> waiters_;
};

// Answers "METHOD TARGET BODY" with the request's headers echoed as X-Seen-NAME.
Async<void> echo(Exchange& exchange) {
  const IncomingRequest& request = exchange.request();
  std::string body = request.method + " " + request.target + " " + request.body;
  Headers headers{{"Content-Type", "text/plain"}};
  co_await exchange.respond(200, std::move(headers), std::move(body));
}

std::string get(const std::string& target, const std::string& extra = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: x\r\n" + extra + "\r\n";
}

std::string post(const std::string& target, const std::string& body, const std::string& extra = "") {
  return "POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n" + extra + "\r\n" + body;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void start(Handler handler, HttpLimits limits = {}, const std::string& host = "127.0.0.1") {
    auto server = HttpServer::listen(loop_, host, 0, std::move(handler), limits, json_error);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    port_ = server_->port();
  }

  // Runs the loop while `client` runs on a thread of its own; stops the server once it returned.
  void run(const std::function<void(std::uint16_t port)>& client) {
    std::atomic<bool> done{false};
    std::thread thread([&] {
      client(port_);
      done = true;
    });
    auto watcher = [&]() -> Async<void> {
      const auto give_up = Clock::now() + 30s;
      while (!done && Clock::now() < give_up) co_await loop_.sleep_for(2ms);
      if (!done) ADD_FAILURE() << "the client did not finish";
      server_->stop();
      for (HttpServer* other : also_stop_) other->stop();
    };
    loop_.spawn(watcher());
    loop_.run();
    thread.join();
  }

  EventLoop loop_;
  std::unique_ptr<HttpServer> server_;
  std::uint16_t port_ = 0;
  std::vector<HttpServer*> also_stop_;  // stopped with server_
};

TEST_F(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  std::vector<IncomingRequest> seen;
  start([&](Exchange& exchange) -> Async<void> {
    seen.push_back(exchange.request());
    co_await echo(exchange);
  });
  run([](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send(get("/v1/models?x=1", "X-Twice: a\r\nx-twice: b\r\n")));
    const Response first = client.read_response();
    EXPECT_EQ(first.status, 200);
    EXPECT_EQ(first.body, "GET /v1/models?x=1 ");
    EXPECT_EQ(first.header("content-type"), "text/plain");
    EXPECT_EQ(first.header("connection"), "");
    ASSERT_TRUE(client.send(post("/v1/chat/completions", "{\"a\":1}")));
    EXPECT_EQ(client.read_response().body, "POST /v1/chat/completions {\"a\":1}");
    ASSERT_TRUE(client.send(get("/health")));
    EXPECT_EQ(client.read_response().body, "GET /health ");
  });
  const auto stats = server_->stats();
  EXPECT_EQ(stats.accepted, 1u);
  EXPECT_EQ(stats.requests, 3u);
  EXPECT_EQ(stats.open_connections, 0u);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].header("x-twice"), "a");
  EXPECT_EQ(seen[0].header_count("x-twice"), 2u);
  EXPECT_EQ(seen[0].header("host"), "x");
  EXPECT_FALSE(seen[0].header("content-length"));
  EXPECT_EQ(seen[0].version, 11);
  EXPECT_EQ(seen[0].peer.rfind("127.0.0.1:", 0), 0u);
  EXPECT_EQ(seen[0].peer, seen[2].peer);
  EXPECT_EQ(seen[1].body, "{\"a\":1}");
  EXPECT_EQ(seen[1].headers[0], (std::pair<std::string, std::string>{"host", "x"}));
  EXPECT_EQ(seen[1].headers[1], (std::pair<std::string, std::string>{"content-length", "7"}));
}

TEST_F(HttpServerTest, ConnectionCloseAndHttp10CloseAfterTheResponse) {
  start(echo);
  run([](std::uint16_t port) {
    for (const std::string& request :
         {get("/a", "Connection: close\r\n"), std::string("GET /b HTTP/1.0\r\n\r\n")}) {
      Client client(port);
      ASSERT_TRUE(client.send(request));
      const Response response = client.read_response();
      EXPECT_EQ(response.status, 200);
      EXPECT_EQ(response.header("connection"), "close");
      std::string rest;
      EXPECT_TRUE(client.closed_by_peer(&rest));
      EXPECT_EQ(rest, "");
    }
    // HTTP/1.0 that asks to keep the connection gets it, and is told so.
    Client client(port);
    ASSERT_TRUE(client.send("GET /c HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    const Response response = client.read_response();
    EXPECT_EQ(response.header("connection"), "keep-alive");
    EXPECT_EQ(response.body, "GET /c ");
    ASSERT_TRUE(client.send("GET /d HTTP/1.0\r\n\r\n"));
    EXPECT_EQ(client.read_response().body, "GET /d ");
    EXPECT_TRUE(client.closed_by_peer());
  });
  EXPECT_EQ(server_->stats().requests, 4u);
}

// Two requests in one write, and a third sent while the second is handled: answered in order, one
// at a time, the later bytes kept until the earlier response is out.
TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  std::atomic<bool> second_started{false}, third_sent{false};
  int handling = 0, most_at_once = 0;
  std::vector<std::string> order;
  start([&](Exchange& exchange) -> Async<void> {
    ++handling;
    most_at_once = std::max(most_at_once, handling);
    order.push_back(exchange.request().target);
    if (exchange.request().target == "/2") {
      second_started = true;
      co_await until(loop_, third_sent);
      co_await loop_.sleep_for(20ms);  // the third request's bytes are in by now
    }
    --handling;
    co_await echo(exchange);
  });
  run([&](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send(get("/1") + post("/2", "two")));
    EXPECT_EQ(client.read_response().body, "GET /1 ");
    while (!second_started) std::this_thread::sleep_for(1ms);
    ASSERT_TRUE(client.send(post("/3", "three")));
    third_sent = true;
    EXPECT_EQ(client.read_response().body, "POST /2 two");
    EXPECT_EQ(client.read_response().body, "POST /3 three");
  });
  EXPECT_EQ(order, (std::vector<std::string>{"/1", "/2", "/3"}));
  EXPECT_EQ(most_at_once, 1);
  EXPECT_EQ(server_->stats().accepted, 1u);
}

// Far more pipelined requests than one read takes: still one at a time, in order.
TEST_F(HttpServerTest, ManyPipelinedRequestsInOneWriteAreAnsweredOneAtATime) {
  constexpr int kRequests = 2000;  // ~70 KiB: more than one 64 KiB read
  int handling = 0, most_at_once = 0;
  start([&](Exchange& exchange) -> Async<void> {
    most_at_once = std::max(most_at_once, ++handling);
    co_await loop_.yield();
    --handling;
    co_await echo(exchange);
  });
  run([](std::uint16_t port) {
    std::string all;
    for (int i = 0; i < kRequests; ++i) all += get("/" + std::to_string(i), "X-Pad: 0123456789\r\n");
    ASSERT_GT(all.size(), 64u * 1024);
    Client client(port);
    ASSERT_TRUE(client.send(all));
    for (int i = 0; i < kRequests; ++i)
      ASSERT_EQ(client.read_response().body, "GET /" + std::to_string(i) + " ");
  });
  EXPECT_EQ(most_at_once, 1);
  EXPECT_EQ(server_->stats().requests, static_cast<std::uint64_t>(kRequests));
}

TEST_F(HttpServerTest, AChunkedRequestBodyIsJoined) {
  std::string trailer_seen;
  start(echo);
  run([](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(
        client.send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"));
    std::this_thread::sleep_for(20ms);  // the rest in a later packet
    ASSERT_TRUE(client.send("6\r\n world\r\n0\r\n\r\n"));
    EXPECT_EQ(client.read_response().body, "POST /c hello world");
  });
}

// curl sends Expect: 100-continue with bodies over 1 KiB and waits for the interim response.
TEST_F(HttpServerTest, ExpectContinueIsAnsweredBeforeTheBodyIsSent) {
  HttpLimits limits;
  limits.max_body_bytes = 4096;
  start(echo, limits);
  run([](std::uint16_t port) {
    const std::string body(2000, 'b');
    Client client(port);
    ASSERT_TRUE(
        client.send("POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2000\r\n\r\n"));
    const Response interim = client.read_response();
    EXPECT_EQ(interim.status, 100);
    EXPECT_EQ(interim.head, "HTTP/1.1 100 Continue\r\n");
    ASSERT_TRUE(client.send(body));
    const Response response = client.read_response();
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body, "POST /e " + body);
    // Too large up front: 413 at once, never a 100.
    Client large(port);
    ASSERT_TRUE(
        large.send("POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n"));
    const Response refused = large.read_response();
    EXPECT_EQ(refused.status, 413);
    EXPECT_TRUE(large.closed_by_peer());
    // Expect with the body already sent along: no 100, just the response.
    Client eager(port);
    ASSERT_TRUE(eager.send(post("/e", "xyz", "Expect: 100-continue\r\n")));
    EXPECT_EQ(eager.read_response().status, 200);
  });
}

TEST_F(HttpServerTest, MalformedRequestsGet400AndTheConnectionCloses) {
  start(echo);
  run([](std::uint16_t port) {
    for (const std::string& bad :
         {std::string("GARBAGE\r\n\r\n"), get("/", "No colon here\r\n"),
          std::string("GET / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
          std::string("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")}) {
      Client client(port);
      ASSERT_TRUE(client.send(bad));
      const Response response = client.read_response();
      EXPECT_EQ(response.status, 400) << bad;
      EXPECT_EQ(response.header("content-type"), "application/json");
      EXPECT_EQ(response.header("connection"), "close");
      EXPECT_EQ(response.body.rfind("{\"error\":{\"code\":400,\"message\":\"malformed request: ", 0), 0u)
          << response.body;
      EXPECT_TRUE(client.closed_by_peer());
    }
  });
  EXPECT_EQ(server_->stats().requests, 0u);
}

// After a malformed request nothing more is read as a request, however much follows it.
TEST_F(HttpServerTest, NothingAfterAMalformedRequestIsAnswered) {
  start(echo);
  run([](std::uint16_t port) {
    std::string all = "GARBAGE\r\n\r\n";
    while (all.size() < 200 * 1024) all += get("/after");
    Client client(port);
    ASSERT_TRUE(client.send(all));
    EXPECT_EQ(client.read_response().status, 400);
    std::string rest;
    EXPECT_TRUE(client.closed_by_peer(&rest));
    EXPECT_EQ(rest, "");
  });
  EXPECT_EQ(server_->stats().requests, 0u);
}

// A client that keeps its end open after the server closed its own is dropped after a short
// linger (at most idle_timeout), not kept.
TEST_F(HttpServerTest, AClosedConnectionLingersBriefly) {
  HttpLimits limits;
  limits.idle_timeout = 300ms;
  start(echo, limits);
  std::atomic<bool> answered{false}, checked{false};
  std::size_t open_after = 99;
  auto sampler = [&]() -> Async<void> {
    co_await until(loop_, answered);
    co_await loop_.sleep_for(800ms);
    open_after = server_->stats().open_connections;
    checked = true;
  };
  loop_.spawn(sampler());
  run([&](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send("GARBAGE\r\n\r\n"));
    EXPECT_EQ(client.read_response().status, 400);
    EXPECT_TRUE(client.closed_by_peer());  // the server's FIN; the client keeps its socket open
    answered = true;
    while (!checked) std::this_thread::sleep_for(1ms);
  });
  EXPECT_EQ(open_after, 0u);
}

TEST_F(HttpServerTest, TooLargeBodiesGet413AndTooLargeHeadersGet431) {
  HttpLimits limits;
  limits.max_body_bytes = 100;
  limits.max_header_bytes = 512;
  start(echo, limits);
  run([](std::uint16_t port) {
    {
      Client client(port);  // said up front
      ASSERT_TRUE(client.send(post("/p", std::string(101, 'x'))));
      const Response response = client.read_response();
      EXPECT_EQ(response.status, 413);
      EXPECT_EQ(response.body, json_error(413, "the request's body is too large"));
      EXPECT_TRUE(client.closed_by_peer());
    }
    {
      Client client(port);  // found out on the way
      ASSERT_TRUE(client.send("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" +
                              std::string(64, 'x') + "\r\n40\r\n" + std::string(64, 'y') + "\r\n0\r\n\r\n"));
      EXPECT_EQ(client.read_response().status, 413);
      EXPECT_TRUE(client.closed_by_peer());
    }
    {
      Client client(port);  // exactly the limit is fine
      ASSERT_TRUE(client.send(post("/p", std::string(100, 'x'))));
      EXPECT_EQ(client.read_response().status, 200);
    }
    {
      Client client(port);
      ASSERT_TRUE(client.send(get("/h", "X-Big: " + std::string(600, 'h') + "\r\n")));
      const Response response = client.read_response();
      EXPECT_EQ(response.status, 431);
      EXPECT_EQ(response.body, json_error(431, "the request's header is too large"));
      EXPECT_TRUE(client.closed_by_peer());
    }
    {
      Client client(port);  // a header that never ends
      ASSERT_TRUE(client.send("GET /h HTTP/1.1\r\nX-Big: " + std::string(600, 'h')));
      EXPECT_EQ(client.read_response().status, 431);
    }
  });
  EXPECT_EQ(server_->stats().requests, 1u);
}

TEST_F(HttpServerTest, ASlowRequestGets408AndAnIdleConnectionIsClosed) {
  HttpLimits limits;
  limits.request_timeout = 200ms;
  limits.idle_timeout = 300ms;
  start(echo, limits);
  run([](std::uint16_t port) {
    Client slow(port);
    const auto started = Clock::now();
    ASSERT_TRUE(slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n"));  // and never the blank line
    std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(slow.send("X-Drip: 1\r\n"));  // trickling bytes do not extend the deadline
    const Response response = slow.read_response();
    EXPECT_EQ(response.status, 408);
    EXPECT_EQ(response.header("connection"), "close");
    EXPECT_LT(Clock::now() - started, 1000ms);
    EXPECT_GE(Clock::now() - started, 200ms);
    EXPECT_TRUE(slow.closed_by_peer());

    Client idle(port);  // served once, then silent
    ASSERT_TRUE(idle.send(get("/once")));
    EXPECT_EQ(idle.read_response().status, 200);
    const auto served = Clock::now();
    std::string rest;
    EXPECT_TRUE(idle.closed_by_peer(&rest));
    EXPECT_EQ(rest, "");  // no response to a request that never came
    EXPECT_GE(Clock::now() - served, 250ms);
    EXPECT_LT(Clock::now() - served, 2000ms);

    Client silent(port);  // never sends anything
    EXPECT_TRUE(silent.closed_by_peer(&rest));
    EXPECT_EQ(rest, "");
  });
}

TEST_F(HttpServerTest, PastMaxConnectionsANewConnectionGets503) {
  HttpLimits limits;
  limits.max_connections = 2;
  start(echo, limits);
  run([](std::uint16_t port) {
    Client first(port), second(port);
    ASSERT_TRUE(first.send(get("/1")));
    ASSERT_TRUE(second.send(get("/2")));
    EXPECT_EQ(first.read_response().status, 200);
    EXPECT_EQ(second.read_response().status, 200);
    Client third(port);
    ASSERT_TRUE(third.send(get("/3")));
    const Response response = third.read_response();
    EXPECT_EQ(response.status, 503);
    EXPECT_EQ(response.body, json_error(503, "too many connections"));
    EXPECT_TRUE(third.closed_by_peer());
    first.close();
    std::this_thread::sleep_for(50ms);  // the server sees it closed
    Client fourth(port);
    ASSERT_TRUE(fourth.send(get("/4")));
    EXPECT_EQ(fourth.read_response().status, 200);
  });
  const auto stats = server_->stats();
  EXPECT_EQ(stats.rejected_connections, 1u);
  EXPECT_EQ(stats.accepted, 3u);
}

TEST_F(HttpServerTest, PastMaxBufferedInputTheConnectionThatWouldExceedItGets503) {
  const std::string head = "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 6000\r\n\r\n";
  const std::string part(4000, 'p'), rest(2000, 'r');
  const std::size_t each = head.size() + part.size();  // the header counts with the body so far
  HttpLimits limits;
  limits.max_buffered_input = 2 * each + rest.size();  // exactly one whole request and one partial
  start(echo, limits);
  std::atomic<std::size_t> buffered{0};  // the server's count, for the client's thread
  auto mirror = [&]() -> Async<void> {
    while (server_->busy()) {
      buffered = server_->stats().buffered_input;
      co_await loop_.sleep_for(1ms);
    }
  };
  loop_.spawn(mirror());
  run([&](std::uint16_t port) {
    const auto reaches = [&](std::size_t bytes) {
      const auto give_up = Clock::now() + 5s;
      while (buffered != bytes && Clock::now() < give_up) std::this_thread::sleep_for(1ms);
      return buffered == bytes;
    };
    Client a(port), b(port), c(port);
    ASSERT_TRUE(a.send(head + part));
    ASSERT_TRUE(reaches(each));
    ASSERT_TRUE(b.send(head + part));
    ASSERT_TRUE(reaches(2 * each));
    ASSERT_TRUE(c.send(head + part));  // three of them would be over
    const Response refused = c.read_response();
    EXPECT_EQ(refused.status, 503);
    EXPECT_EQ(refused.body, json_error(503, "the server is receiving too many requests at once; retry"));
    EXPECT_EQ(refused.header("connection"), "close");
    EXPECT_TRUE(c.closed_by_peer());
    EXPECT_TRUE(reaches(2 * each));  // what the refused one sent is let go
    // The others finish as if nothing happened (the first fills the cap exactly), and each lets
    // go of its bytes when handed over.
    ASSERT_TRUE(a.send(rest));
    const Response first = a.read_response();
    EXPECT_EQ(first.status, 200);
    EXPECT_EQ(first.body, "POST /up " + part + rest);
    EXPECT_TRUE(reaches(each));
    ASSERT_TRUE(b.send(rest));
    EXPECT_EQ(b.read_response().body, "POST /up " + part + rest);
    EXPECT_TRUE(reaches(0));
    ASSERT_TRUE(a.send(get("/again")));  // kept alive, and room again
    EXPECT_EQ(a.read_response().status, 200);
  });
  EXPECT_EQ(server_->stats().buffered_input, 0u);
  EXPECT_EQ(server_->stats().requests, 3u);
}

TEST_F(HttpServerTest, HeadGetsTheHeadersWithoutTheBody) {
  start([](Exchange& exchange) -> Async<void> {
    Headers headers;
    if (exchange.request().target == "/stream") {
      co_await exchange.begin_stream(200, headers);
      std::string data = "never sent";
      co_await exchange.write(std::move(data));
      co_await exchange.end_stream();
    } else {
      std::string body(1234, 'b');
      co_await exchange.respond(200, headers, std::move(body));
    }
  });
  run([](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n"));
    const Response response = client.read_response(/*head_request=*/true);
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.header("content-length"), "1234");
    ASSERT_TRUE(client.send("HEAD /stream HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_EQ(client.read_response(/*head_request=*/true).header("transfer-encoding"), "chunked");
    ASSERT_TRUE(client.send(get("/after")));  // nothing of a body came in between
    const Response after = client.read_response();
    EXPECT_EQ(after.status, 200);
    EXPECT_EQ(after.body.size(), 1234u);
  });
}

TEST_F(HttpServerTest, NoContentHasNoBodyAndUnknownStatusesGetAReason) {
  start([](Exchange& exchange) -> Async<void> {
    Headers headers;
    const int status = exchange.request().target == "/204" ? 204 : 299;
    std::string body = "dropped for 204";
    co_await exchange.respond(status, headers, std::move(body));
  });
  run([](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send(get("/204") + get("/299")));
    const Response none = client.read_response();
    EXPECT_EQ(none.head, "HTTP/1.1 204 No Content\r\n");
    const Response odd = client.read_response();
    EXPECT_EQ(odd.status, 299);
    EXPECT_EQ(odd.head.substr(0, odd.head.find("\r\n")), "HTTP/1.1 299 Unknown");
    EXPECT_EQ(odd.body, "dropped for 204");
  });
}

// The handler streams a chunk, then waits for the client to say it has it before the next.
TEST_F(HttpServerTest, AStreamedChunkReachesTheClientBeforeTheNextIsWritten) {
  std::atomic<bool> first_read{false};
  start([&](Exchange& exchange) -> Async<void> {
    Headers headers{{"Content-Type", "text/event-stream"}, {"Content-Length", "5"}, {"Connection", "close"}};
    co_await exchange.begin_stream(200, std::move(headers));
    std::string first = "data: one\n\n";
    co_await exchange.write(std::move(first));
    co_await until(loop_, first_read);
    std::string empty;
    co_await exchange.write(std::move(empty));  // sends nothing (an empty chunk would end the body)
    std::string second = "data: two\n\n";
    co_await exchange.write(std::move(second));
    co_await exchange.end_stream();
  });
  run([&](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send(get("/v1/chat/completions")));
    const std::string head =
        client.read_head();  // then chunk by chunk: read_response would wait for them all
    EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
    EXPECT_NE(head.find("Content-Type: text/event-stream\r\n"), std::string::npos);
    EXPECT_EQ(head.find("Content-Length"), std::string::npos);  // the handler's framing headers are dropped
    EXPECT_EQ(head.find("Connection"), std::string::npos);
    EXPECT_EQ(client.read_chunk(), "data: one\n\n");
    first_read = true;
    EXPECT_EQ(client.read_chunk(), "data: two\n\n");
    EXPECT_EQ(client.read_chunk(), "");
    ASSERT_TRUE(client.send(get("/next")));  // the stream ended cleanly: the connection lives on
    EXPECT_EQ(client.read_response().status, 200);
  });
}

TEST_F(HttpServerTest, AStreamToHttp10IsRawAndEndsWithTheClose) {
  start([](Exchange& exchange) -> Async<void> {
    Headers headers;
    co_await exchange.begin_stream(200, headers);
    for (const char* part : {"ab", "cd"}) {
      std::string data = part;
      co_await exchange.write(std::move(data));
    }
    co_await exchange.end_stream();
  });
  run([](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send("GET /s HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    const Response response = client.read_response();
    EXPECT_EQ(response.header("transfer-encoding"), "");
    EXPECT_EQ(response.header("connection"), "close");
    EXPECT_EQ(response.body, "abcd");
  });
}

// The client goes away while its request is handled: disconnected() fires at once, and a handler
// that writes on regardless neither blocks nor breaks anything.
TEST_F(HttpServerTest, ADisconnectMidHandlerFiresDisconnected) {
  std::vector<std::string> reasons;
  std::vector<Clock::duration> noticed_after;
  std::atomic<int> started{0};
  HttpLimits limits;
  limits.max_pending_output = 1024;
  start(
      [&](Exchange& exchange) -> Async<void> {
        ++started;
        const auto began = Clock::now();
        const bool full = co_await loop_.sleep_for(10s, &exchange.disconnected());
        EXPECT_FALSE(full);
        noticed_after.push_back(Clock::now() - began);
        reasons.push_back(exchange.disconnected().reason());
        EXPECT_TRUE(exchange.peer_gone());
        Headers headers;
        co_await exchange.begin_stream(200, headers);
        for (int i = 0; i < 200; ++i) {
          std::string data(64 * 1024, 'z');
          co_await exchange.write(std::move(data));
        }
        co_await exchange.end_stream();
      },
      limits);
  run([&](std::uint16_t port) {
    {
      Client client(port);
      ASSERT_TRUE(client.send(get("/close")));
      while (started < 1) std::this_thread::sleep_for(1ms);
      std::this_thread::sleep_for(20ms);
    }  // closed: a FIN
    Client client(port);
    ASSERT_TRUE(client.send(get("/reset")));
    while (started < 2) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(20ms);
    client.reset();
  });
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0], "the client closed the connection");
  EXPECT_EQ(reasons[1], "the client reset the connection");
  for (const auto after : noticed_after) EXPECT_LT(after, 1s);
  EXPECT_EQ(server_->stats().open_connections, 0u);
}

// A reset while the server writes a stream: the write fails, the exchange hears why, and the
// server carries on.
TEST_F(HttpServerTest, AResetWhileStreamingEndsTheExchangeAndTheServerLivesOn) {
  HttpLimits limits;
  limits.max_pending_output = 64 * 1024;
  std::string reason;
  int writes_after_gone = 0;
  start(
      [&](Exchange& exchange) -> Async<void> {
        if (exchange.request().target != "/stream") co_return co_await echo(exchange);
        Headers headers;
        co_await exchange.begin_stream(200, headers);
        while (!exchange.peer_gone()) {
          std::string data(64 * 1024, 'r');
          co_await exchange.write(std::move(data));
        }
        reason = exchange.disconnected().reason();
        for (; writes_after_gone < 100; ++writes_after_gone) {
          std::string data(64 * 1024, 'r');
          co_await exchange.write(std::move(data));
        }
        co_await exchange.end_stream();
      },
      limits);
  run([](std::uint16_t port) {
    {
      Client client(port, AF_INET, 64 * 1024);
      ASSERT_TRUE(client.send(get("/stream")));
      EXPECT_NE(client.read_head(), "");
      for (int i = 0; i < 4; ++i) EXPECT_TRUE(client.read_chunk().has_value());
      client.reset();
    }
    std::this_thread::sleep_for(50ms);
    Client next(port);
    ASSERT_TRUE(next.send(get("/after")));
    EXPECT_EQ(next.read_response().body, "GET /after ");
  });
  EXPECT_EQ(reason, "the client reset the connection");
  EXPECT_EQ(writes_after_gone, 100);
  EXPECT_EQ(server_->stats().open_connections, 0u);
  EXPECT_EQ(server_->stats().accepted, 2u);
}

// A client that does not read: write() suspends once max_pending_output is unsent, and resumes as
// the client reads.
TEST_F(HttpServerTest, WriteSuspendsWhileTheClientDoesNotRead) {
  HttpLimits limits;
  limits.max_pending_output = 256 * 1024;
  std::atomic<int> written{0};
  constexpr int kChunks = 400;  // 25 MiB, far more than the socket buffers hold
  constexpr std::size_t kChunkBytes = 64 * 1024;
  start(
      [&](Exchange& exchange) -> Async<void> {
        Headers headers;
        co_await exchange.begin_stream(200, headers);
        for (int i = 0; i < kChunks; ++i) {
          std::string data(kChunkBytes, static_cast<char>('a' + i % 26));
          co_await exchange.write(std::move(data));
          ++written;
        }
        co_await exchange.end_stream();
      },
      limits);
  run([&](std::uint16_t port) {
    Client client(port, AF_INET, 64 * 1024);
    ASSERT_TRUE(client.send(get("/big")));
    std::this_thread::sleep_for(300ms);
    const int stalled_at = written;
    EXPECT_GT(stalled_at, 0);
    EXPECT_LT(stalled_at, kChunks / 2);  // held back, not queued whole
    std::this_thread::sleep_for(100ms);
    EXPECT_EQ(written, stalled_at);  // and still waiting
    const Response response = client.read_response();
    EXPECT_EQ(response.body.size(), kChunks * kChunkBytes);
    EXPECT_EQ(response.body[kChunkBytes * 27], 'b');
  });
  EXPECT_EQ(written, kChunks);
}

// A slow reader of a large response is not cut off: idle_timeout counts from the last byte it
// took, both while the handler waits to write and once the connection is idle again.
TEST_F(HttpServerTest, ASlowReaderGetsAllOfALargeResponse) {
  HttpLimits limits;
  limits.max_pending_output = 64 * 1024;
  limits.idle_timeout = 300ms;
  static constexpr std::size_t kBytes = 2 << 20;
  start(
      [](Exchange& exchange) -> Async<void> {
        Headers headers;
        std::string body(kBytes, 's');
        co_await exchange.respond(200, headers, std::move(body));
      },
      limits);
  run([](std::uint16_t port) {
    Client client(port, AF_INET, 64 * 1024);
    ASSERT_TRUE(client.send(get("/large")));
    client.read_slowly(64 * 1024, 20ms);  // ~32 reads: about twice the idle timeout
    const auto started = Clock::now();
    const Response response = client.read_response();
    EXPECT_EQ(response.body.size(), kBytes);
    EXPECT_GT(Clock::now() - started, 400ms);
  });
}

// A response read slowly but steadily while its handler is still running (here: until the
// client has it all): every bit the reader takes gives it idle_timeout again, so a response that
// outlasts idle_timeout many times over still reaches it.
TEST_F(HttpServerTest, AResponseToASteadySlowReaderOutlastsTheIdleTimeout) {
  HttpLimits limits;
  limits.max_pending_output = 64 << 20;  // respond() returns at once, the handler goes on
  limits.idle_timeout = 200ms;
  static constexpr std::size_t kBytes = 16 << 20;  // more than the kernel's buffers
  std::atomic<bool> read_all{false};
  start(
      [&](Exchange& exchange) -> Async<void> {
        const Headers headers;
        std::string body(kBytes, 'z');
        co_await exchange.respond(200, headers, std::move(body));
        co_await until(loop_, read_all);
      },
      limits);
  run([&](std::uint16_t port) {
    Client client(port, AF_INET, 64 * 1024);
    ASSERT_TRUE(client.send(get("/large")));
    client.read_slowly(64 * 1024, 5ms);
    const auto started = Clock::now();
    const Response response = client.read_response();
    read_all = true;
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body.size(), kBytes);
    EXPECT_GT(Clock::now() - started, 2 * limits.idle_timeout);  // (else it proves nothing)
  });
}

// A large response on a kept-alive connection: its tail is still being sent once the handler has
// ended and the connection waits for the next request, which it then serves.
TEST_F(HttpServerTest, AKeptAliveConnectionServesAfterALargeResponse) {
  static constexpr std::size_t kBytes = 16 << 20;  // more than max_pending_output and the kernel's buffers
  start([](Exchange& exchange) -> Async<void> {
    Headers headers;
    std::string body(exchange.request().target == "/large" ? kBytes : 5, 'k');
    co_await exchange.respond(200, headers, std::move(body));
  });
  run([](std::uint16_t port) {
    Client client(port, AF_INET, 64 * 1024);
    ASSERT_TRUE(client.send(get("/large")));
    EXPECT_EQ(client.read_response().body.size(), kBytes);
    ASSERT_TRUE(client.send(get("/small")));
    EXPECT_EQ(client.read_response().body, "kkkkk");
  });
}

// A client that stops reading for idle_timeout counts as gone.
TEST_F(HttpServerTest, AClientThatStopsReadingIsDroppedAfterTheIdleTimeout) {
  HttpLimits limits;
  limits.max_pending_output = 64 * 1024;
  limits.idle_timeout = 300ms;
  std::string reason;
  bool finished = false;
  start(
      [&](Exchange& exchange) -> Async<void> {
        Headers headers;
        co_await exchange.begin_stream(200, headers);
        while (!exchange.peer_gone()) {
          std::string data(64 * 1024, 'x');
          co_await exchange.write(std::move(data));
        }
        reason = exchange.disconnected().reason();
        finished = true;
      },
      limits);
  run([&](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send(get("/big")));
    std::this_thread::sleep_for(800ms);
  });
  EXPECT_TRUE(finished);
  EXPECT_EQ(reason, "the client stopped reading");
}

TEST_F(HttpServerTest, StopClosesIdleConnectionsAndLetsRequestsInFlightFinish) {
  std::atomic<bool> handling{false}, stopped{false}, release{false};
  start([&](Exchange& exchange) -> Async<void> {
    if (exchange.request().target == "/busy") {
      handling = true;
      co_await until(loop_, release);
    }
    co_await echo(exchange);
  });
  auto stopper = [&]() -> Async<void> {
    co_await until(loop_, handling);
    server_->stop();
    stopped = true;
  };
  loop_.spawn(stopper());
  run([&](std::uint16_t port) {
    Client idle(port);
    Client busy(port);
    ASSERT_TRUE(idle.send(get("/idle")));
    EXPECT_EQ(idle.read_response().status, 200);
    ASSERT_TRUE(busy.send(get("/busy")));
    while (!stopped) std::this_thread::sleep_for(1ms);
    std::string rest;
    EXPECT_TRUE(idle.closed_by_peer(&rest));
    EXPECT_EQ(rest, "");
    EXPECT_FALSE(Client(port).connected());  // no longer listening
    release = true;
    const Response response = busy.read_response();
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.header("connection"), "close");
    EXPECT_TRUE(busy.closed_by_peer());
  });
  EXPECT_FALSE(server_->busy());
}

// A response still on its way when the server stops (its handler ended) is sent to the end.
TEST_F(HttpServerTest, StopLetsAResponseOnItsWayFinish) {
  static constexpr std::size_t kBytes = 16 << 20;  // more than the kernel's buffers take
  std::atomic<bool> answered{false};
  start([&](Exchange& exchange) -> Async<void> {
    Headers headers;
    std::string body(kBytes, 'w');
    co_await exchange.respond(200, headers, std::move(body));  // queued whole: under max_pending_output
    answered = true;
  });
  auto stopper = [&]() -> Async<void> {
    co_await until(loop_, answered);
    co_await loop_.sleep_for(10ms);  // the connection is idle again, its output still queued
    server_->stop();
  };
  loop_.spawn(stopper());
  run([](std::uint16_t port) {
    Client client(port, AF_INET, 64 * 1024);
    ASSERT_TRUE(client.send(get("/large")));
    client.read_slowly(1 << 20, 20ms);
    EXPECT_EQ(client.read_response().body.size(), kBytes);
    EXPECT_TRUE(client.closed_by_peer());
  });
}

// A client that half-closes once its request was answered (its handler ended) still gets the
// rest of the response: only while a request is handled does a half-close count as gone.
TEST_F(HttpServerTest, AHalfCloseAfterTheHandlerEndedStillGetsTheWholeResponse) {
  static constexpr std::size_t kBytes = 16 << 20;  // more than the kernel's buffers take
  std::atomic<bool> answered{false};
  start([&](Exchange& exchange) -> Async<void> {
    Headers headers;
    std::string body(kBytes, 'h');
    co_await exchange.respond(200, headers, std::move(body));  // queued whole: under max_pending_output
    answered = true;
  });
  run([&](std::uint16_t port) {
    Client client(port, AF_INET, 64 * 1024);
    ASSERT_TRUE(client.send(get("/large", "Connection: close\r\n")));
    while (!answered) ASSERT_TRUE(client.read_more());  // the handler's respond() waits for room
    std::this_thread::sleep_for(20ms);
    client.shutdown_write();
    client.read_slowly(1 << 20, 10ms);
    EXPECT_EQ(client.read_response().body.size(), kBytes);
    EXPECT_TRUE(client.closed_by_peer());
  });
}

// The server destroyed while handlers still run: they write into nothing and end.
TEST_F(HttpServerTest, HandlersOutlivingTheirServerEndQuietly) {
  std::atomic<int> handling{0};
  int ended = 0, gone = 0;
  start([&](Exchange& exchange) -> Async<void> {
    ++handling;
    co_await loop_.sleep_for(50ms);
    gone += exchange.peer_gone() ? 1 : 0;
    Headers headers;
    std::string body = "into nothing";
    co_await exchange.respond(200, headers, std::move(body));
    ++ended;
  });
  auto destroyer = [&]() -> Async<void> {
    while (handling < 2) co_await loop_.sleep_for(1ms);
    server_.reset();
  };
  loop_.spawn(destroyer());
  std::thread client([port = port_] {
    Client first(port), second(port);
    EXPECT_TRUE(first.send(get("/1")));
    EXPECT_TRUE(second.send(get("/2")));
    EXPECT_TRUE(first.closed_by_peer());
    EXPECT_TRUE(second.closed_by_peer());
  });
  loop_.run();
  client.join();
  EXPECT_EQ(ended, 2);
  EXPECT_EQ(gone, 2);
}

// Out of descriptors, accept() fails and no new edge comes for the connection left in the
// queue: the server tries again on its own a little later.
TEST_F(HttpServerTest, AcceptingIsRetriedAfterRunningOutOfDescriptors) {
  start(echo);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  run([&](std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int lowest_free = ::fcntl(fd, F_DUPFD, 0);
    ::close(lowest_free);
    rlimit low = saved;
    low.rlim_cur = static_cast<rlim_t>(lowest_free);  // every descriptor below it is taken
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    std::this_thread::sleep_for(250ms);  // the server's accept() fails meanwhile
    ::setrlimit(RLIMIT_NOFILE, &saved);
    ASSERT_EQ(connected, 0);
    Client client = Client::adopting(fd);
    ASSERT_TRUE(client.send(get("/late")));
    EXPECT_EQ(client.read_response().body, "GET /late ");
  });
  EXPECT_EQ(server_->stats().accepted, 1u);
}

// The server's next deadline is its earliest timer: a shared wait must end for it.
TEST_F(HttpServerTest, TheNextDeadlineIsTheEarliestConnectionTimer) {
  HttpLimits limits;
  limits.idle_timeout = 5s;
  limits.request_timeout = 2s;
  start(echo, limits);
  std::atomic<bool> connected{false}, partial{false}, checked{false};
  std::optional<Clock::duration> before, idle, reading;
  auto checker = [&]() -> Async<void> {
    if (const auto deadline = server_->next_deadline()) before = *deadline - Clock::now();
    co_await until(loop_, connected);
    co_await loop_.sleep_for(20ms);  // accepted by now
    if (const auto deadline = server_->next_deadline()) idle = *deadline - Clock::now();
    co_await until(loop_, partial);
    co_await loop_.sleep_for(20ms);
    if (const auto deadline = server_->next_deadline()) reading = *deadline - Clock::now();
    checked = true;
  };
  loop_.spawn(checker());
  run([&](std::uint16_t port) {
    Client idle_client(port);
    connected = true;
    std::this_thread::sleep_for(100ms);
    Client reading_client(port);
    ASSERT_TRUE(reading_client.send("GET / HTTP/1.1\r\n"));
    partial = true;
    while (!checked) std::this_thread::sleep_for(1ms);
  });
  EXPECT_FALSE(before.has_value());  // nothing open, nothing due
  ASSERT_TRUE(idle.has_value());
  EXPECT_GT(*idle, 4s);
  EXPECT_LE(*idle, 5s);
  ASSERT_TRUE(reading.has_value());  // the request's deadline comes before the idle one
  EXPECT_GT(*reading, 1s);
  EXPECT_LE(*reading, 2s);
}

// EventLoop::cancel stops the server hard: every exchange hears of it.
TEST_F(HttpServerTest, CancellingTheLoopDisconnectsEveryExchange) {
  std::vector<std::string> reasons;
  std::atomic<int> handling{0};
  start([&](Exchange& exchange) -> Async<void> {
    ++handling;
    co_await loop_.sleep_for(10s, &exchange.disconnected());
    reasons.push_back(exchange.disconnected().reason());
    Headers headers;
    std::string body = "late";
    co_await exchange.respond(200, headers, std::move(body));  // into nothing
  });
  std::atomic<bool> both{false};
  auto canceller = [&]() -> Async<void> {
    co_await until(loop_, both);
    loop_.cancel();
  };
  loop_.spawn(canceller());
  run([&](std::uint16_t port) {
    Client first(port), second(port);
    ASSERT_TRUE(first.send(get("/1")));
    ASSERT_TRUE(second.send(get("/2")));
    while (handling < 2) std::this_thread::sleep_for(1ms);
    both = true;
    EXPECT_TRUE(first.closed_by_peer());
    EXPECT_TRUE(second.closed_by_peer());
  });
  EXPECT_EQ(reasons, (std::vector<std::string>{"the server stopped", "the server stopped"}));
}

TEST_F(HttpServerTest, AThousandConcurrentConnectionsOnTheOneThread) {
  constexpr int kClients = 1000;
  Gate all_in(loop_);
  int arrived = 0, most_at_once = 0, handling = 0;
  start([&](Exchange& exchange) -> Async<void> {
    ++handling;
    most_at_once = std::max(most_at_once, handling);
    if (++arrived == kClients) all_in.open();
    co_await all_in.wait();
    --handling;
    co_await echo(exchange);
  });
  run([&](std::uint16_t port) {
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < kClients; ++i) {
      clients.push_back(std::make_unique<Client>(port));
      ASSERT_TRUE(clients.back()->send(get("/" + std::to_string(i))));
    }
    for (int i = 0; i < kClients; ++i) {
      EXPECT_EQ(clients[static_cast<std::size_t>(i)]->read_response().body,
                "GET /" + std::to_string(i) + " ");
    }
  });
  EXPECT_EQ(most_at_once, kClients);  // all were handled at once: none waited for another
  EXPECT_EQ(server_->stats().accepted, static_cast<std::uint64_t>(kClients));
}

TEST_F(HttpServerTest, AHandlerThatThrowsOrDoesNotAnswerGets500AndTheServerLivesOn) {
  start([](Exchange& exchange) -> Async<void> {
    const std::string& target = exchange.request().target;
    if (target == "/throw") throw std::runtime_error("boom");
    std::string once = "once", twice = "twice", partial = "partial";
    if (target == "/bad-header") {
      Headers headers{{"X-Injected", "a\r\nSet-Cookie: b"}};
      co_await exchange.respond(200, std::move(headers), std::move(once));
    }
    if (target == "/twice") {
      Headers headers;
      co_await exchange.respond(200, headers, std::move(once));
      co_await exchange.respond(200, headers, std::move(twice));
    }
    if (target == "/silent") co_return;
    if (target == "/unended") {
      Headers headers;
      co_await exchange.begin_stream(200, headers);
      co_await exchange.write(std::move(partial));
      co_return;
    }
    co_await echo(exchange);
  });
  run([](std::uint16_t port) {
    Client client(port);
    for (const std::string target : {"/throw", "/bad-header", "/silent"}) {
      ASSERT_TRUE(client.send(get(target)));
      const Response response = client.read_response();
      EXPECT_EQ(response.status, 500) << target;
      EXPECT_EQ(response.body,
                json_error(500, target == "/silent" ? "the server sent no response" : "internal error"));
      EXPECT_EQ(response.header("content-type"), "application/json");
      EXPECT_EQ(response.header("connection"), "");  // the connection lives on
    }
    ASSERT_TRUE(client.send(get("/twice")));
    EXPECT_EQ(client.read_response().body, "once");  // the second answer threw, and changed nothing
    ASSERT_TRUE(client.send(get("/fine")));
    EXPECT_EQ(client.read_response().body, "GET /fine ");
    ASSERT_TRUE(client.send(get("/unended")));
    EXPECT_NE(client.read_head().find("Transfer-Encoding: chunked"), std::string::npos);
    std::optional<std::string> chunk;
    while ((chunk = client.read_chunk()) && !chunk->empty()) {
    }
    EXPECT_FALSE(chunk.has_value());  // ended by a reset, never by the last chunk
    EXPECT_EQ(client.last_error(), ECONNRESET);
  });
}

TEST_F(HttpServerTest, AHandlerMustNotWriteOutsideAStream) {
  std::vector<std::string> errors;
  start([&](Exchange& exchange) -> Async<void> {
    std::string data = "x", body;
    try {
      co_await exchange.write(std::move(data));
    } catch (const std::logic_error& error) {
      errors.emplace_back(error.what());
    }
    try {
      co_await exchange.end_stream();
    } catch (const std::logic_error& error) {
      errors.emplace_back(error.what());
    }
    Headers headers;
    try {
      co_await exchange.respond(99, headers, std::move(body));
    } catch (const std::invalid_argument& error) {
      errors.emplace_back(error.what());
    }
    co_await exchange.begin_stream(200, headers);
    try {
      co_await exchange.begin_stream(200, headers);
    } catch (const std::logic_error& error) {
      errors.emplace_back(error.what());
    }
    co_await exchange.end_stream();
  });
  run([](std::uint16_t port) {
    Client client(port);
    ASSERT_TRUE(client.send(get("/")));
    EXPECT_EQ(client.read_response().status, 200);
  });
  EXPECT_EQ(errors, (std::vector<std::string>{"write() outside a stream", "end_stream() outside a stream",
                                              "HTTP status 99 is not 200..599",
                                              "begin_stream(): the response was begun already"}));
}

// The gateway's shape: a handler that calls a backend through the HTTP transport, the server,
// the transport and the backend (another HttpServer) all driven by the one loop.
TEST_F(HttpServerTest, AHandlerCallsABackendThroughTheHttpTransportOnTheSameLoop) {
  auto backend = HttpServer::listen(
      loop_, "127.0.0.1", 0,
      [&](Exchange& exchange) -> Async<void> {
        co_await loop_.sleep_for(30ms);
        Headers headers;
        std::string body = "backend saw " + exchange.request().body;
        co_await exchange.respond(200, headers, std::move(body));
      },
      {}, json_error);
  ASSERT_TRUE(backend);
  also_stop_.push_back(backend->get());
  const std::string url = "http://127.0.0.1:" + std::to_string((*backend)->port()) + "/v1/chat/completions";
  const auto transport = make_http_transport(loop_);
  loop_.add_io(transport.get());
  start([&](Exchange& exchange) -> Async<void> {
    HttpRequest request;
    request.url = url;
    request.body = exchange.request().target;
    const HttpResponse reply = co_await transport->post(request);
    Headers headers;
    co_await exchange.begin_stream(reply.status == 200 ? 200 : 502, headers);
    co_await exchange.write(reply.body);
    co_await exchange.end_stream();
  });
  std::vector<std::string> bodies(20);
  const auto started = Clock::now();
  run([&](std::uint16_t port) {
    std::vector<std::unique_ptr<Client>> clients;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      clients.push_back(std::make_unique<Client>(port));
      ASSERT_TRUE(clients.back()->send(get("/" + std::to_string(i))));
    }
    for (std::size_t i = 0; i < bodies.size(); ++i) bodies[i] = clients[i]->read_response().body;
  });
  for (std::size_t i = 0; i < bodies.size(); ++i) EXPECT_EQ(bodies[i], "backend saw /" + std::to_string(i));
  EXPECT_LT(Clock::now() - started, 2s);  // concurrently: one backend delay, not twenty
  EXPECT_EQ((*backend)->stats().requests, bodies.size());
  loop_.remove_io(transport.get());
}

TEST(HttpServerListen, BindsIpv4Ipv6AndLocalhostAndRefusesNames) {
  EventLoop loop;
  for (const std::string host : {"127.0.0.1", "::1", "[::1]", "localhost"}) {
    auto server = HttpServer::listen(loop, host, 0, echo, {}, nullptr);
    ASSERT_TRUE(server) << host << ": " << server.error().message;
    const bool v6 = host.find(':') != std::string::npos;
    Client client((*server)->port(), v6 ? AF_INET6 : AF_INET);
    EXPECT_TRUE(client.connected()) << host;
    (*server)->stop();
  }
  auto named = HttpServer::listen(loop, "example.com", 0, echo, {}, nullptr);
  ASSERT_FALSE(named);
  EXPECT_EQ(named.error().message, "cannot listen on \"example.com\": not an IP address or localhost");
  auto first = HttpServer::listen(loop, "127.0.0.1", 0, echo, {}, nullptr);
  ASSERT_TRUE(first);
  const std::uint16_t port = (*first)->port();
  auto again = HttpServer::listen(loop, "127.0.0.1", port, echo, {}, nullptr);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().message,
            "cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use");
  first = Error{"destroyed, never stopped"};  // the port is free again
  auto after = HttpServer::listen(loop, "127.0.0.1", port, echo, {}, nullptr);
  ASSERT_TRUE(after) << after.error().message;
  (*after)->stop();
  loop.run();
}

// Without an error body, the server's own responses are the message as text.
TEST(HttpServerListen, WithoutAnErrorBodyTheMessageIsSentAsText) {
  EventLoop loop;
  auto server = HttpServer::listen(loop, "127.0.0.1", 0, echo, {}, nullptr);
  ASSERT_TRUE(server);
  std::atomic<bool> done{false};
  Response response;
  std::thread client([&, port = (*server)->port()] {
    Client raw(port);
    raw.send("BAD\r\n\r\n");
    response = raw.read_response();
    done = true;
  });
  auto stopper = [&]() -> Async<void> {
    co_await until(loop, done);
    (*server)->stop();
  };
  loop.spawn(stopper());
  loop.run();
  client.join();
  EXPECT_EQ(response.status, 400);
  EXPECT_EQ(response.header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(response.body.rfind("malformed request: ", 0), 0u);
}

}  // namespace
}  // namespace parley::serve
