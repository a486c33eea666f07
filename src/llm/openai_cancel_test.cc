// The OpenAI client's calls stopped by their request's CancelSignal, against FakeOpenAiServer on
// loopback, on both transports: a transfer in flight (the server sees its connection close and
// nothing is retried), a back-off, a wait for the endpoint's permit (the call leaves the queue,
// the permits stay right), chat_n and embeddings, and a signal fired before the call.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "llm/openai_client_test_support.h"
#include "parley/llm_client.h"
#include "support/fake_openai_server.h"

namespace parley {
namespace {

using namespace parley::openai_test;
using namespace std::chrono_literals;

class OpenAiClientCancel : public ::testing::TestWithParam<TransportKind> {};
INSTANTIATE_TEST_SUITE_P(BothTransports, OpenAiClientCancel,
                         ::testing::Values(TransportKind::kCurl, TransportKind::kRouted), transport_name);

// Whether the server saw `count` requests abandoned (their connection closed unanswered) within
// two seconds.
bool abandoned_within(const FakeOpenAiServer& server, std::uint64_t count) {
  for (auto waited = 0ms; waited < 2000ms; waited += 5ms) {
    if (server.requests_abandoned() >= count) return true;
    std::this_thread::sleep_for(5ms);
  }
  return server.requests_abandoned() >= count;
}

// Sleeps on the loop until the server has received `count` requests.
Async<void> until_received(EventLoop& loop, const Recorder& recorder, std::size_t count) {
  while (recorder.requests().size() < count) co_await loop.sleep_for(5ms);
}

TEST_P(OpenAiClientCancel, ASignalEndsTheCallTheServerSeesItGoAndNothingIsRetried) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse slow = ok_reply(answer_spec());
  slow.delay_ms = 60000;
  FakeOpenAiServer server(scripted(recorder, {slow}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.timeout_s = 120.0;
  auto client = harness.client(options);
  CancelSignal signal;
  ChatRequest request = question();
  request.cancel = &signal;
  std::optional<ChatResult> result;
  auto call = [&]() -> Async<void> { result = co_await client->chat(request); };
  auto canceller = [&]() -> Async<void> {
    co_await until_received(harness.loop(), *recorder, 1);
    signal.fire("client went away");
  };
  harness.loop().spawn(call());
  harness.loop().spawn(canceller());
  const auto started = Clock::now();
  harness.loop().run();
  EXPECT_LT(Clock::now() - started, 5000ms);
  ASSERT_TRUE(result.has_value());
  const CallError error = failed(*result);
  EXPECT_EQ(error.kind, CallErrorKind::kCancelled);
  EXPECT_EQ(error.message, "client went away");
  EXPECT_EQ(error.attempts, 1);
  EXPECT_TRUE(abandoned_within(server, 1)) << "the server never saw the call's connection close";
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(recorder->requests().size(), 1u);  // no retry
  EXPECT_EQ(signal.subscribers(), 0u);
}

// A 429 asking for 30 s: the back-off is cut short by the signal, and no retry follows.
TEST_P(OpenAiClientCancel, ASignalCutsABackOffShort) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {status_reply(429, 30), ok_reply(answer_spec())}));
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.retry.max_delay_s = 30.0;  // Retry-After is honoured up to 10 × this
  auto client = harness.client(options);
  CancelSignal signal;
  ChatRequest request = question();
  request.cancel = &signal;
  std::optional<ChatResult> result;
  auto call = [&]() -> Async<void> { result = co_await client->chat(request); };
  auto canceller = [&]() -> Async<void> {
    co_await until_received(harness.loop(), *recorder, 1);
    co_await harness.loop().sleep_for(200ms);  // backing off by now
    signal.fire("deadline passed");
  };
  harness.loop().spawn(call());
  harness.loop().spawn(canceller());
  const auto started = Clock::now();
  harness.loop().run();
  EXPECT_LT(Clock::now() - started, 3000ms);
  ASSERT_TRUE(result.has_value());
  const CallError error = failed(*result);
  EXPECT_EQ(error.kind, CallErrorKind::kCancelled);
  EXPECT_EQ(error.message, "deadline passed");
  EXPECT_EQ(error.attempts, 1);
  EXPECT_EQ(recorder->requests().size(), 1u);
}

