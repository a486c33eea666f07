// OpenAI client against FakeOpenAiServer on loopback, every test on both transports: libcurl's
// and the routing one a run uses (which serves these http://127.0.0.1 URLs natively and sends a
// URL with credentials to libcurl).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <variant>
#include <vector>

#include "llm/openai_client_test_support.h"
#include "parley/llm_client.h"
#include "parley/version.h"
#include "support/fake_openai_server.h"

namespace parley {
namespace {

using namespace parley::openai_test;
using nlohmann::json;
// The chat overloads, beside the embedding ones below.
using openai_test::failed;
using openai_test::ok;

class OpenAiClient : public ::testing::TestWithParam<TransportKind> {};

INSTANTIATE_TEST_SUITE_P(BothTransports, OpenAiClient, ::testing::Values(TransportKind::kCurl, TransportKind::kRouted),
                         transport_name);

EmbeddingResponse ok(const EmbeddingResult& result) {
  if (const auto* error = std::get_if<CallError>(&result)) {
    ADD_FAILURE() << call_error_kind_name(error->kind) << ": " << error->message;
    return {};
  }
  return std::get<EmbeddingResponse>(result);
}

CallError failed(const EmbeddingResult& result) {
  if (!std::holds_alternative<CallError>(result)) {
    ADD_FAILURE() << "expected a CallError, got " << std::get<EmbeddingResponse>(result).vectors.size()
                  << " vectors";
    return {};
  }
  return std::get<CallError>(result);
}

EmbeddingRequest texts_to_embed() {
  EmbeddingRequest request;
  request.model = "fake-embedder";
  request.inputs = {"Answer: B because 2+2=4", "Answer: C"};
  return request;
}

TEST_P(OpenAiClient, SendsTheRequestAndParsesTheReply) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec())}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.base_url += "/";  // a trailing slash is tolerated
  auto client = harness.client(options);
  EXPECT_FALSE(client->simulated());

  ChatRequest request = question();
  request.sampling.seed = 7;
  const auto started = Clock::now();
  const ChatResponse response = ok(harness.run_one(*client, request));
  const double waited_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  EXPECT_EQ(response.text, "Answer: B");
  EXPECT_EQ(response.finish_reason, "stop");
  EXPECT_EQ(response.usage.prompt_tokens, 10);
  EXPECT_EQ(response.usage.completion_tokens, 5);
  EXPECT_EQ(response.usage.cached_tokens, 0);
  EXPECT_FALSE(response.usage.estimated);
  EXPECT_FALSE(response.logprobs.has_value());
  EXPECT_EQ(response.attempts, 1);
  EXPECT_GT(response.latency_ms, 0.0);
  EXPECT_LE(response.latency_ms, waited_ms);  // measured from the start of the transfer

  auto requests = recorder->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers["content-type"], "application/json");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  EXPECT_EQ(requests[0].headers.count("expect"), 0u);
  EXPECT_EQ(requests[0].headers["user-agent"], "parley/" PARLEY_VERSION);
  json body = json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "fake-model");
  EXPECT_EQ(body["messages"], (json{{{"role", "system"}, {"content", "Answer briefly."}},
                                    {{"role", "user"}, {"content", "What is 2+2?"}}}));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["seed"], 7);
  EXPECT_FALSE(body.contains("logprobs"));
}

