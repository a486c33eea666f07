// The OpenAI client's "logprobs" probe against FakeOpenAiServer on loopback, on both transports:
// a server that refuses log-probabilities is asked once, the refused request is sent again
// without them and every later one omits them; calls during the probe wait for its answer; a
// server that takes them keeps being asked; an error not about them is the call's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "llm/openai_client_test_support.h"
#include "parley/llm_client.h"
#include "support/fake_openai_server.h"

namespace parley {
namespace {

using namespace parley::openai_test;
using namespace std::chrono_literals;
using nlohmann::json;

class OpenAiClientLogprobs : public ::testing::TestWithParam<TransportKind> {};
INSTANTIATE_TEST_SUITE_P(BothTransports, OpenAiClientLogprobs,
                         ::testing::Values(TransportKind::kCurl, TransportKind::kRouted), transport_name);

bool asks_logprobs(const FakeRequest& request) { return json::parse(request.body).value("logprobs", false); }

std::size_t count_asking(const Recorder& recorder) {
  const std::vector<FakeRequest> requests = recorder.requests();
  return static_cast<std::size_t>(std::count_if(requests.begin(), requests.end(), asks_logprobs));
}

// OpenAI's answer to a model without log-probabilities.
FakeResponse logprobs_refused() {
  FakeResponse response;
  response.status = 400;
  response.body =
      R"({"error": {"message": "logprobs is not supported for this model", "type": "invalid_request_error", "param": "logprobs", "code": null}})";
  return response;
}

// A server that refuses "logprobs" (after `delay_ms`) and answers everything else as
// answer_reply does ("n" included).
Handler refusing_logprobs(std::shared_ptr<Recorder> recorder, int delay_ms = 0) {
  return [recorder, delay_ms](const FakeRequest& request) {
    recorder->add(request);
    if (!asks_logprobs(request)) return answer_reply(request);
    FakeResponse refused = logprobs_refused();
    refused.delay_ms = delay_ms;
    return refused;
  };
}

// A server that answers with token log-probabilities when asked, with "n" choices when asked;
// the first reply after `first_delay_ms`, the others after `delay_ms`.
Handler giving_logprobs(std::shared_ptr<Recorder> recorder, int first_delay_ms = 0, int delay_ms = 0) {
  return [recorder, first_delay_ms, delay_ms](const FakeRequest& request) {
    recorder->add(request);
    CompletionSpec spec = answer_spec("Answer: B");
    if (asks_logprobs(request)) spec.token_logprobs = {-0.5, -0.1};
    const int n = json::parse(request.body).value("n", 1);
    for (int i = 1; i < n; ++i) spec.more_choices.push_back("Answer: C");
    FakeResponse response = ok_reply(spec);
    response.delay_ms = request.index == 0 ? first_delay_ms : delay_ms;
    return response;
  };
}

// How long after the first request each later one arrived.
std::vector<Clock::duration> arrival_offsets(const Recorder& recorder) {
  const std::vector<Clock::time_point> arrivals = recorder.arrivals();
  std::vector<Clock::duration> offsets;
  for (std::size_t i = 1; i < arrivals.size(); ++i) offsets.push_back(arrivals[i] - arrivals[0]);
  return offsets;
}

ChatRequest with_logprobs(const std::string& text = "What is 2+2?") {
  ChatRequest request = question(text);
  request.sampling.logprobs = true;
  return request;
}

TEST_P(OpenAiClientLogprobs, ARefusedProbeIsSentAgainWithoutThemAndTheyAreNeverAskedAgain) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(refusing_logprobs(recorder));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const ChatResponse first = ok(harness.run_one(*client, with_logprobs()));
  EXPECT_FALSE(first.logprobs.has_value());
  EXPECT_EQ(first.attempts, 2);  // the refused request and its resend
  EXPECT_NE(first.text.find("Answer: "), std::string::npos);
  for (int call = 0; call < 2; ++call) {
    const ChatResponse later = ok(harness.run_one(*client, with_logprobs()));
    EXPECT_FALSE(later.logprobs.has_value());
    EXPECT_EQ(later.attempts, 1);
  }
  const std::vector<FakeRequest> requests = recorder->requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_TRUE(asks_logprobs(requests[0]));  // the one refused request, not retried
  EXPECT_EQ(count_asking(*recorder), 1u);
  // The resend is the same request without "logprobs".
  json probe = json::parse(requests[0].body);
  probe.erase("logprobs");
  EXPECT_EQ(json::parse(requests[1].body), probe);
}

TEST_P(OpenAiClientLogprobs, CallsDuringTheProbeWaitForItsAnswer) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(refusing_logprobs(recorder, /*delay_ms=*/300));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const std::vector<ChatResult> results = harness.run(
      *client, {with_logprobs("q1"), with_logprobs("q2"), with_logprobs("q3"), with_logprobs("q4")});
  for (const ChatResult& result : results) EXPECT_FALSE(ok(result).logprobs.has_value());
  EXPECT_EQ(count_asking(*recorder), 1u);
  const std::vector<Clock::time_point> arrivals = recorder->arrivals();
  ASSERT_EQ(arrivals.size(), 5u);  // the probe, its resend, three more
  for (std::size_t i = 1; i < arrivals.size(); ++i) EXPECT_GE(arrivals[i] - arrivals[0], 250ms) << i;
}