// With one permit: A holds it, B (with a signal) and C wait. B's signal takes it out of the queue
// at once, long before A's reply; C gets the permit when A is done, not before (B neither kept a
// permit nor made one), and later calls still go one at a time.
TEST_P(OpenAiClientCancel, ACallWaitingForAPermitLeavesTheQueueAndThePermitsStayRight) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server([recorder](const FakeRequest& request) {
    recorder->add(request);
    FakeResponse response = ok_reply(answer_spec("Answer: " + std::to_string(request.index)));
    response.delay_ms = 300;
    return response;
  });
  Harness harness(GetParam());
  EndpointOptions options = options_for(server);
  options.max_concurrency = 1;
  auto client = harness.client(options);
  CancelSignal b_gone;
  ChatRequest b_request = question("b");
  b_request.cancel = &b_gone;
  std::vector<std::optional<ChatResult>> results(3);
  std::vector<Clock::time_point> done(3);
  auto one = [&](std::size_t i, ChatRequest request) -> Async<void> {
    results[i] = co_await client->chat(std::move(request));
    done[i] = Clock::now();
  };
  auto canceller = [&]() -> Async<void> {
    co_await until_received(harness.loop(), *recorder, 1);
    b_gone.fire();
  };
  ChatRequest a_request = question("a");
  ChatRequest c_request = question("c");
  harness.loop().spawn(one(0, a_request));
  harness.loop().spawn(one(1, b_request));
  harness.loop().spawn(one(2, c_request));
  harness.loop().spawn(canceller());
  harness.loop().run();
  const CallError error = failed(*results[1]);
  EXPECT_EQ(error.kind, CallErrorKind::kCancelled);
  EXPECT_EQ(error.attempts, 0);  // nothing was sent for it
  EXPECT_LT(done[1], done[0]);   // it did not wait for A's permit
  EXPECT_EQ(ok(*results[0]).text, "Answer: 0");
  EXPECT_EQ(ok(*results[2]).text, "Answer: 1");
  std::vector<Clock::time_point> arrivals = recorder->arrivals();
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_GE(arrivals[1] - arrivals[0], 250ms);  // C after A's reply: one permit, not two

  // The permit count is still one: two more calls go one after the other.
  const std::vector<ChatResult> later = harness.run(*client, {question("d"), question("e")});
  for (const ChatResult& result : later) ok(result);
  arrivals = recorder->arrivals();
  ASSERT_EQ(arrivals.size(), 4u);
  EXPECT_GE(arrivals[3] - arrivals[2], 250ms);
}

TEST_P(OpenAiClientCancel, AnAlreadyFiredSignalSendsNothing) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  CancelSignal fired;
  fired.fire("gone before it began");
  ChatRequest request = question();
  request.cancel = &fired;
  const CallError chat_error = failed(harness.run_one(*client, request));
  EXPECT_EQ(chat_error.kind, CallErrorKind::kCancelled);
  EXPECT_EQ(chat_error.message, "gone before it began");
  EXPECT_EQ(chat_error.attempts, 0);
  request.sampling.logprobs = true;  // the logprobs probe is not begun either
  EXPECT_EQ(failed(harness.run_one(*client, request)).attempts, 0);
  EmbeddingRequest embedding{"embedder", {"text"}, {}, &fired};
  const EmbeddingResult embedded = harness.embed_one(*client, embedding);
  ASSERT_TRUE(std::holds_alternative<CallError>(embedded));
  EXPECT_EQ(std::get<CallError>(embedded).kind, CallErrorKind::kCancelled);
  std::vector<ChatResult> samples;
  auto batch = [&]() -> Async<void> { samples = co_await client->chat_n(request, 3); };
  harness.loop().spawn(batch());
  harness.loop().run();
  ASSERT_EQ(samples.size(), 3u);
  for (const ChatResult& sample : samples) EXPECT_EQ(failed(sample).kind, CallErrorKind::kCancelled);
  EXPECT_EQ(recorder->requests().size(), 0u);
  EXPECT_EQ(server.connections_accepted(), 0u);
}