TEST_P(OpenAiClient, MissingUsageIsEstimated) {
  auto recorder = std::make_shared<Recorder>();
  CompletionSpec spec = answer_spec("hello");
  spec.include_usage = false;
  FakeOpenAiServer server(scripted(recorder, {ok_reply(spec)}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  ChatRequest request = question();
  const ChatResponse response = ok(harness.run_one(*client, request));
  EXPECT_TRUE(response.usage.estimated);
  EXPECT_EQ(response.usage.prompt_tokens, estimate_prompt_tokens(request.messages));
  EXPECT_EQ(response.usage.completion_tokens, 2);  // ceil(5 / 4)
}

TEST_P(OpenAiClient, CachedTokensReasoningAndLogprobs) {
  auto recorder = std::make_shared<Recorder>();
  CompletionSpec spec = answer_spec("Answer: C");
  spec.reasoning_content = "First, consider C.";
  spec.cached_tokens = 8;
  spec.token_logprobs = {-0.1, -0.5, -2.0};
  FakeOpenAiServer server(scripted(recorder, {ok_reply(spec)}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  ChatRequest request = question();
  request.sampling.logprobs = true;
  const ChatResponse response = ok(harness.run_one(*client, request));
  EXPECT_EQ(response.text, "Answer: C");
  EXPECT_EQ(response.reasoning, "First, consider C.");
  EXPECT_EQ(response.usage.cached_tokens, 8);
  ASSERT_TRUE(response.logprobs.has_value());
  EXPECT_EQ(response.logprobs->tokens, 3);
  EXPECT_DOUBLE_EQ(response.logprobs->min_token_logprob, -2.0);
  EXPECT_NEAR(response.logprobs->perplexity, 2.378968, 1e-6);
  EXPECT_NEAR(response.logprobs->mean_token_logprob(), -2.6 / 3.0, 1e-12);  // (−0.1 − 0.5 − 2.0)/3
  EXPECT_EQ(json::parse(recorder->requests()[0].body)["logprobs"], true);
}

// A 200 reply with `body` sent as is.
FakeResponse raw_reply(std::string body) {
  FakeResponse reply;
  reply.body = std::move(body);
  return reply;
}

TEST_P(OpenAiClient, ImplausibleUsageIsReplacedByTheEstimateAndMarked) {
  auto recorder = std::make_shared<Recorder>();
  const std::string choice = R"({"choices": [{"message": {"content": "hello"}, "finish_reason": "stop"}], "usage": )";
  FakeOpenAiServer server(scripted(recorder, {raw_reply(choice + R"({"prompt_tokens": 1e30, "completion_tokens": 5}})"),
                                              raw_reply(choice + R"({"prompt_tokens": -7, "completion_tokens": 5}})")}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const ChatRequest request = question();
  // The prompt is 15 + 12 bytes: the limit is 4096 + 2 * 27 = 4150.
  for (const char* problem : {"usage.prompt_tokens 1e+30 is more than 4150, the most this call can plausibly use",
                              "usage.prompt_tokens -7 is negative"}) {
    const ChatResponse response = ok(harness.run_one(*client, request));
    EXPECT_EQ(response.text, "hello");
    EXPECT_TRUE(response.usage.estimated);
    EXPECT_EQ(response.usage.prompt_tokens, estimate_prompt_tokens(request.messages));
    EXPECT_EQ(response.usage.completion_tokens, 2);  // ceil(5 / 4)
    EXPECT_EQ(response.warnings,
              (std::vector<std::string>{std::string("usage not believed, tokens estimated: ") + problem}));
    EXPECT_EQ(response.attempts, 1);  // a reply kept, not a failure retried
  }
}

TEST_P(OpenAiClient, InvalidUtf8ContentIsKeptWithReplacements) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(
      recorder, {raw_reply("{\"choices\": [{\"message\": {\"content\": \"Answer: B \xFF\xFE caf\xC3\"}}]}")}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const ChatResponse response = ok(harness.run_one(*client, question()));
  EXPECT_EQ(response.text, "Answer: B \xEF\xBF\xBD\xEF\xBF\xBD caf\xEF\xBF\xBD");
  EXPECT_EQ(response.warnings, (std::vector<std::string>{"invalid UTF-8 in the reply replaced by U+FFFD"}));
}

TEST_P(OpenAiClient, NonFiniteLogprobsDropTheLogprobsNotTheReply) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(
      recorder, {raw_reply(R"({"choices": [{"message": {"content": "Answer: C"}, "logprobs": {"content": [
                   {"token": "Answer", "logprob": -0.25}, {"token": ":", "logprob": NaN},
                   {"token": " C", "logprob": -Infinity}]}}], "usage": {"prompt_tokens": 9, "completion_tokens": 3}})")}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  ChatRequest request = question();
  request.sampling.logprobs = true;
  const ChatResponse response = ok(harness.run_one(*client, request));
  EXPECT_EQ(response.text, "Answer: C");
  EXPECT_FALSE(response.logprobs.has_value());
  EXPECT_EQ(response.usage.prompt_tokens, 9);
  EXPECT_FALSE(response.usage.estimated);
  EXPECT_EQ(response.warnings, (std::vector<std::string>{"logprobs dropped: token 1 has no finite logprob (null)"}));
}

// Answers each request with a 200 whose body does not end (chunked, or a Content-Length of
// `declared_bytes`), sent in 64 KiB pieces until the client hangs up; counts what it sent. A
// plain blocking server: FakeOpenAiServer keeps whole replies in memory, this one must not.
class EndlessReplyServer {
 public:
  EndlessReplyServer(bool chunked, std::uint64_t declared_bytes) : chunked_(chunked), declared_bytes_(declared_bytes) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listen_fd_, 8) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::system_error(errno, std::generic_category(), "endless server");
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~EndlessReplyServer() {
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    thread_.join();
    ::close(listen_fd_);
  }
  EndlessReplyServer(const EndlessReplyServer&) = delete;
  EndlessReplyServer& operator=(const EndlessReplyServer&) = delete;

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::uint64_t body_bytes_sent() const { return body_bytes_sent_; }
  int requests() const { return requests_; }

 private:
  void serve() {
    while (!stopping_) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      timeval timeout{0, 200000};  // so a client that stops reading cannot hold the thread
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
      if (read_request(fd)) {
        ++requests_;
        reply(fd);
      }
      ::close(fd);
    }
  }

  // Reads one request's headers and its Content-Length body.
  static bool read_request(int fd) {
    std::string input;
    char buffer[4096];
    std::size_t header_end = std::string::npos;
    std::size_t body_length = 0;
    while (header_end == std::string::npos || input.size() < header_end + 4 + body_length) {
      const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
      if (got <= 0) return false;
      input.append(buffer, static_cast<std::size_t>(got));
      if (header_end == std::string::npos && (header_end = input.find("\r\n\r\n")) != std::string::npos) {
        std::string headers = input.substr(0, header_end);
        std::transform(headers.begin(), headers.end(), headers.begin(), [](unsigned char c) { return std::tolower(c); });
        const std::size_t at = headers.find("content-length:");
        if (at != std::string::npos) body_length = std::stoul(headers.substr(at + 15));
      }
    }
    return true;
  }

  void reply(int fd) {
    std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
    head += chunked_ ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: " + std::to_string(declared_bytes_) + "\r\n\r\n";
    if (!send_all(fd, head)) return;
    const std::string piece(64 * 1024, 'x');
    const std::string chunk = chunked_ ? "10000\r\n" + piece + "\r\n" : piece;
    while (!stopping_ && send_all(fd, chunk)) body_bytes_sent_ += piece.size();
  }

  bool send_all(int fd, std::string_view data) {
    while (!data.empty()) {
      const ssize_t sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) && !stopping_) continue;
      if (sent <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
  }

  bool chunked_;
  std::uint64_t declared_bytes_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> body_bytes_sent_{0};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

TEST_P(OpenAiClient, EndlessReplyStopsAtTheDefaultLimitAndIsNotRetried) {
  constexpr std::uint64_t kMiB = 1 << 20;
  EndlessReplyServer server(/*chunked=*/true, 0);  // 200 MB and more, no length announced
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  EXPECT_EQ(options.max_reply_bytes, 64 * kMiB);
  auto client = harness.client(options);
  const auto started = Clock::now();
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kTooLarge) << error.message;
  EXPECT_EQ(error.message, "reply larger than 67108864 bytes");
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(server.requests(), 1);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(8));
  // It stopped reading at the limit: what the server got out is the limit plus socket buffers.
  EXPECT_GE(server.body_bytes_sent(), 64 * kMiB);
  EXPECT_LT(server.body_bytes_sent(), 96 * kMiB);
}

