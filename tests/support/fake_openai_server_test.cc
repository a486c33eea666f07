#include "support/fake_openai_server.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;

namespace parley::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

// Every wait in these tests is bounded by this, so a bug shows up as a failure, not a hang.
constexpr auto kHangLimit = seconds(60);

std::string chat_body(const std::string& question) {
  return json{{"model", "fake"}, {"messages", json::array({{{"role", "user"}, {"content", question}}})}}
      .dump();
}

std::string raw_post(const std::string& body, const std::string& extra_headers = "",
                     const std::string& path = "/v1/chat/completions") {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
         extra_headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// ---- libcurl ------------------------------------------------------------------------------

struct CurlReply {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
  std::vector<std::string> header_lines;  // every header line curl saw, interim responses too
};

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

std::size_t append_header(char* data, std::size_t size, std::size_t count, void* out) {
  std::string line(data, size * count);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  static_cast<std::vector<std::string>*>(out)->push_back(line);
  return size * count;
}

class Curl {
 public:
  Curl() {
    static const CURLcode init = curl_global_init(CURL_GLOBAL_DEFAULT);
    EXPECT_EQ(init, CURLE_OK);
    handle_ = curl_easy_init();
  }
  ~Curl() { curl_easy_cleanup(handle_); }
  Curl(const Curl&) = delete;
  Curl& operator=(const Curl&) = delete;

  // POSTs `body` (or GETs when it is empty and `get` is set) and waits for the reply.
  CurlReply request(const std::string& url, const std::string& body,
                    const std::vector<std::string>& headers = {}, bool get = false) {
    CurlReply reply;
    curl_slist* list = nullptr;
    for (const std::string& header : headers) list = curl_slist_append(list, header.c_str());
    list = curl_slist_append(list, "Content-Type: application/json");
    curl_easy_setopt(handle_, CURLOPT_URL, url.c_str());
    if (get) {
      curl_easy_setopt(handle_, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(handle_, CURLOPT_POSTFIELDS, body.c_str());
      curl_easy_setopt(handle_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    curl_easy_setopt(handle_, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(handle_, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(handle_, CURLOPT_WRITEDATA, &reply.body);
    curl_easy_setopt(handle_, CURLOPT_HEADERFUNCTION, append_header);
    curl_easy_setopt(handle_, CURLOPT_HEADERDATA, &reply.header_lines);
    curl_easy_setopt(handle_, CURLOPT_TIMEOUT_MS, static_cast<long>(milliseconds(kHangLimit).count()));
    curl_easy_setopt(handle_, CURLOPT_NOSIGNAL, 1L);
    reply.code = curl_easy_perform(handle_);
    curl_easy_getinfo(handle_, CURLINFO_RESPONSE_CODE, &reply.status);
    curl_easy_setopt(handle_, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(list);
    return reply;
  }

  CURL* handle() { return handle_; }

 private:
  CURL* handle_;
};

std::string chat_url(const FakeOpenAiServer& server) { return server.base_url() + "/chat/completions"; }

bool has_header_line(const CurlReply& reply, const std::string& line) {
  for (const std::string& seen : reply.header_lines) {
    if (seen == line) return true;
  }
  return false;
}

// ---- raw sockets --------------------------------------------------------------------------

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// Parses one final response from the front of `data`, skipping interim 1xx ones; returns the
// bytes it used, or nothing when the response is not complete yet.
std::optional<std::size_t> parse_response(std::string_view data, RawResponse& out) {
  std::size_t offset = 0;
  for (;;) {
    std::size_t head_end = data.find("\r\n\r\n", offset);
    if (head_end == std::string_view::npos) return std::nullopt;
    std::string_view head = data.substr(offset, head_end - offset);
    RawResponse response;
    response.status = std::stoi(std::string(head.substr(9, 3)));
    std::size_t line_start = head.find("\r\n");
    while (line_start != std::string_view::npos) {
      line_start += 2;
      std::size_t line_end = head.find("\r\n", line_start);
      std::string_view line = head.substr(line_start, line_end - line_start);
      std::size_t colon = line.find(':');
      std::string name(line.substr(0, colon));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      response.headers[name] = std::string(value);
      line_start = line_end;
    }
    std::size_t body_start = head_end + 4;
    if (response.status / 100 == 1) {
      offset = body_start;
      continue;
    }
    std::size_t length = std::stoul(response.headers["content-length"]);
    if (data.size() < body_start + length) return std::nullopt;
    response.body = std::string(data.substr(body_start, length));
    out = std::move(response);
    return body_start + length;
  }
}

int connect_blocking(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  timeval timeout{static_cast<time_t>(kHangLimit.count()), 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0) << std::strerror(errno);
  return fd;
}

void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    ASSERT_GT(sent, 0) << std::strerror(errno);
    data.remove_prefix(static_cast<std::size_t>(sent));
  }
}

// Reads `count` responses; with `then_eof`, also waits for the server to close.
std::vector<RawResponse> read_responses(int fd, std::size_t count, bool then_eof = false) {
  std::vector<RawResponse> responses;
  std::string data;
  char buffer[16 * 1024];
  for (;;) {
    RawResponse response;
    while (responses.size() < count) {
      std::optional<std::size_t> used = parse_response(data, response);
      if (!used) break;
      responses.push_back(std::move(response));
      data.erase(0, *used);
    }
    if (responses.size() == count && !then_eof) return responses;
    ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) {
      EXPECT_EQ(got, 0) << "recv: " << std::strerror(errno);
      EXPECT_TRUE(data.empty()) << "unparsed bytes at EOF: " << data;
      return responses;
    }
    data.append(buffer, static_cast<std::size_t>(got));
  }
}

void raise_fd_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

// Opens `count` connections at once, sends `request` on each and reads one response per
// connection, keeping every connection open until all have answered.
struct ParallelOutcome {
  std::vector<RawResponse> responses;  // in completion order
  int failed = 0;
  bool timed_out = false;
};

ParallelOutcome run_parallel(int port, int count, const std::string& request) {
  struct Client {
    int fd = -1;
    std::size_t sent = 0;
    std::string received;
    bool done = false;
  };
  ParallelOutcome outcome;
  std::vector<Client> clients(static_cast<std::size_t>(count));
  int epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  int remaining = count;
  for (std::size_t i = 0; i < clients.size(); ++i) {
    Client& client = clients[i];
    client.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (client.fd < 0) {
      ADD_FAILURE() << "socket " << i << ": " << std::strerror(errno);
      client.done = true;
      ++outcome.failed;
      --remaining;
      continue;
    }
    int connected = ::connect(client.fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    EXPECT_TRUE(connected == 0 || errno == EINPROGRESS) << std::strerror(errno);
    epoll_event event{};
    event.events = EPOLLIN | EPOLLOUT;
    event.data.u64 = i;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, client.fd, &event);
  }
  std::vector<epoll_event> events(1024);
  char buffer[16 * 1024];
  Clock::time_point deadline = Clock::now() + kHangLimit;
  while (remaining > 0) {
    if (Clock::now() > deadline) {
      outcome.timed_out = true;
      break;
    }
    int ready = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), 100);
    for (int e = 0; e < ready; ++e) {
      Client& client = clients[events[e].data.u64];
      if (client.done) continue;
      auto finish = [&](bool ok) {
        client.done = true;
        --remaining;
        if (!ok) ++outcome.failed;
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, client.fd, nullptr);
      };
      if (client.sent < request.size() && (events[e].events & EPOLLOUT)) {
        ssize_t sent =
            ::send(client.fd, request.data() + client.sent, request.size() - client.sent, MSG_NOSIGNAL);
        if (sent > 0) client.sent += static_cast<std::size_t>(sent);
        if (sent < 0 && errno != EAGAIN) {
          finish(false);
          continue;
        }
        if (client.sent == request.size()) {
          epoll_event event{};
          event.events = EPOLLIN;
          event.data.u64 = events[e].data.u64;
          ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, client.fd, &event);
        }
      }
      if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        ssize_t got = ::recv(client.fd, buffer, sizeof buffer, 0);
        if (got > 0) {
          client.received.append(buffer, static_cast<std::size_t>(got));
          RawResponse response;
          if (parse_response(client.received, response)) {
            outcome.responses.push_back(std::move(response));
            finish(true);
          }
        } else if (got == 0 || errno != EAGAIN) {
          finish(false);
        }
      }
    }
  }
  for (Client& client : clients) {
    if (client.fd >= 0) ::close(client.fd);
  }
  ::close(epoll_fd);
  return outcome;
}

