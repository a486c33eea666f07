// OpenAI client + curl transport against FakeOpenAiServer on loopback.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "parley/llm_client.h"
#include "support/fake_openai_server.h"

namespace parley {
namespace {

using namespace parley::testing;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Requests the handler saw, recorded from the server thread.
class Recorder {
 public:
  void add(const FakeRequest& request) {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    arrivals_.push_back(Clock::now());
  }
  std::vector<FakeRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::vector<Clock::time_point> arrivals() const {
    std::lock_guard lock(mutex_);
    return arrivals_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<FakeRequest> requests_;
  std::vector<Clock::time_point> arrivals_;
};

// Replies by arrival order: replies[i] for request i, the last one for all later requests.
Handler scripted(std::shared_ptr<Recorder> recorder, std::vector<FakeResponse> replies) {
  return [recorder, replies](const FakeRequest& request) {
    recorder->add(request);
    return replies[std::min<std::size_t>(request.index, replies.size() - 1)];
  };
}

CompletionSpec answer_spec(std::string content = "Answer: B") {
  CompletionSpec spec;
  spec.content = std::move(content);
  return spec;
}

EndpointOptions options_for(const FakeOpenAiServer& server) {
  EndpointOptions options;
  options.base_url = server.base_url();
  options.model = "fake-model";
  options.max_concurrency = 8;
  options.timeout_s = 10.0;
  options.connect_timeout_s = 5.0;
  options.retry.max_retries = 3;
  options.retry.base_delay_s = 0.01;  // keeps the suite fast
  options.retry.max_delay_s = 1.0;
  return options;
}

ChatRequest question(const std::string& text = "What is 2+2?") {
  ChatRequest request;
  request.model = "fake-model";
  request.messages = {{"system", "Answer briefly."}, {"user", text}};
  request.sampling.temperature = 0.2;
  request.sampling.max_tokens = 64;
  return request;
}

// One event loop with the curl transport as its I/O driver.
class Harness {
 public:
  Harness() : transport_(make_curl_transport(loop_)) { loop_.set_io(transport_.get()); }
  ~Harness() { loop_.set_io(nullptr); }
  EventLoop& loop() { return loop_; }

  std::unique_ptr<LlmClient> client(EndpointOptions options) {
    return make_openai_client(loop_, *transport_, std::move(options));
  }

  std::vector<ChatResult> run(LlmClient& client, const std::vector<ChatRequest>& requests) {
    std::vector<std::optional<ChatResult>> results(requests.size());
    auto one = [&](std::size_t i) -> Async<void> { results[i] = co_await client.chat(requests[i]); };
    for (std::size_t i = 0; i < requests.size(); ++i) loop_.spawn(one(i));
    loop_.run();
    std::vector<ChatResult> out;
    for (auto& result : results) out.push_back(std::move(*result));
    EXPECT_EQ(transport_->in_flight(), 0u);
    return out;
  }
  ChatResult run_one(LlmClient& client, const ChatRequest& request) { return run(client, {request})[0]; }

  EmbeddingResult embed_one(LlmClient& client, const EmbeddingRequest& request) {
    std::optional<EmbeddingResult> result;
    auto one = [&]() -> Async<void> { result = co_await client.embed(request); };
    loop_.spawn(one());
    loop_.run();
    EXPECT_EQ(transport_->in_flight(), 0u);
    return std::move(*result);
  }

 private:
  EventLoop loop_;
  std::unique_ptr<HttpTransport> transport_;
};

// By value: callers pass temporaries.
ChatResponse ok(const ChatResult& result) {
  if (const auto* error = std::get_if<CallError>(&result)) {
    ADD_FAILURE() << call_error_kind_name(error->kind) << ": " << error->message;
    return {};
  }
  return std::get<ChatResponse>(result);
}

CallError failed(const ChatResult& result) {
  if (!std::holds_alternative<CallError>(result)) {
    ADD_FAILURE() << "expected a CallError, got: " << std::get<ChatResponse>(result).text;
    return {};
  }
  return std::get<CallError>(result);
}

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

TEST(OpenAiClient, SendsTheRequestAndParsesTheReply) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec())}));
  Harness harness;
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
  json body = json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "fake-model");
  EXPECT_EQ(body["messages"], (json{{{"role", "system"}, {"content", "Answer briefly."}},
                                    {{"role", "user"}, {"content", "What is 2+2?"}}}));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["seed"], 7);
  EXPECT_FALSE(body.contains("logprobs"));
}