TEST_P(OpenAiClient, DeclaredLengthOverTheLimitFailsBeforeTheBody) {
  EndlessReplyServer server(/*chunked=*/false, 200'000'000);
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.max_reply_bytes = 1 << 20;
  auto client = harness.client(options);
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kTooLarge) << error.message;
  EXPECT_EQ(error.message, "reply larger than 1048576 bytes");
  EXPECT_EQ(error.attempts, 1);
  EXPECT_LT(server.body_bytes_sent(), 32u << 20);
}

TEST_P(OpenAiClient, ReplyOfExactlyTheLimitIsRead) {
  auto recorder = std::make_shared<Recorder>();
  const FakeResponse reply = ok_reply(answer_spec());
  FakeOpenAiServer server(scripted(recorder, {reply}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.max_reply_bytes = reply.body.size();
  auto client = harness.client(options);
  EXPECT_EQ(ok(harness.run_one(*client, question())).text, "Answer: B");
  options.max_reply_bytes = reply.body.size() - 1;
  auto tight = harness.client(options);
  EXPECT_EQ(failed(harness.run_one(*tight, question())).kind, CallErrorKind::kTooLarge);
}

TEST_P(OpenAiClient, ServerErrorIsRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(500), ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const ChatResponse response = ok(harness.run_one(*client, question()));
  EXPECT_EQ(response.text, "Answer: B");
  EXPECT_EQ(response.attempts, 2);
  EXPECT_EQ(server.requests(), 2u);
}

TEST_P(OpenAiClient, RetryAfterIsHonoured) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(429, 1), ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const ChatResponse response = ok(harness.run_one(*client, question()));
  EXPECT_EQ(response.attempts, 2);
  auto arrivals = recorder->arrivals();
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_GE(arrivals[1] - arrivals[0], std::chrono::milliseconds(950));
}

TEST_P(OpenAiClient, BackOffDoesNotHoldAPermit) {
  // One permit; the first request is told to wait a second. The second request must be
  // served during that wait, not after it.
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(429, 1), ok_reply(answer_spec())}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.max_concurrency = 1;
  auto client = harness.client(options);
  auto results = harness.run(*client, {question("first"), question("second")});
  EXPECT_EQ(ok(results[0]).attempts, 2);
  EXPECT_EQ(ok(results[1]).attempts, 1);
  auto requests = recorder->requests();
  auto arrivals = recorder->arrivals();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_NE(requests[1].body.find("second"), std::string::npos);
  EXPECT_LT(arrivals[1] - arrivals[0], std::chrono::milliseconds(500));
}

