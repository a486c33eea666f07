// chat_n against FakeOpenAiServer on loopback, on both transports: identical samples of one turn
// sent as one request with "n" where the server honours it, the probe that finds out, and the
// fallback to one request per sample (openai_client.cc, rejects_n; openai::refuses_n reads the error).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm/openai_client_test_support.h"
#include "parley/llm_client.h"
#include "support/fake_openai_server.h"

namespace parley {
namespace {

using namespace parley::openai_test;
using nlohmann::json;

class OpenAiClientChatN : public ::testing::TestWithParam<TransportKind> {};
INSTANTIATE_TEST_SUITE_P(BothTransports, OpenAiClientChatN,
                         ::testing::Values(TransportKind::kCurl, TransportKind::kRouted), transport_name);

// `batches` concurrent chat_n calls of `request` with `n` each (batch b from sample b · n).
std::vector<std::vector<ChatResult>> run_chat_n(Harness& harness, LlmClient& client,
                                                const ChatRequest& request, int n, int batches = 1) {
  std::vector<std::vector<ChatResult>> results(static_cast<std::size_t>(batches));
  auto one = [&](int b) -> Async<void> {
    ChatRequest batch = request;
    batch.note.sample = b * n;
    results[static_cast<std::size_t>(b)] = co_await client.chat_n(std::move(batch), n);
  };
  for (int b = 0; b < batches; ++b) harness.loop().spawn(one(b));
  harness.loop().run();
  return results;
}

// Each recorded request's "n" (1 when absent).
std::vector<int> ns_asked(const Recorder& recorder) {
  std::vector<int> ns;
  for (const auto& request : recorder.requests()) ns.push_back(json::parse(request.body).value("n", 1));
  return ns;
}

// Records each request, then answers as `handler` does.
Handler recorded(std::shared_ptr<Recorder> recorder, Handler handler) {
  return [recorder, handler](const FakeRequest& request) {
    recorder->add(request);
    return handler(request);
  };
}

FaultPlan server_without_n(bool rejects) {
  FaultPlan plan;
  plan.reject_n = rejects;
  plan.ignore_n = !rejects;
  return plan;
}

TEST_P(OpenAiClientChatN, OneRequestWithNWhereTheServerHonoursIt) {
  auto recorder = std::make_shared<Recorder>();
  CompletionSpec spec = answer_spec("Answer: A");
  spec.more_choices = {"Answer: B because", "Answer: C"};
  spec.prompt_tokens = 40;
  spec.completion_tokens = 22;
  spec.cached_tokens = 16;
  FakeOpenAiServer server(scripted(recorder, {ok_reply(spec)}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  for (int call = 0; call < 2; ++call) {
    const std::vector<ChatResult> results = run_chat_n(harness, *client, question(), 3)[0];
    ASSERT_EQ(results.size(), 3u);
    const ChatResponse first = ok(results[0]), second = ok(results[1]), third = ok(results[2]);
    EXPECT_EQ(first.text, "Answer: A");
    EXPECT_EQ(second.text, "Answer: B because");
    EXPECT_EQ(third.text, "Answer: C");
    // Billed once: the prompt (and its cached part) to the first; 22 completion tokens split by
    // the estimates 3, 5, 3 (9, 17, 9 bytes): 6, 10, 6.
    EXPECT_EQ(first.usage.prompt_tokens, 40);
    EXPECT_EQ(first.usage.cached_tokens, 16);
    EXPECT_EQ(second.usage.prompt_tokens, 0);
    EXPECT_EQ(second.usage.cached_tokens, 0);
    EXPECT_EQ(third.usage.prompt_tokens, 0);
    EXPECT_EQ(first.usage.completion_tokens, 6);
    EXPECT_EQ(second.usage.completion_tokens, 10);
    EXPECT_EQ(third.usage.completion_tokens, 6);
    for (const ChatResponse& choice : {first, second, third}) {
      EXPECT_FALSE(choice.usage.estimated);
      EXPECT_EQ(choice.attempts, 1);
      EXPECT_EQ(choice.latency_ms, first.latency_ms);
      EXPECT_GT(choice.latency_ms, 0.0);
    }
  }
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{3, 3}));
  const json body = json::parse(recorder->requests()[0].body);
  EXPECT_EQ(body["messages"].size(), 2u);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
}

TEST_P(OpenAiClientChatN, RejectedNIsAskedOncePerSampleFromThenOn) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(recorded(recorder, faulty_handler(server_without_n(/*rejects=*/true))));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  // "Answer briefly." + "What is 2+2?": 27 bytes, ceil(27 / 4) = 7 prompt tokens each time.
  for (int call = 0; call < 2; ++call) {
    const std::vector<ChatResult> results = run_chat_n(harness, *client, question(), 3)[0];
    ASSERT_EQ(results.size(), 3u);
    for (const ChatResult& result : results) {
      const ChatResponse response = ok(result);
      EXPECT_EQ(response.usage.prompt_tokens, 7);
      EXPECT_EQ(response.attempts, 1);
      EXPECT_NE(response.text.find("Answer: "), std::string::npos);
    }
  }
  // The probe (rejected, not retried), its three samples, then three samples at once.
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{3, 1, 1, 1, 1, 1, 1}));
}