TEST(OpenAiClient, MissingUsageIsEstimated) {
  auto recorder = std::make_shared<Recorder>();
  CompletionSpec spec = answer_spec("hello");
  spec.include_usage = false;
  FakeOpenAiServer server(scripted(recorder, {ok_reply(spec)}));
  Harness harness;
  auto client = harness.client(options_for(server));
  ChatRequest request = question();
  const ChatResponse response = ok(harness.run_one(*client, request));
  EXPECT_TRUE(response.usage.estimated);
  EXPECT_EQ(response.usage.prompt_tokens, estimate_prompt_tokens(request.messages));
  EXPECT_EQ(response.usage.completion_tokens, 2);  // ceil(5 / 4)
}

TEST(OpenAiClient, CachedTokensReasoningAndLogprobs) {
  auto recorder = std::make_shared<Recorder>();
  CompletionSpec spec = answer_spec("Answer: C");
  spec.reasoning_content = "First, consider C.";
  spec.cached_tokens = 8;
  spec.token_logprobs = {-0.1, -0.5, -2.0};
  FakeOpenAiServer server(scripted(recorder, {ok_reply(spec)}));
  Harness harness;
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

TEST(OpenAiClient, ServerErrorIsRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(500), ok_reply(answer_spec())}));
  Harness harness;
  auto client = harness.client(options_for(server));
  const ChatResponse response = ok(harness.run_one(*client, question()));
  EXPECT_EQ(response.text, "Answer: B");
  EXPECT_EQ(response.attempts, 2);
  EXPECT_EQ(server.requests(), 2u);
}

TEST(OpenAiClient, RetryAfterIsHonoured) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(429, 1), ok_reply(answer_spec())}));
  Harness harness;
  auto client = harness.client(options_for(server));
  const ChatResponse response = ok(harness.run_one(*client, question()));
  EXPECT_EQ(response.attempts, 2);
  auto arrivals = recorder->arrivals();
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_GE(arrivals[1] - arrivals[0], std::chrono::milliseconds(950));
}

TEST(OpenAiClient, BackOffDoesNotHoldAPermit) {
  // One permit; the first request is told to wait a second. The second request must be
  // served during that wait, not after it.
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(429, 1), ok_reply(answer_spec())}));
  Harness harness;
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

TEST(OpenAiClient, SlowServerTimesOutAfterRetries) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse slow = ok_reply(answer_spec());
  slow.delay_ms = 2000;
  FakeOpenAiServer server(scripted(recorder, {slow}));
  Harness harness;
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
TEST(OpenAiClient, CancelEndsTransfersBackoffsAndPermitWaitsAtOnce) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse slow = ok_reply(answer_spec());
  slow.delay_ms = 60000;
  FakeOpenAiServer server(scripted(recorder, {slow, status_reply(429, 60), slow}));
  Harness harness;
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

TEST(OpenAiClient, ResetMidBodyIsRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse reset = ok_reply(answer_spec());
  reset.reset_mid_body = true;
  FakeOpenAiServer server(scripted(recorder, {reset, ok_reply(answer_spec())}));
  Harness harness;
  auto client = harness.client(options_for(server));
  const ChatResponse response = ok(harness.run_one(*client, question()));
  EXPECT_EQ(response.text, "Answer: B");
  EXPECT_EQ(response.attempts, 2);
}

TEST(OpenAiClient, PersistentResetIsAConnectionError) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse reset = ok_reply(answer_spec());
  reset.reset_mid_body = true;
  FakeOpenAiServer server(scripted(recorder, {reset}));
  Harness harness;
  auto client = harness.client(options_for(server));
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kConnection) << error.message;
  EXPECT_EQ(error.attempts, 4);
  EXPECT_FALSE(error.message.empty());
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
}

TEST(OpenAiClient, RefusedConnectionIsAConnectionError) {
  int port = 0;
  {
    FakeOpenAiServer closed([](const FakeRequest& r) { return answer_reply(r); });
    port = closed.port();
  }
  Harness harness;
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

TEST(OpenAiClient, InvalidJsonAndEmptyChoicesAreBadResponses) {
  for (const FakeResponse& reply : {invalid_json_reply(), empty_choices_reply()}) {
    auto recorder = std::make_shared<Recorder>();
    FakeOpenAiServer server(scripted(recorder, {reply}));
    Harness harness;
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
  Harness harness;
  auto client = harness.client(options_for(server));
  EXPECT_EQ(ok(harness.run_one(*client, question())).attempts, 3);
}

TEST(OpenAiClient, ClientErrorIsNotRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(400), ok_reply(answer_spec())}));
  Harness harness;
  auto client = harness.client(options_for(server));
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.kind, CallErrorKind::kHttpStatus);
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(error.message, "HTTP 400: fake server: HTTP 400");
  EXPECT_EQ(server.requests(), 1u);
}