TEST_P(OpenAiClient, SlowServerTimesOutAfterRetries) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse slow = ok_reply(answer_spec());
  slow.delay_ms = 2000;
  FakeOpenAiServer server(scripted(recorder, {slow}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.timeout_s = 0.3;
  options.retry.max_retries = 2;
  auto client = harness.client(options);
  const auto started = Clock::now();
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kTimeout) << error.message;
  EXPECT_EQ(error.attempts, 3);
  EXPECT_EQ(recorder->requests().size(), 3u);
  EXPECT_GE(Clock::now() - started, std::chrono::milliseconds(900));
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
}

// A cancel ends every call at once whatever it waits on: a transfer in flight, a back-off
// before a retry, a permit. Nothing is retried after it and no new request is sent.
TEST_P(OpenAiClient, CancelEndsTransfersBackoffsAndPermitWaitsAtOnce) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse slow = ok_reply(answer_spec());
  slow.delay_ms = 60000;
  FakeOpenAiServer server(scripted(recorder, {slow, status_reply(429, 60), slow}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.max_concurrency = 2;
  options.timeout_s = 120.0;
  auto client = harness.client(options);
  std::vector<std::optional<ChatResult>> results(4);
  auto one = [&](std::size_t i) -> Async<void> { results[i] = co_await client->chat(question("q" + std::to_string(i))); };
  auto canceller = [&]() -> Async<void> {
    // Requests 0 and 2 are in flight, 1 backs off for a minute, 3 waits for a permit.
    while (recorder->requests().size() < 3) co_await harness.loop().sleep_for(std::chrono::milliseconds(5));
    co_await harness.loop().sleep_for(std::chrono::milliseconds(50));
    harness.loop().cancel();
  };
  for (std::size_t i = 0; i < results.size(); ++i) harness.loop().spawn(one(i));
  harness.loop().spawn(canceller());
  const auto started = Clock::now();
  harness.loop().run();
  EXPECT_LT(Clock::now() - started, std::chrono::milliseconds(5000));
  EXPECT_EQ(recorder->requests().size(), 3u);
  const std::vector<int> attempts = {1, 2, 1, 1};  // the back-off's retry never started
  for (std::size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].has_value());
    const CallError error = failed(*results[i]);
    EXPECT_EQ(error.kind, CallErrorKind::kCancelled) << i << ": " << error.message;
    EXPECT_EQ(error.message, "the run was stopped");
    EXPECT_EQ(error.attempts, attempts[i]) << i;
  }
}

// A request the transport sent again because the server closed its kept-alive connection
// unanswered reached the server twice: two attempts, though the retry policy was not asked.
TEST_P(OpenAiClient, ARequestResentOnANewConnectionIsASecondAttempt) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse unanswered;
  unanswered.close_unanswered = true;
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec()), unanswered, ok_reply(answer_spec("Answer: C"))}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.retry.max_retries = 0;
  auto client = harness.client(options);
  EXPECT_EQ(ok(harness.run_one(*client, question())).attempts, 1);
  const ChatResponse resent = ok(harness.run_one(*client, question()));
  EXPECT_EQ(resent.text, "Answer: C");
  EXPECT_EQ(resent.attempts, 2);
  const auto requests = recorder->requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].connection, requests[0].connection);
  EXPECT_NE(requests[2].connection, requests[1].connection);
}