TEST_P(OpenAiClientChatN, FewerChoicesThanAskedAreKeptAndTheRestAskedOneByOne) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(recorded(recorder, faulty_handler(server_without_n(/*rejects=*/false))));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const std::vector<ChatResult> first_call = run_chat_n(harness, *client, question(), 3)[0];
  ASSERT_EQ(first_call.size(), 3u);
  // Every reply, the probe's one choice included, bills its own prompt: 7 tokens.
  for (const ChatResult& result : first_call) EXPECT_EQ(ok(result).usage.prompt_tokens, 7);
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{3, 1, 1}));
  const std::vector<ChatResult> second_call = run_chat_n(harness, *client, question(), 3)[0];
  ASSERT_EQ(second_call.size(), 3u);
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{3, 1, 1, 1, 1, 1}));
}

TEST_P(OpenAiClientChatN, CallsDuringTheProbeWaitForItsAnswer) {
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(recorded(recorder, faulty_handler(server_without_n(/*rejects=*/true))));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const auto batches = run_chat_n(harness, *client, question(), 2, /*batches=*/4);
  for (const auto& results : batches) {
    ASSERT_EQ(results.size(), 2u);
    for (const ChatResult& result : results) EXPECT_EQ(ok(result).usage.prompt_tokens, 7);
  }
  const std::vector<int> ns = ns_asked(*recorder);
  EXPECT_EQ(ns.size(), 9u);  // one probe, then 4 × 2 samples
  EXPECT_EQ(std::count(ns.begin(), ns.end(), 2), 1);
}

// A proxy's HTML error page is no answer about "n", whatever its script says ("var n=..."): the
// request is retried as any 503 is, and the retry's choices are taken.
TEST_P(OpenAiClientChatN, AnHtmlErrorPageIsRetriedNotTakenForNoN) {
  auto recorder = std::make_shared<Recorder>();
  FakeResponse page;
  page.status = 503;
  page.body = "<html><script>var n=document.getElementById(\"x\"); n = 1;</script>Service Unavailable</html>";
  CompletionSpec two = answer_spec("Answer: A");
  two.more_choices = {"Answer: D"};
  FakeOpenAiServer server(scripted(recorder, {page, ok_reply(two)}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const std::vector<ChatResult> results = run_chat_n(harness, *client, question(), 2)[0];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(ok(results[0]).text, "Answer: A");
  EXPECT_EQ(ok(results[1]).text, "Answer: D");
  EXPECT_EQ(ok(results[0]).attempts, 2);
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{2, 2}));
}

TEST_P(OpenAiClientChatN, AFailedProbeIsNoAnswerAndTheNextCallProbesAgain) {
  auto recorder = std::make_shared<Recorder>();
  CompletionSpec two = answer_spec("Answer: A");
  two.more_choices = {"Answer: D"};
  FakeOpenAiServer server(scripted(
      recorder, {status_reply(500), status_reply(500), status_reply(500), status_reply(500), ok_reply(two)}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));  // 3 retries: 4 attempts
  const std::vector<ChatResult> failed_call = run_chat_n(harness, *client, question(), 2)[0];
  ASSERT_EQ(failed_call.size(), 2u);
  for (const ChatResult& result : failed_call) {
    const CallError error = failed(result);
    EXPECT_EQ(error.http_status, 500);
    EXPECT_EQ(error.attempts, 4);
  }
  const std::vector<ChatResult> next_call = run_chat_n(harness, *client, question(), 2)[0];
  ASSERT_EQ(next_call.size(), 2u);
  EXPECT_EQ(ok(next_call[0]).text, "Answer: A");
  EXPECT_EQ(ok(next_call[1]).text, "Answer: D");
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{2, 2, 2, 2, 2}));
}