TEST_P(OpenAiClientLogprobs, AServerThatTakesThemIsAskedEveryTimeAfterTheProbe) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(giving_logprobs(recorder, /*first_delay_ms=*/300));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const std::vector<ChatResult> results =
      harness.run(*client, {with_logprobs("q1"), with_logprobs("q2"), with_logprobs("q3")});
  for (const ChatResult& result : results) {
    const ChatResponse response = ok(result);
    ASSERT_TRUE(response.logprobs.has_value());
    EXPECT_DOUBLE_EQ(response.logprobs->min_token_logprob, -0.5);
    EXPECT_EQ(response.attempts, 1);
  }
  EXPECT_EQ(count_asking(*recorder), 3u);
  const std::vector<Clock::time_point> arrivals = recorder->arrivals();
  ASSERT_EQ(arrivals.size(), 3u);
  for (std::size_t i = 1; i < arrivals.size(); ++i) EXPECT_GE(arrivals[i] - arrivals[0], 250ms) << i;
  // Requests without logprobs never waited for it and ask none.
  EXPECT_FALSE(ok(harness.run_one(*client, question())).logprobs.has_value());
  EXPECT_EQ(count_asking(*recorder), 3u);
}

// A server that takes "logprobs" but sends none back: replies without logprobs, not a failure.
TEST_P(OpenAiClientLogprobs, AServerThatTakesThemButSendsNoneGivesRepliesWithout) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(scripted(recorder, {ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  for (int call = 0; call < 2; ++call) {
    const ChatResponse response = ok(harness.run_one(*client, with_logprobs()));
    EXPECT_FALSE(response.logprobs.has_value());
    EXPECT_EQ(response.attempts, 1);
  }
  EXPECT_EQ(count_asking(*recorder), 2u);
}

// At the probe, an error that does not name log-probabilities is the call's ordinary error (a
// 400 is not retried); it says nothing about them, so the next request asks again.
TEST_P(OpenAiClientLogprobs, AnErrorNotAboutThemIsTheCallsOwnAndTheNextCallProbesAgain) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse too_long;
  too_long.status = 400;
  too_long.body =
      R"({"error": {"message": "This model's maximum context length is 4096 tokens.", "param": "messages"}})";
  CompletionSpec with = answer_spec();
  with.token_logprobs = {-0.25};
  FakeOpenAiServer server(scripted(recorder, {too_long, ok_reply(with)}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const CallError error = failed(harness.run_one(*client, with_logprobs()));
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.attempts, 1);
  const ChatResponse next = ok(harness.run_one(*client, with_logprobs()));
  ASSERT_TRUE(next.logprobs.has_value());
  EXPECT_EQ(count_asking(*recorder), 2u);
}

// chat_n with logprobs on a server that refuses them but honours "n": the refused request is sent
// again with "n" and without logprobs; the samples count both requests; later chats omit them.
TEST_P(OpenAiClientLogprobs, ChatNRefusedForThemIsSentAgainWithNAndWithoutThem) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(refusing_logprobs(recorder));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  std::vector<ChatResult> samples;
  const ChatRequest request = with_logprobs();
  auto batch = [&]() -> Async<void> { samples = co_await client->chat_n(request, 3); };
  harness.loop().spawn(batch());
  harness.loop().run();
  ASSERT_EQ(samples.size(), 3u);
  for (const ChatResult& sample : samples) {
    const ChatResponse response = ok(sample);
    EXPECT_FALSE(response.logprobs.has_value());
    EXPECT_EQ(response.attempts, 2);
  }
  const std::vector<FakeRequest> requests = recorder->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(json::parse(requests[0].body).value("n", 1), 3);
  EXPECT_EQ(json::parse(requests[1].body).value("n", 1), 3);
  EXPECT_EQ(count_asking(*recorder), 1u);
  EXPECT_FALSE(ok(harness.run_one(*client, with_logprobs())).logprobs.has_value());
  EXPECT_EQ(count_asking(*recorder), 1u);
}

// Once the endpoint took them, calls asking for them go out together: nobody waits any more.
TEST_P(OpenAiClientLogprobs, AfterTheProbeCallsAskingForThemGoOutTogether) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(giving_logprobs(recorder, /*first_delay_ms=*/0, /*delay_ms=*/300));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  ASSERT_TRUE(ok(harness.run_one(*client, with_logprobs("probe"))).logprobs.has_value());
  const std::vector<ChatResult> results =
      harness.run(*client, {with_logprobs("a"), with_logprobs("b"), with_logprobs("c")});
  for (const ChatResult& result : results) EXPECT_TRUE(ok(result).logprobs.has_value());
  const std::vector<Clock::time_point> arrivals = recorder->arrivals();
  ASSERT_EQ(arrivals.size(), 4u);
  EXPECT_LT(arrivals[3] - arrivals[1], 200ms);  // not one after another
}