// ---- the server through libcurl -------------------------------------------------------------

TEST(FakeOpenAiServer, PostGetsValidCompletion) {
  FakeOpenAiServer server([](const FakeRequest&) {
    CompletionSpec spec;
    spec.content = "hello";
    spec.reasoning_content = "thinking";
    spec.cached_tokens = 3;
    spec.token_logprobs = {-0.5, -0.25};
    return ok_reply(spec);
  });
  EXPECT_EQ(server.base_url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/v1");
  Curl curl;
  CurlReply reply = curl.request(chat_url(server), chat_body("hi"));
  ASSERT_EQ(reply.code, CURLE_OK) << curl_easy_strerror(reply.code);
  EXPECT_EQ(reply.status, 200);
  EXPECT_TRUE(has_header_line(reply, "Content-Type: application/json"));
  json body = json::parse(reply.body);
  EXPECT_EQ(body["object"], "chat.completion");
  const json& choice = body["choices"][0];
  EXPECT_EQ(choice["message"]["content"], "hello");
  EXPECT_EQ(choice["message"]["reasoning_content"], "thinking");
  EXPECT_EQ(choice["finish_reason"], "stop");
  ASSERT_EQ(choice["logprobs"]["content"].size(), 2u);
  EXPECT_EQ(choice["logprobs"]["content"][1]["logprob"], -0.25);
  EXPECT_EQ(choice["logprobs"]["content"][0]["token"].get<std::string>() +
                choice["logprobs"]["content"][1]["token"].get<std::string>(),
            "hello");
  EXPECT_EQ(body["usage"]["prompt_tokens"], 10);
  EXPECT_EQ(body["usage"]["completion_tokens"], 5);
  EXPECT_EQ(body["usage"]["total_tokens"], 15);
  EXPECT_EQ(body["usage"]["prompt_tokens_details"]["cached_tokens"], 3);
  EXPECT_EQ(server.requests(), 1u);
}

TEST(FakeOpenAiServer, HandlerSeesTheRequest) {
  std::mutex mutex;
  std::vector<FakeRequest> seen;
  FakeOpenAiServer server([&](const FakeRequest& request) {
    std::lock_guard lock(mutex);
    seen.push_back(request);
    return ok_reply({.content = "x"});
  });
  Curl curl;
  std::string body = chat_body("what?");
  ASSERT_EQ(curl.request(chat_url(server), body, {"Authorization: Bearer k", "X-Custom: One"}).code,
            CURLE_OK);
  std::lock_guard lock(mutex);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/v1/chat/completions");
  EXPECT_EQ(seen[0].body, body);
  EXPECT_EQ(seen[0].headers.at("authorization"), "Bearer k");
  EXPECT_EQ(seen[0].headers.at("x-custom"), "One");
  EXPECT_EQ(seen[0].index, 0u);
  EXPECT_EQ(seen[0].connection, 1u);
}

TEST(FakeOpenAiServer, KeepAliveReusesOneConnection) {
  FakeOpenAiServer server([](const FakeRequest&) { return ok_reply({.content = "again"}); });
  Curl curl;
  for (int i = 0; i < 2; ++i) {
    CurlReply reply = curl.request(chat_url(server), chat_body("q"));
    ASSERT_EQ(reply.code, CURLE_OK) << curl_easy_strerror(reply.code);
    EXPECT_EQ(reply.status, 200);
  }
  EXPECT_EQ(server.requests(), 2u);
  EXPECT_EQ(server.connections_accepted(), 1u);
}

TEST(FakeOpenAiServer, ExpectContinueGetsContinueBeforeTheBody) {
  std::atomic<std::size_t> body_size{0};
  FakeOpenAiServer server([&](const FakeRequest& request) {
    body_size = request.body.size();
    EXPECT_EQ(request.headers.at("expect"), "100-continue");
    return ok_reply({.content = "big"});
  });
  Curl curl;
  // Were the 100 missing, curl would wait this long before sending the body anyway.
  curl_easy_setopt(curl.handle(), CURLOPT_EXPECT_100_TIMEOUT_MS, 30'000L);
  std::string big_question(4096, 'q');
  std::string body = chat_body(big_question);
  Clock::time_point start = Clock::now();
  CurlReply reply = curl.request(chat_url(server), body, {"Expect: 100-continue"});
  ASSERT_EQ(reply.code, CURLE_OK) << curl_easy_strerror(reply.code);
  EXPECT_LT(Clock::now() - start, seconds(10));
  EXPECT_EQ(reply.status, 200);
  EXPECT_TRUE(has_header_line(reply, "HTTP/1.1 100 Continue"));
  EXPECT_EQ(body_size.load(), body.size());
}

TEST(FakeOpenAiServer, OtherPathsGet404) {
  FakeOpenAiServer server([](const FakeRequest&) { return ok_reply({.content = "x"}); });
  Curl curl;
  CurlReply get = curl.request(server.base_url() + "/models", "", {}, /*get=*/true);
  ASSERT_EQ(get.code, CURLE_OK);
  EXPECT_EQ(get.status, 404);
  EXPECT_TRUE(json::parse(get.body).contains("error"));
  CurlReply post = curl.request(server.base_url() + "/completions", chat_body("q"));
  ASSERT_EQ(post.code, CURLE_OK);
  EXPECT_EQ(post.status, 404);
  EXPECT_TRUE(has_header_line(post, "Content-Type: application/json"));
  CurlReply chat = curl.request(chat_url(server) + "?x=1", chat_body("q"));
  EXPECT_EQ(chat.status, 200);
  CurlReply embeddings = curl.request(server.base_url() + "/embeddings", R"({"input": ["q"]})");
  EXPECT_EQ(embeddings.status, 200) << "embeddings reach the handler";
  EXPECT_EQ(server.connections_accepted(), 1u);  // a 404 keeps the connection alive
}

TEST(FakeOpenAiServer, StatusReplyCarriesRetryAfter) {
  FakeOpenAiServer server([](const FakeRequest&) { return status_reply(429, 3); });
  Curl curl;
  CurlReply reply = curl.request(chat_url(server), chat_body("q"));
  ASSERT_EQ(reply.code, CURLE_OK);
  EXPECT_EQ(reply.status, 429);
  EXPECT_TRUE(has_header_line(reply, "Retry-After: 3"));
  json body = json::parse(reply.body);
  EXPECT_EQ(body["error"]["code"], 429);
  EXPECT_EQ(body["error"]["type"], "rate_limit_error");
}

TEST(FakeOpenAiServer, ResetMidBodyIsACurlErrorNotAHang) {
  FakeOpenAiServer server([](const FakeRequest&) {
    FakeResponse response = ok_reply({.content = std::string(2000, 'z')});
    response.reset_mid_body = true;
    return response;
  });
  Curl curl;
  CurlReply reply = curl.request(chat_url(server), chat_body("q"));
  EXPECT_NE(reply.code, CURLE_OK);
  EXPECT_NE(reply.code, CURLE_OPERATION_TIMEDOUT);
  // The connection is gone, so the next request on the same handle needs a new one.
  reply = curl.request(chat_url(server), chat_body("q"));
  EXPECT_NE(reply.code, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(server.connections_accepted(), 2u);
}

TEST(FakeOpenAiServer, HandlerExceptionBecomes500) {
  FakeOpenAiServer server([](const FakeRequest&) -> FakeResponse { throw std::runtime_error("boom"); });
  Curl curl;
  CurlReply reply = curl.request(chat_url(server), chat_body("q"));
  ASSERT_EQ(reply.code, CURLE_OK);
  EXPECT_EQ(reply.status, 500);
  EXPECT_THAT(reply.body, ::testing::HasSubstr("boom"));
}

TEST(FakeOpenAiServer, FaultyHandlerCountsEveryRequestThroughTheServer) {
  FaultPlan plan;
  plan.every_500 = 2;
  FakeOpenAiServer server(faulty_handler(plan));
  Curl curl;
  std::vector<long> statuses;
  for (int i = 0; i < 4; ++i) statuses.push_back(curl.request(chat_url(server), chat_body("q")).status);
  EXPECT_THAT(statuses, ::testing::ElementsAre(200, 500, 200, 500));
}

TEST(FakeOpenAiServer, LargeReplySurvivesPartialWrites) {
  // Far more than the socket buffers hold, so the server must wait for EPOLLOUT.
  const std::string content(8 * 1024 * 1024, 'w');
  FakeOpenAiServer server([&](const FakeRequest&) { return ok_reply({.content = content}); });
  Curl curl;
  CurlReply reply = curl.request(chat_url(server), chat_body("q"));
  ASSERT_EQ(reply.code, CURLE_OK) << curl_easy_strerror(reply.code);
  EXPECT_EQ(json::parse(reply.body)["choices"][0]["message"]["content"], content);
}

// ---- the server through raw sockets ---------------------------------------------------------

TEST(FakeOpenAiServer, PipelinedRequestsAreAnsweredInOrder) {
  FakeOpenAiServer server([](const FakeRequest& request) {
    FakeResponse response = ok_reply({.content = request.body});
    response.delay_ms = request.body == "first" ? 200 : 0;  // the second is ready first
    return response;
  });
  int fd = connect_blocking(server.port());
  send_all(fd, raw_post("first") + raw_post("second"));
  std::vector<RawResponse> responses = read_responses(fd, 2);
  ::close(fd);
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(json::parse(responses[0].body)["choices"][0]["message"]["content"], "first");
  EXPECT_EQ(json::parse(responses[1].body)["choices"][0]["message"]["content"], "second");
  EXPECT_EQ(server.connections_accepted(), 1u);
  EXPECT_EQ(server.peak_pending(), 2u);
}

TEST(FakeOpenAiServer, RequestSplitIntoPiecesIsReassembled) {
  FakeOpenAiServer server([](const FakeRequest& request) { return ok_reply({.content = request.body}); });
  int fd = connect_blocking(server.port());
  std::string request = raw_post("piecewise");
  for (char c : request) send_all(fd, std::string_view(&c, 1));
  std::vector<RawResponse> responses = read_responses(fd, 1);
  ::close(fd);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(json::parse(responses[0].body)["choices"][0]["message"]["content"], "piecewise");
}

TEST(FakeOpenAiServer, ConnectionCloseIsHonoured) {
  FakeOpenAiServer server([](const FakeRequest&) { return ok_reply({.content = "bye"}); });
  int fd = connect_blocking(server.port());
  send_all(fd, raw_post("{}", "Connection: close\r\n"));
  std::vector<RawResponse> responses = read_responses(fd, 1, /*then_eof=*/true);
  ::close(fd);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status, 200);
  EXPECT_EQ(responses[0].headers["connection"], "close");
}

TEST(FakeOpenAiServer, CloseAfterClosesOnceTheReplyIsSent) {
  FakeOpenAiServer server([](const FakeRequest&) {
    FakeResponse response = ok_reply({.content = "last"});
    response.close_after = true;
    return response;
  });
  int fd = connect_blocking(server.port());
  send_all(fd, raw_post("{}"));
  std::vector<RawResponse> responses = read_responses(fd, 1, /*then_eof=*/true);
  ::close(fd);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].headers["connection"], "close");
}