TEST_P(OpenAiClientChatN, OnceHonouredAClientErrorNotNamingNFailsTheSamples) {
  auto recorder = std::make_shared<Recorder>();
  CompletionSpec two = answer_spec("Answer: A");
  two.more_choices = {"Answer: D"};
  FakeResponse too_long;
  too_long.status = 400;
  too_long.body = R"({"error": {"message": "This model's maximum context length is 4096 tokens."}})";
  FakeOpenAiServer server(scripted(recorder, {ok_reply(two), too_long, ok_reply(two)}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  EXPECT_EQ(ok(run_chat_n(harness, *client, question(), 2)[0][1]).text, "Answer: D");
  const std::vector<ChatResult> refused = run_chat_n(harness, *client, question(), 2)[0];
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(failed(refused[0]).http_status, 400);
  EXPECT_EQ(failed(refused[1]).attempts, 1);
  EXPECT_EQ(ok(run_chat_n(harness, *client, question(), 2)[0][0]).text, "Answer: A");
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{2, 2, 2}));
}

// Servers' own words for "no n" (openai::refuses_n): each makes the samples go one request each.
TEST_P(OpenAiClientChatN, EachServersWordingOfNoNIsARejection) {
  struct Refusal {
    int status;
    const char* body;
  };
  const Refusal refusals[] = {
      // OpenAI's error object names the parameter; the message need not.
      {400, R"({"error": {"message": "Unsupported value for this model.", "type": "invalid_request_error", "param": "n", "code": "unsupported_value"}})"},
      {400, R"({"error": {"message": "Invalid 'n': integer above maximum value.", "type": "invalid_request_error", "param": null}})"},
      // vLLM: SamplingParams' check, and pydantic's location of a field it refuses.
      {400, R"({"object": "error", "message": "n must be 1 when using greedy sampling, got 2.", "type": "BadRequestError", "code": 400})"},
      {400, R"({"object": "error", "message": "[{'type': 'less_than_equal', 'loc': ('body', 'n'), 'msg': 'Input should be less than or equal to 1'}]"})"},
      // llama.cpp's server (an HTTP 500), and SGLang.
      {500, R"({"error": {"code": 500, "message": "Only one completion choice is allowed", "type": "server_error"}})"},
      {400, R"({"object": "error", "message": "Parallel sampling is not supported for completions from files"})"},
      {400, R"({"detail": "n > 1 is not supported"})"},
  };
  for (const Refusal& refusal : refusals) {
    auto recorder = std::make_shared<Recorder>();
    FakeResponse refused;
    refused.status = refusal.status;
    refused.body = refusal.body;
    FakeOpenAiServer server(scripted(recorder, {refused, ok_reply(answer_spec())}));
    Harness harness(GetParam());
    auto client = harness.client(options_for(server));
    const std::vector<ChatResult> results = run_chat_n(harness, *client, question(), 2)[0];
    EXPECT_EQ(ok(results[0]).text, "Answer: B") << refusal.body;
    EXPECT_EQ(ok(results[1]).attempts, 1) << refusal.body;
    EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{2, 1, 1})) << refusal.body;
  }
}