TEST_P(OpenAiClient, ResetMidBodyIsRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse reset = ok_reply(answer_spec());
  reset.reset_mid_body = true;
  FakeOpenAiServer server(scripted(recorder, {reset, ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const ChatResponse response = ok(harness.run_one(*client, question()));
  EXPECT_EQ(response.text, "Answer: B");
  EXPECT_EQ(response.attempts, 2);
}

TEST_P(OpenAiClient, PersistentResetIsAConnectionError) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse reset = ok_reply(answer_spec());
  reset.reset_mid_body = true;
  FakeOpenAiServer server(scripted(recorder, {reset}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kConnection) << error.message;
  EXPECT_EQ(error.attempts, 4);
  EXPECT_FALSE(error.message.empty());
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
}

TEST_P(OpenAiClient, RefusedConnectionIsAConnectionError) {
  int port = 0;
  {
    FakeOpenAiServer closed([](const FakeRequest& r) { return answer_reply(r); });
    port = closed.port();
  }
  Harness harness(GetParam());
  EndpointOptions options;
  options.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  options.model = "m";
  options.retry.max_retries = 1;
  options.retry.base_delay_s = 0.01;
  auto client = harness.client(options);
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kConnection) << error.message;
  EXPECT_EQ(error.attempts, 2);
}

TEST_P(OpenAiClient, InvalidJsonAndEmptyChoicesAreBadResponses) {
  for (const FakeResponse& reply : {invalid_json_reply(), empty_choices_reply()}) {
    auto recorder = std::make_shared<Recorder>();
    FakeOpenAiServer server(scripted(recorder, {reply}));
    Harness harness(GetParam());
    EndpointOptions options = options_for(server);
    options.retry.max_retries = 1;
    auto client = harness.client(options);
    const CallError error = failed(harness.run_one(*client, question()));
    EXPECT_EQ(error.kind, CallErrorKind::kBadResponse) << error.message;
    EXPECT_EQ(error.attempts, 2);  // transient: retried
  }
  // A bad reply followed by a good one succeeds.
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {invalid_json_reply(), empty_choices_reply(), ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  EXPECT_EQ(ok(harness.run_one(*client, question())).attempts, 3);
}

TEST_P(OpenAiClient, ClientErrorIsNotRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(400), ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kHttpStatus);
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(error.message, "HTTP 400: fake server: HTTP 400");
  EXPECT_EQ(server.requests(), 1u);
}

TEST_P(OpenAiClient, ExhaustedRetriesReturnTheLastError) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(500), status_reply(502), status_reply(503)}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.retry.max_retries = 2;
  auto client = harness.client(options);
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.http_status, 503);
  EXPECT_EQ(error.attempts, 3);
}

TEST_P(OpenAiClient, ApiKeyIsSentButNeverReported) {
  const std::string key = "sk-parley-test-9f8e7d6c5b4a";
  auto recorder = std::make_shared<Recorder>();
  FakeResponse rejected;
  rejected.status = 401;
  rejected.body = json{{"error", {{"message", "Incorrect API key provided: " + key + "."}}}}.dump();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec()), rejected}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  auto client = harness.client_with_key(options, key);

  ok(harness.run_one(*client, question()));
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.http_status, 401);
  EXPECT_EQ(error.message.find(key), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("Incorrect API key provided"), std::string::npos);
  auto requests = recorder->requests();
  ASSERT_EQ(requests.size(), 2u);
  for (const auto& request : requests) {
    EXPECT_EQ(request.headers.at("authorization"), "Bearer " + key);
    EXPECT_EQ(request.body.find(key), std::string::npos);
  }
}

// Replies `status` with a body that quotes the request's Authorization header, as some
// proxies and debugging servers do.
Handler echoing_authorization(int status, bool json_body) {
  return [status, json_body](const FakeRequest& request) {
    const auto it = request.headers.find("authorization");
    const std::string seen = it == request.headers.end() ? "(none)" : it->second;
    FakeResponse reply;
    reply.status = status;
    reply.body = json_body ? json{{"error", {{"message", "rejected; you sent authorization: " + seen}}}}.dump()
                           : "<html>rejected; you sent authorization: " + seen + "</html>";
    return reply;
  };
}