TEST(FakeOpenAiServer, ClientLeavingBeforeItsDelayedReplyDisturbsNoOne) {
  FakeOpenAiServer server([](const FakeRequest& request) {
    FakeResponse response = ok_reply({.content = "late"});
    response.delay_ms = request.body == "leaver" ? 100 : 0;
    return response;
  });
  int leaver = connect_blocking(server.port());
  send_all(leaver, raw_post("leaver"));
  for (Clock::time_point deadline = Clock::now() + kHangLimit;
       server.requests() < 1 && Clock::now() < deadline;) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  ::close(leaver);
  std::this_thread::sleep_for(milliseconds(200));  // the reply falls due on a closed peer
  Curl curl;
  CurlReply reply = curl.request(chat_url(server), chat_body("q"));
  ASSERT_EQ(reply.code, CURLE_OK) << curl_easy_strerror(reply.code);
  EXPECT_EQ(reply.status, 200);
}

TEST(FakeOpenAiServer, ARequestWhoseClientLeavesBeforeItsReplyIsCountedAbandoned) {
  FakeOpenAiServer server([](const FakeRequest& request) {
    FakeResponse response = ok_reply({.content = "late"});
    response.delay_ms = request.body == "leaver" ? 60000 : 0;
    return response;
  });
  Curl curl;
  ASSERT_EQ(curl.request(chat_url(server), chat_body("answered")).status, 200);
  int leaver = connect_blocking(server.port());
  send_all(leaver, raw_post("leaver"));
  for (Clock::time_point deadline = Clock::now() + kHangLimit;
       server.requests() < 2 && Clock::now() < deadline;) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(server.requests_abandoned(), 0u);
  ::close(leaver);
  for (Clock::time_point deadline = Clock::now() + kHangLimit;
       server.requests_abandoned() < 1 && Clock::now() < deadline;) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(server.requests_abandoned(), 1u);  // the answered request is not counted
}