// chat_n asking for log-probabilities is the endpoint's probe for them as a chat would be (a
// chat arriving meanwhile waits for it); one that does not ask for them probes nothing about
// them (the chat does not wait for it).
TEST_P(OpenAiClientLogprobs, ChatNIsTheProbeWhenItAsksForThemAndOnlyThen) {
  for (const bool batch_asks : {true, false}) {
    auto recorder = std::make_shared<Recorder>();
    FakeOpenAiServer server(giving_logprobs(recorder, /*first_delay_ms=*/300));
    Harness harness(GetParam());
    auto client = harness.client(options_for(server));
    ChatRequest batched = question("batch");
    batched.sampling.logprobs = batch_asks;
    const ChatRequest single = with_logprobs("single");
    std::vector<ChatResult> samples;
    std::optional<ChatResult> answer;
    auto batch = [&]() -> Async<void> { samples = co_await client->chat_n(batched, 2); };
    auto chat = [&]() -> Async<void> {
      while (recorder->requests().empty()) co_await harness.loop().sleep_for(1ms);
      answer = co_await client->chat(single);
    };
    harness.loop().spawn(batch());
    harness.loop().spawn(chat());
    harness.loop().run();
    ASSERT_EQ(samples.size(), 2u);
    EXPECT_EQ(ok(samples[0]).logprobs.has_value(), batch_asks);  // the fake gives them to choice 0 only
    ok(samples[1]);
    EXPECT_TRUE(ok(*answer).logprobs.has_value());
    const std::vector<Clock::duration> offsets = arrival_offsets(*recorder);
    ASSERT_EQ(offsets.size(), 1u);
    if (batch_asks) {
      EXPECT_GE(offsets[0], 250ms) << "the chat did not wait for chat_n's probe";
    } else {
      EXPECT_LT(offsets[0], 250ms) << "the chat waited for a chat_n that asked no log-probabilities";
    }
  }
}

// Once refused, chat_n leaves them out too: they are never asked again.
TEST_P(OpenAiClientLogprobs, OnceRefusedChatNLeavesThemOutToo) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(refusing_logprobs(recorder));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  EXPECT_EQ(ok(harness.run_one(*client, with_logprobs())).attempts, 2);
  std::vector<ChatResult> samples;
  const ChatRequest request = with_logprobs();
  auto batch = [&]() -> Async<void> { samples = co_await client->chat_n(request, 2); };
  harness.loop().spawn(batch());
  harness.loop().run();
  ASSERT_EQ(samples.size(), 2u);
  for (const ChatResult& sample : samples) EXPECT_EQ(ok(sample).attempts, 1);
  EXPECT_EQ(count_asking(*recorder), 1u);
  EXPECT_EQ(recorder->requests().size(), 3u);
}

// A call waiting for the probe leaves when its signal fires, long before the probe's answer.
TEST_P(OpenAiClientLogprobs, ACallWaitingForTheProbeLeavesOnItsSignal) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(giving_logprobs(recorder, /*first_delay_ms=*/1000));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  CancelSignal signal;
  ChatRequest waiter = with_logprobs("waiter");
  waiter.cancel = &signal;
  std::optional<ChatResult> probe_result, waiter_result;
  std::optional<Clock::time_point> waiter_done;
  const ChatRequest probing = with_logprobs("probe");
  auto probe = [&]() -> Async<void> { probe_result = co_await client->chat(probing); };
  auto waiting = [&]() -> Async<void> {
    waiter_result = co_await client->chat(waiter);
    waiter_done = Clock::now();
  };
  auto canceller = [&]() -> Async<void> {
    while (recorder->requests().empty()) co_await harness.loop().sleep_for(5ms);
    signal.fire();
  };
  const auto started = Clock::now();
  harness.loop().spawn(probe());
  harness.loop().spawn(waiting());
  harness.loop().spawn(canceller());
  harness.loop().run();
  const CallError error = failed(*waiter_result);
  EXPECT_EQ(error.kind, CallErrorKind::kCancelled);
  EXPECT_EQ(error.attempts, 0);
  ASSERT_TRUE(waiter_done.has_value());
  EXPECT_LT(*waiter_done - started, 800ms);
  EXPECT_TRUE(ok(*probe_result).logprobs.has_value());
  EXPECT_EQ(recorder->requests().size(), 1u);
}

}  // namespace
}  // namespace parley