TEST_P(OpenAiClient, UrlCredentialsEchoedInAnErrorBodyAreRedacted) {
  // alice:hunter2 goes out as Basic YWxpY2U6aHVudGVyMg== (curl's doing, without api_key_env).
  for (const int status : {400, 500}) {
    for (const bool json_body : {true, false}) {
      FakeOpenAiServer server(echoing_authorization(status, json_body));
      Harness harness(GetParam());
      EndpointOptions options = options_for(server);
      options.base_url.insert(std::string("http://").size(), "alice:hunter2@");
      options.retry.max_retries = 0;
      auto client = harness.client(options);
      const CallError error = failed(harness.run_one(*client, question()));
      EXPECT_EQ(error.http_status, status);
      EXPECT_EQ(error.message.find("hunter2"), std::string::npos) << error.message;
      EXPECT_EQ(error.message.find("YWxpY2U6aHVudGVyMg"), std::string::npos) << error.message;
      EXPECT_NE(error.message.find("you sent authorization: Basic [redacted]"), std::string::npos) << error.message;
    }
  }
}

TEST_P(OpenAiClient, ApiKeyEchoedInAnErrorBodyIsRedacted) {
  const std::string key = "sk-parley-echo-5e6f7a8b9c0d1e2f";
  FakeOpenAiServer server(echoing_authorization(500, true));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.retry.max_retries = 0;
  auto client = harness.client_with_key(options, key);
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.message, "HTTP 500: rejected; you sent authorization: Bearer [redacted]");
}

// JSON may spell a secret with \u escapes (Go's encoder writes '&' as \u0026): the decoded
// error text is redacted too.
TEST_P(OpenAiClient, SecretsSpelledWithJsonEscapesAreRedacted) {
  const std::string key = "sk-TOPSECRETKEY123";
  FakeOpenAiServer server([](const FakeRequest&) {
    FakeResponse reply;
    reply.status = 400;
    reply.body = R"({"error":{"message":"key=sk-TOPSECRET\u004bEY123 b64=YWxpY2U6aHVudGVyMg\u003d\u003d pw=hunte\u00722"}})";
    return reply;
  });
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.base_url.insert(std::string("http://").size(), "alice:hunter2@");
  options.retry.max_retries = 0;
  auto client = harness.client_with_key(options, key);
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.message.find("TOPSECRETKEY"), std::string::npos) << error.message;
  EXPECT_EQ(error.message.find("YWxpY2U6aHVudGVyMg"), std::string::npos) << error.message;
  EXPECT_EQ(error.message.find("hunter2"), std::string::npos) << error.message;
  EXPECT_EQ(error.message, "HTTP 400: key=[redacted] b64=[redacted] pw=[redacted]") << error.message;
}

TEST_P(OpenAiClient, ApiKeyInAnUnreadableReplyIsRedactedBeforeItIsCut) {
  // The reason quotes the first 80 bytes of the body, which end inside the key: redacting the
  // quote alone would leave the key's first 14 characters in it.
  const std::string key = "sk-parley-cut-0123456789abcdef";
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {raw_reply(std::string(66, 'x') + " " + key + " not JSON")}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.retry.max_retries = 0;
  auto client = harness.client_with_key(options, key);
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kBadResponse);
  EXPECT_EQ(error.message.find(key.substr(0, 8)), std::string::npos) << error.message;
  EXPECT_EQ(error.message, "invalid JSON in response: " + std::string(66, 'x') + " [redacted] no...");
}

TEST_P(OpenAiClient, KeyWithALineBreakIsRefused) {
  ::setenv("PARLEY_OPENAI_CRLF_TEST_KEY", "sk-abc\r\nX-Injected: yes", 1);
  FakeOpenAiServer server([](const FakeRequest& r) { return answer_reply(r); });
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.api_key_env = "PARLEY_OPENAI_CRLF_TEST_KEY";
  try {
    harness.client(options);
    ADD_FAILURE() << "a key with CR/LF was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "the API key in PARLEY_OPENAI_CRLF_TEST_KEY holds a control character");
  }
  ::unsetenv("PARLEY_OPENAI_CRLF_TEST_KEY");
  EXPECT_EQ(server.requests(), 0u);
}