TEST(FakeOpenAiServer, ChunkedAndMalformedRequestsAreRejectedNotHung) {
  FakeOpenAiServer server([](const FakeRequest&) { return ok_reply({.content = "x"}); });
  int chunked = connect_blocking(server.port());
  send_all(chunked,
           "POST /v1/chat/completions HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
           "chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  std::vector<RawResponse> responses = read_responses(chunked, 1, /*then_eof=*/true);
  ::close(chunked);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status, 411);

  int garbage = connect_blocking(server.port());
  send_all(garbage, "this is not http\r\n\r\n");
  responses = read_responses(garbage, 1, /*then_eof=*/true);
  ::close(garbage);
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].status, 400);
  EXPECT_EQ(server.requests(), 0u);
}

TEST(FakeOpenAiServer, DelayedRepliesAreAllPendingAtOnce) {
  constexpr int kConnections = 200;
  FakeOpenAiServer server([](const FakeRequest& request) {
    FakeResponse response = answer_reply(request);
    response.delay_ms = 300;
    return response;
  });
  ParallelOutcome outcome =
      run_parallel(server.port(), kConnections, raw_post(chat_body("Why? (A) a (B) b")));
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_EQ(outcome.failed, 0);
  ASSERT_EQ(outcome.responses.size(), static_cast<std::size_t>(kConnections));
  for (const RawResponse& response : outcome.responses) EXPECT_EQ(response.status, 200);
  EXPECT_EQ(server.requests(), static_cast<std::uint64_t>(kConnections));
  EXPECT_EQ(server.connections_accepted(), static_cast<std::uint64_t>(kConnections));
  EXPECT_EQ(server.peak_open_connections(), static_cast<std::uint64_t>(kConnections));
  EXPECT_EQ(server.peak_pending(), static_cast<std::uint64_t>(kConnections));
}