// Any other error at the probe is the ordinary error of the samples, not taken to mean "no n":
// a bad key, a prompt too long, an unknown model, or a message where "n" and "choice" are
// parts of other words or of no rule about n. The next call probes again.
TEST_P(OpenAiClientChatN, AtTheProbeAnErrorNotAboutNIsTheOrdinaryError) {
  struct Refusal {
    int status;
    const char* body;
  };
  const Refusal refusals[] = {
      {401, R"({"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}})"},
      {400, R"({"error": {"message": "This model's maximum context length is 4096 tokens.", "param": "messages"}})"},
      {404, R"({"error": {"message": "The model `fake-model` does not exist", "code": "model_not_found"}})"},
      {422, R"({"detail": "Unprocessable Entity"})"},
      {400, R"({"error": {"message": "Invalid value for 'tool_choice': n/a"}})"},
  };
  for (const Refusal& refusal : refusals) {
    auto recorder = std::make_shared<Recorder>();
    FakeResponse refused;
    refused.status = refusal.status;
    refused.body = refusal.body;
    CompletionSpec two = answer_spec("Answer: A");
    two.more_choices = {"Answer: D"};
    FakeOpenAiServer server(scripted(recorder, {refused, ok_reply(two)}));
    Harness harness(GetParam());
    auto client = harness.client(options_for(server));
    const std::vector<ChatResult> results = run_chat_n(harness, *client, question(), 2)[0];
    ASSERT_EQ(results.size(), 2u);
    for (const ChatResult& result : results) {
      const CallError error = failed(result);
      EXPECT_EQ(error.http_status, refusal.status) << refusal.body;
      EXPECT_EQ(error.attempts, 1) << refusal.body;
    }
    const std::vector<ChatResult> next_call = run_chat_n(harness, *client, question(), 2)[0];
    EXPECT_EQ(ok(next_call[1]).text, "Answer: D") << refusal.body;
    EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{2, 2})) << refusal.body;
  }
}

TEST_P(OpenAiClientChatN, AServerErrorNamingNIsARejectionOthersAreRetried) {
  // A 500 naming "n" is not retried: the samples are asked alone at once.
  auto recorder = std::make_shared<Recorder>();
  FakeResponse refused;
  refused.status = 500;
  refused.body = R"({"error": {"message": "'n' must be 1"}})";
  FakeOpenAiServer server(scripted(recorder, {refused, ok_reply(answer_spec())}));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  const std::vector<ChatResult> results = run_chat_n(harness, *client, question(), 2)[0];
  EXPECT_EQ(ok(results[1]).text, "Answer: B");
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{2, 1, 1}));

  // A rate limit, and a server error whose n's are inside words ("not", "down"), are retried
  // like any other, and the probe then succeeds.
  auto retried = std::make_shared<Recorder>();
  FakeResponse busy;
  busy.status = 503;
  busy.body = R"({"error": {"message": "upstream not ready, down"}})";
  CompletionSpec two = answer_spec("Answer: A");
  two.more_choices = {"Answer: D"};
  FakeOpenAiServer flaky(scripted(retried, {status_reply(429), busy, ok_reply(two)}));
  auto flaky_client = harness.client(options_for(flaky));
  const std::vector<ChatResult> answered = run_chat_n(harness, *flaky_client, question(), 2)[0];
  EXPECT_EQ(ok(answered[0]).attempts, 3);
  EXPECT_EQ(ok(answered[1]).text, "Answer: D");
  EXPECT_EQ(ns_asked(*retried), (std::vector<int>{2, 2, 2}));
}

TEST_P(OpenAiClientChatN, ASingleSampleIsAPlainCallNotTheProbe) {
  // chat_n of one sample sends no "n" and learns nothing: the first real batch is the probe,
  // and batches arriving meanwhile wait for its answer, so only it asks with "n".
  auto recorder = std::make_shared<Recorder>();
  FakeOpenAiServer server(recorded(recorder, faulty_handler(server_without_n(/*rejects=*/true))));
  Harness harness(GetParam());
  auto client = harness.client(options_for(server));
  EXPECT_EQ(ok(run_chat_n(harness, *client, question(), 1)[0].at(0)).usage.prompt_tokens, 7);
  EXPECT_EQ(ns_asked(*recorder), (std::vector<int>{1}));
  const auto batches = run_chat_n(harness, *client, question(), 2, /*batches=*/3);
  for (const auto& results : batches) {
    ASSERT_EQ(results.size(), 2u);
    for (const ChatResult& result : results) EXPECT_EQ(ok(result).usage.prompt_tokens, 7);
  }
  const std::vector<int> ns = ns_asked(*recorder);
  EXPECT_EQ(ns.size(), 8u);  // the single call, one probe, then 3 × 2 samples
  EXPECT_EQ(std::count(ns.begin(), ns.end(), 2), 1);
}

}  // namespace
}  // namespace parley