TEST_P(OpenAiClient, UnsetKeyVariableSendsNoAuthorization) {
  ::unsetenv("PARLEY_OPENAI_CLIENT_TEST_UNSET");
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec())}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.api_key_env = "PARLEY_OPENAI_CLIENT_TEST_UNSET";
  auto client = harness.client(options);
  ok(harness.run_one(*client, question()));
  EXPECT_EQ(recorder->requests().at(0).headers.count("authorization"), 0u);
}

TEST_P(OpenAiClient, PerEndpointConcurrencyLimit) {
  FaultPlan plan;
  plan.base_delay_ms = 50;
  FakeOpenAiServer server(faulty_handler(plan));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.max_concurrency = 8;
  auto client = harness.client(options);
  std::vector<ChatRequest> requests;
  for (int i = 0; i < 100; ++i) requests.push_back(question("question " + std::to_string(i)));
  auto results = harness.run(*client, requests);
  for (const auto& result : results) EXPECT_EQ(ok(result).attempts, 1);
  EXPECT_EQ(server.requests(), 100u);
  EXPECT_LE(server.peak_pending(), 8u);
  EXPECT_GE(server.peak_pending(), 2u);  // concurrency was used at all
}

TEST_P(OpenAiClient, APooledHandleCarriesOnlyItsOwnRequest) {
  // One transport, requests one after another, so each reuses the same pooled curl handle: the
  // URL's credentials, the API key, the path and the reply limit of one request must not
  // reach the next.
  auto recorder = std::make_shared<Recorder>();
  FakeResponse embedding;
  embedding.body = json{{"data", {{{"index", 0}, {"embedding", {1.0}}}}}}.dump();
  FakeOpenAiServer server([recorder, embedding](const FakeRequest& request) {
    recorder->add(request);
    return request.path == "/v1/embeddings" ? embedding : ok_reply(answer_spec());
  });
  Harness harness(GetParam());
  EndpointOptions plain_options = options_for(server);
  plain_options.retry.max_retries = 0;
  EndpointOptions with_credentials = plain_options;
  with_credentials.base_url.insert(std::string("http://").size(), "alice:hunter2@");
  with_credentials.max_reply_bytes = 10;
  auto plain = harness.client(plain_options);
  auto credentials = harness.client(with_credentials);
  auto keyed = harness.client_with_key(plain_options, "sk-pooled-key");

  EXPECT_EQ(failed(harness.run_one(*credentials, question())).kind, CallErrorKind::kTooLarge);
  EXPECT_EQ(ok(harness.run_one(*plain, question())).text, "Answer: B");
  EXPECT_EQ(ok(harness.run_one(*keyed, question())).text, "Answer: B");
  EXPECT_EQ(ok(harness.embed_one(*plain, EmbeddingRequest{"fake-embedder", {"one"}})).vectors.size(), 1u);
  EXPECT_EQ(ok(harness.run_one(*plain, question())).text, "Answer: B");

  const auto requests = recorder->requests();
  ASSERT_EQ(requests.size(), 5u);
  const auto authorization = [](const FakeRequest& request) {
    const auto it = request.headers.find("authorization");
    return it == request.headers.end() ? std::string("(none)") : it->second;
  };
  EXPECT_EQ(authorization(requests[0]), "Basic YWxpY2U6aHVudGVyMg==");  // alice:hunter2
  EXPECT_EQ(authorization(requests[1]), "(none)");
  EXPECT_EQ(authorization(requests[2]), "Bearer sk-pooled-key");
  EXPECT_EQ(authorization(requests[3]), "(none)");
  EXPECT_EQ(authorization(requests[4]), "(none)");
  EXPECT_EQ(requests[3].path, "/v1/embeddings");
  EXPECT_EQ(requests[4].path, "/v1/chat/completions");
  for (const auto& request : requests) EXPECT_EQ(request.headers.at("content-type"), "application/json");
}

TEST_P(OpenAiClient, SequentialRequestsReuseTheConnection) {
  FakeOpenAiServer server([](const FakeRequest& r) { return answer_reply(r); });
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  for (int i = 0; i < 200; ++i) ok(harness.run_one(*client, question("q" + std::to_string(i))));
  EXPECT_EQ(server.requests(), 200u);
  EXPECT_LE(server.connections_accepted(), 3u);
}