// ---- the executable -------------------------------------------------------------------------

struct Child {
  pid_t pid = -1;
  int out = -1;  // its stdout
  int err = -1;  // its stderr
};

Child spawn_server(std::vector<std::string> args) {
  int out_pipe[2];
  int err_pipe[2];
  EXPECT_EQ(::pipe2(out_pipe, O_CLOEXEC), 0);
  EXPECT_EQ(::pipe2(err_pipe, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  args.insert(args.begin(), FAKE_OPENAI_SERVER_BINARY);
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  Child child;
  EXPECT_EQ(posix_spawn(&child.pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  child.out = out_pipe[0];
  child.err = err_pipe[0];
  return child;
}

// Reads from `fd` until EOF, or until a newline when `one_line`, within the hang limit.
std::string read_fd(int fd, bool one_line) {
  std::string text;
  Clock::time_point deadline = Clock::now() + kHangLimit;
  while (Clock::now() < deadline) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    char c;
    if (::read(fd, &c, 1) != 1) break;
    text += c;
    if (one_line && c == '\n') break;
  }
  return text;
}

int wait_exit(pid_t pid) {
  Clock::time_point deadline = Clock::now() + kHangLimit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      ADD_FAILURE() << "fake_openai_server did not exit";
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FakeOpenAiServerBinary, UnknownFlagExits2) {
  Child child = spawn_server({"--no-such-flag", "1"});
  std::string err = read_fd(child.err, false);
  EXPECT_EQ(wait_exit(child.pid), 2);
  EXPECT_THAT(err, ::testing::HasSubstr("--no-such-flag"));
  ::close(child.out);
  ::close(child.err);
}

TEST(FakeOpenAiServerBinary, HoldsTenThousandConnectionsWithDelayedReplies) {
  // A process of its own: client and server sockets together would pass a 20,000 fd limit.
  constexpr int kConnections = 10'000;
  raise_fd_limit();
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur < kConnections + 100) GTEST_SKIP() << "RLIMIT_NOFILE is " << limit.rlim_cur;

  Child child = spawn_server({"--delay-ms", "2000", "--every-500", "1000"});
  std::string port_line = read_fd(child.out, true);
  ASSERT_FALSE(port_line.empty());
  int port = std::stoi(port_line);

  ParallelOutcome outcome =
      run_parallel(port, kConnections, raw_post(chat_body("Which? (A) 1 (B) 2 (C) 3 (D) 4")));
  EXPECT_FALSE(outcome.timed_out);
  EXPECT_EQ(outcome.failed, 0);
  int ok = 0;
  int server_errors = 0;
  for (const RawResponse& response : outcome.responses) {
    ok += response.status == 200;
    server_errors += response.status == 500;
  }
  EXPECT_EQ(ok, kConnections - kConnections / 1000);
  EXPECT_EQ(server_errors, kConnections / 1000);

  ::kill(child.pid, SIGTERM);
  // peak_pending is left out: whether all 10,000 arrive within the delay depends on the machine.
  std::string counters = read_fd(child.err, false);
  EXPECT_EQ(wait_exit(child.pid), 0);
  EXPECT_THAT(counters,
              ::testing::HasSubstr("requests=10000 connections_accepted=10000 peak_open_connections=10000"));
  ::close(child.out);
  ::close(child.err);
}

}  // namespace
}  // namespace parley::testing