TEST(OpenAiClient, ExhaustedRetriesReturnTheLastError) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(500), status_reply(502), status_reply(503)}));
  Harness harness;
  EndpointOptions options = options_for(server);
  options.retry.max_retries = 2;
  auto client = harness.client(options);
  const CallError error = failed(harness.run_one(*client, question()));
  EXPECT_EQ(error.http_status, 503);
  EXPECT_EQ(error.attempts, 3);
}

TEST(OpenAiClient, ApiKeyIsSentButNeverReported) {
  const std::string key = "sk-parley-test-9f8e7d6c5b4a";
  ::setenv("PARLEY_OPENAI_CLIENT_TEST_KEY", key.c_str(), 1);
  auto recorder = std::make_shared<Recorder>();
  FakeResponse rejected;
  rejected.status = 401;
  rejected.body = json{{"error", {{"message", "Incorrect API key provided: " + key + "."}}}}.dump();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec()), rejected}));
  Harness harness;
  EndpointOptions options = options_for(server);
  options.api_key_env = "PARLEY_OPENAI_CLIENT_TEST_KEY";
  auto client = harness.client(options);
  ::unsetenv("PARLEY_OPENAI_CLIENT_TEST_KEY");  // read once, at construction

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

TEST(OpenAiClient, UnsetKeyVariableSendsNoAuthorization) {
  ::unsetenv("PARLEY_OPENAI_CLIENT_TEST_UNSET");
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec())}));
  Harness harness;
  EndpointOptions options = options_for(server);
  options.api_key_env = "PARLEY_OPENAI_CLIENT_TEST_UNSET";
  auto client = harness.client(options);
  ok(harness.run_one(*client, question()));
  EXPECT_EQ(recorder->requests().at(0).headers.count("authorization"), 0u);
}

TEST(OpenAiClient, PerEndpointConcurrencyLimit) {
  FaultPlan plan;
  plan.base_delay_ms = 50;
  FakeOpenAiServer server(faulty_handler(plan));
  Harness harness;
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

TEST(OpenAiClient, SequentialRequestsReuseTheConnection) {
  FakeOpenAiServer server([](const FakeRequest& r) { return answer_reply(r); });
  Harness harness;
  auto client = harness.client(options_for(server));
  for (int i = 0; i < 200; ++i) ok(harness.run_one(*client, question("q" + std::to_string(i))));
  EXPECT_EQ(server.requests(), 200u);
  EXPECT_LE(server.connections_accepted(), 3u);
}

TEST(OpenAiClient, ThousandsInFlightFromOneThread) {
  constexpr int kRequests = 1200;
  FaultPlan plan;
  plan.base_delay_ms = 500;
  FakeOpenAiServer server(faulty_handler(plan));
  Harness harness;
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

TEST(OpenAiClient, EmbedSendsTheRequestAndParsesTheReply) {
  const std::string key = "sk-parley-embed-test-1a2b3c";
  ::setenv("PARLEY_OPENAI_EMBED_TEST_KEY", key.c_str(), 1);
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {embedding_reply({{0.25, -0.5, 1.0}, {3.0, 0.0, -0.125}}, 11)}));
  Harness harness;
  EndpointOptions options = options_for(server);
  options.base_url += "//";  // trailing slashes are trimmed as for chat
  options.api_key_env = "PARLEY_OPENAI_EMBED_TEST_KEY";
  auto client = harness.client(options);
  ::unsetenv("PARLEY_OPENAI_EMBED_TEST_KEY");

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

TEST(OpenAiClient, EmbedServerErrorIsRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(500), embedding_reply({{1.0}, {2.0}})}));
  Harness harness;
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

TEST(OpenAiClient, EmbedClientErrorIsNotRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(400), embedding_reply({{1.0}, {2.0}})}));
  Harness harness;
  auto client = harness.client(options_for(server));
  const CallError error = failed(harness.embed_one(*client, texts_to_embed()));
  EXPECT_EQ(error.kind, CallErrorKind::kHttpStatus);
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(error.message, "HTTP 400: fake server: HTTP 400");
  EXPECT_EQ(server.requests(), 1u);
}

TEST(OpenAiClient, EmbedReplyOfTheWrongShapeIsABadResponse) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {embedding_reply({{1.0}})}));  // one vector for two inputs
  Harness harness;
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