TEST_P(OpenAiClient, ThousandsInFlightFromOneThread) {
  constexpr int kRequests = 1200;
  FaultPlan plan;
  plan.base_delay_ms = 500;
  FakeOpenAiServer server(faulty_handler(plan));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.max_concurrency = 2000;
  options.timeout_s = 30.0;
  options.connect_timeout_s = 10.0;
  auto client = harness.client(options);
  std::vector<ChatRequest> requests;
  for (int i = 0; i < kRequests; ++i) requests.push_back(question("question " + std::to_string(i)));
  auto results = harness.run(*client, requests);
  int succeeded = 0;
  for (const auto& result : results) succeeded += std::holds_alternative<ChatResponse>(result) ? 1 : 0;
  EXPECT_EQ(succeeded, kRequests);
  // All of them were pending at the server at once: they were in flight together (no timing
  // assertion, which a loaded machine would break).
  EXPECT_GE(server.peak_pending(), static_cast<std::uint64_t>(kRequests));
}

TEST_P(OpenAiClient, EmbedSendsTheRequestAndParsesTheReply) {
  const std::string key = "sk-parley-embed-test-1a2b3c";
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {embedding_reply({{0.25, -0.5, 1.0}, {3.0, 0.0, -0.125}}, 11)}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.base_url += "//";  // trailing slashes are trimmed as for chat
  auto client = harness.client_with_key(options, key);

  EmbeddingRequest request = texts_to_embed();
  const EmbeddingResponse response = ok(harness.embed_one(*client, request));
  EXPECT_EQ(response.vectors, (std::vector<std::vector<double>>{{0.25, -0.5, 1.0}, {3.0, 0.0, -0.125}}));
  EXPECT_EQ(response.usage.prompt_tokens, 11);
  EXPECT_EQ(response.usage.completion_tokens, 0);
  EXPECT_FALSE(response.usage.estimated);
  EXPECT_EQ(response.attempts, 1);
  EXPECT_GT(response.latency_ms, 0.0);

  request.model.clear();  // the endpoint's model then
  ok(harness.embed_one(*client, request));

  auto requests = recorder->requests();
  ASSERT_EQ(requests.size(), 2u);
  for (const auto& seen : requests) {
    EXPECT_EQ(seen.method, "POST");
    EXPECT_EQ(seen.path, "/v1/embeddings");
    EXPECT_EQ(seen.headers.at("content-type"), "application/json");
    EXPECT_EQ(seen.headers.at("authorization"), "Bearer " + key);
  }
  json first = json::parse(requests[0].body);
  EXPECT_EQ(first, (json{{"model", "fake-embedder"},
                         {"input", {"Answer: B because 2+2=4", "Answer: C"}},
                         {"encoding_format", "float"}}));
  EXPECT_EQ(json::parse(requests[1].body)["model"], "fake-model");
}

TEST_P(OpenAiClient, EmbedServerErrorIsRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(500), embedding_reply({{1.0}, {2.0}})}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const EmbeddingResponse response = ok(harness.embed_one(*client, texts_to_embed()));
  EXPECT_EQ(response.vectors, (std::vector<std::vector<double>>{{1.0}, {2.0}}));
  EXPECT_EQ(response.attempts, 2);
  EXPECT_TRUE(response.usage.estimated);  // ceil(23 / 4) + ceil(9 / 4)
  EXPECT_EQ(response.usage.prompt_tokens, 9);
  auto requests = recorder->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].path, "/v1/embeddings");
  EXPECT_EQ(requests[1].body, requests[0].body);
}

TEST_P(OpenAiClient, EmbedClientErrorIsNotRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(400), embedding_reply({{1.0}, {2.0}})}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const CallError error = failed(harness.embed_one(*client, texts_to_embed()));
  EXPECT_EQ(error.kind, CallErrorKind::kHttpStatus);
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(error.message, "HTTP 400: fake server: HTTP 400");
  EXPECT_EQ(server.requests(), 1u);
}

TEST_P(OpenAiClient, EmbedReplyOfTheWrongShapeIsABadResponse) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {embedding_reply({{1.0}})}));  // one vector for two inputs
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.retry.max_retries = 1;
  auto client = harness.client(options);
  const CallError error = failed(harness.embed_one(*client, texts_to_embed()));
  EXPECT_EQ(error.kind, CallErrorKind::kBadResponse);
  EXPECT_EQ(error.message, "response has 1 embeddings for 2 inputs");
  EXPECT_EQ(error.attempts, 2);  // transient, as for chat
}

}  // namespace
}  // namespace parley