// chat_n's one request with "n" carries the request's signal; a probe the signal ended is no
// answer about "n", so the next chat_n asks with "n" again.
TEST_P(OpenAiClientCancel, ChatNStopsOnItsSignalAndACancelledProbeIsNoAnswer) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server([recorder](const FakeRequest& request) {
    recorder->add(request);
    FakeResponse response = answer_reply(request);
    if (request.index == 0) response.delay_ms = 60000;
    return response;
  });
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  CancelSignal signal;
  ChatRequest request = question();
  request.cancel = &signal;
  std::vector<ChatResult> samples;
  auto batch = [&]() -> Async<void> { samples = co_await client->chat_n(request, 3); };
  auto canceller = [&]() -> Async<void> {
    co_await until_received(harness.loop(), *recorder, 1);
    signal.fire();
  };
  harness.loop().spawn(batch());
  harness.loop().spawn(canceller());
  harness.loop().run();
  ASSERT_EQ(samples.size(), 3u);
  for (const ChatResult& sample : samples) EXPECT_EQ(failed(sample).kind, CallErrorKind::kCancelled);
  EXPECT_TRUE(abandoned_within(server, 1));

  std::vector<ChatResult> again;
  auto next = [&]() -> Async<void> { again = co_await client->chat_n(question(), 3); };
  harness.loop().spawn(next());
  harness.loop().run();
  ASSERT_EQ(again.size(), 3u);
  for (const ChatResult& sample : again) ok(sample);
  const std::vector<FakeRequest> seen = recorder->requests();
  ASSERT_EQ(seen.size(), 2u);
  for (const FakeRequest& r : seen) EXPECT_EQ(nlohmann::json::parse(r.body).value("n", 1), 3);
}

// A chat_n waiting for the endpoint's "n" probe leaves when its signal fires, long before the
// probe's answer, having sent nothing.
TEST_P(OpenAiClientCancel, AChatNWaitingForTheProbeLeavesOnItsSignal) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server([recorder](const FakeRequest& request) {
    recorder->add(request);
    FakeResponse response = answer_reply(request);
    response.delay_ms = 1000;
    return response;
  });
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  CancelSignal signal;
  ChatRequest waiter = question("waiter");
  waiter.cancel = &signal;
  const ChatRequest probing = question("probe");
  std::vector<ChatResult> probe_samples, waiter_samples;
  std::optional<Clock::time_point> waiter_done;
  auto probe = [&]() -> Async<void> { probe_samples = co_await client->chat_n(probing, 2); };
  auto waiting = [&]() -> Async<void> {
    waiter_samples = co_await client->chat_n(waiter, 2);
    waiter_done = Clock::now();
  };
  auto canceller = [&]() -> Async<void> {
    co_await until_received(harness.loop(), *recorder, 1);
    signal.fire();
  };
  const auto started = Clock::now();
  harness.loop().spawn(probe());
  harness.loop().spawn(waiting());
  harness.loop().spawn(canceller());
  harness.loop().run();
  ASSERT_EQ(waiter_samples.size(), 2u);
  for (const ChatResult& sample : waiter_samples) {
    EXPECT_EQ(failed(sample).kind, CallErrorKind::kCancelled);
    EXPECT_EQ(failed(sample).attempts, 0);
  }
  ASSERT_TRUE(waiter_done.has_value());
  EXPECT_LT(*waiter_done - started, 800ms);
  ASSERT_EQ(probe_samples.size(), 2u);
  for (const ChatResult& sample : probe_samples) ok(sample);
  EXPECT_EQ(recorder->requests().size(), 1u);
}

TEST_P(OpenAiClientCancel, AnEmbeddingStopsOnItsSignal) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse slow = embedding_reply({{1.0, 0.0}});
  slow.delay_ms = 60000;
  FakeOpenAiServer server(scripted(recorder, {slow}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  CancelSignal signal;
  EmbeddingRequest request{"embedder", {"text"}, {}, &signal};
  std::optional<EmbeddingResult> result;
  auto call = [&]() -> Async<void> { result = co_await client->embed(request); };
  auto canceller = [&]() -> Async<void> {
    co_await until_received(harness.loop(), *recorder, 1);
    signal.fire();
  };
  harness.loop().spawn(call());
  harness.loop().spawn(canceller());
  harness.loop().run();
  ASSERT_TRUE(result.has_value() && std::holds_alternative<CallError>(*result));
  EXPECT_EQ(std::get<CallError>(*result).kind, CallErrorKind::kCancelled);
  EXPECT_TRUE(abandoned_within(server, 1));
  EXPECT_EQ(recorder->requests().size(), 1u);
}

}  // namespace
}  // namespace parley
