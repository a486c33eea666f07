// Identical calls of one turn sent as one LlmClient::chat_n: self-consistency's samples and
// best-of drafts without jitter; each still a call of its own in the transcript, and the budget
// charged exactly what the backend billed.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "parley/protocol.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using testing::reply;

// reply("B") = "Reasoning.\nAnswer: B\nConfidence: 80%": 36 bytes, 9 estimated tokens.
constexpr std::int64_t kReplyTokens = 9;

TEST(BatchedCalls, SelfConsistencyAsksItsSamplesInOneCallWhereTheBackendTakesN) {
  const auto script = [](const ChatRequest& r) {
    return reply(r.note.sample == 0 || r.note.sample == 3 ? "A" : "C");
  };
  Harness batched(script);
  batched.client->supports_n = true;
  const Transcript t = batched.run("self_consistency");
  EXPECT_EQ(batched.client->n_calls, (std::vector<int>{5}));
  ASSERT_EQ(t.messages.size(), 5u);
  const std::int64_t prompt = t.messages[0].prompt_tokens;
  EXPECT_GT(prompt, 0);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(t.messages[i].id, static_cast<int>(i));
    EXPECT_EQ(t.messages[i].role, "sample");
    EXPECT_EQ(t.messages[i].prompt_tokens, i == 0 ? prompt : 0) << i;  // read once, billed once
    EXPECT_EQ(t.messages[i].completion_tokens, kReplyTokens);
  }
  EXPECT_EQ(t.final_answer, "C");

  // A backend without n: the same samples and transcript, each sample billing its prompt.
  Harness plain(script);
  const Transcript u = plain.run("self_consistency");
  EXPECT_TRUE(plain.client->n_calls.empty());
  ASSERT_EQ(plain.client->requests.size(), 5u);
  ASSERT_EQ(u.messages.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(cache_key(plain.client->requests[i]), cache_key(batched.client->requests[i]));
    EXPECT_EQ(u.messages[i].text, t.messages[i].text);
    EXPECT_EQ(u.messages[i].prompt_tokens, prompt);
  }
  EXPECT_EQ(u.final_answer, "C");
}

TEST(BatchedCalls, AReaskIsACallOfItsOwn) {
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "reask") return "Answer: C";
    return r.note.sample == 1 ? "Hmm, hard to say." : "Answer: A";
  });
  h.client->supports_n = true;
  const Transcript t = h.run("self_consistency", {{"samples", std::int64_t{3}}});
  EXPECT_EQ(h.client->n_calls, (std::vector<int>{3}));
  ASSERT_EQ(h.client->requests.size(), 4u);
  EXPECT_EQ(h.client->requests[3].note.turn, "reask");
  ASSERT_EQ(t.messages.size(), 4u);
  EXPECT_EQ(t.messages[3].role, "reask");
  EXPECT_EQ(t.messages[3].repeats, 1);
  EXPECT_GT(t.messages[3].prompt_tokens, 0);
}

// Three samples of a1 on a 297-byte prompt: estimated at ceil(297 / 4) + 4 = 79 tokens, reserved
// at 4 + (297 + 2) / 3 = 103; each sample may complete 100 tokens, so it reserves 203.
struct SampledTurn {
  Transcript transcript;
  std::optional<std::int64_t> remaining;
  std::optional<DebateHalt> halt;
};

SampledTurn three_samples(Harness& h, std::int64_t budget) {
  h.pool[0].sampling.max_tokens = 100;
  Debate debate(h.setup("harness", budget));
  SampledTurn out;
  const std::vector<ChatMessage> messages = {ChatMessage{"user", std::string(297, 'x')}};
  TurnInfo info;
  info.turn = "sample";
  auto body = [&]() -> Async<void> {
    try {
      co_await debate.ask_samples(h.pool[0], messages, info, 3);
    } catch (const DebateHalt& halt) {
      out.halt = halt;
    }
  };
  h.loop.spawn(body());
  h.loop.run();
  out.transcript = std::move(debate.transcript());
  out.remaining = debate.budget_remaining();
  return out;
}

TEST(BatchedCalls, TheBudgetIsChargedThePromptOnceWhenItWasBilledOnce) {
  Harness batched([](const ChatRequest&) { return reply("B"); });
  batched.client->supports_n = true;
  const SampledTurn once = three_samples(batched, 10000);
  EXPECT_EQ(batched.client->n_calls, (std::vector<int>{3}));
  EXPECT_EQ(once.remaining, 10000 - 79 - 3 * kReplyTokens);

  Harness plain([](const ChatRequest&) { return reply("B"); });
  const SampledTurn thrice = three_samples(plain, 10000);
  EXPECT_EQ(thrice.remaining, 10000 - 3 * (79 + kReplyTokens));
}

TEST(BatchedCalls, ABudgetStopSendsTheSamplesThatFitAndHalts) {
  // 450: samples 0 and 1 reserve 203 each, leaving 44, short of sample 2's 103 + 32.
  Harness h([](const ChatRequest&) { return reply("B"); });
  h.client->supports_n = true;
  const SampledTurn run = three_samples(h, 450);
  ASSERT_TRUE(run.halt);
  EXPECT_EQ(run.halt->status, DebateStatus::kBudget);
  EXPECT_EQ(run.halt->reason, "token budget of 450 spent or reserved before a1's sample turn in round 0");
  EXPECT_EQ(h.client->n_calls, (std::vector<int>{2}));
  ASSERT_EQ(run.transcript.messages.size(), 2u);
  EXPECT_EQ(run.transcript.messages[0].prompt_tokens, 79);
  EXPECT_EQ(run.transcript.messages[1].prompt_tokens, 0);
  EXPECT_EQ(run.transcript.messages[1].text, reply("B"));
  EXPECT_EQ(run.remaining, 450 - 79 - 2 * kReplyTokens);
}

TEST(BatchedCalls, ASampleWhoseCapTheBudgetLoweredIsSentAlone) {
  // 380: sample 0 reserves 203; sample 1 gets the 74 completion tokens left after its prompt,
  // another request; sample 2 does not fit.
  Harness h([](const ChatRequest&) { return reply("B"); });
  h.client->supports_n = true;
  const SampledTurn run = three_samples(h, 380);
  ASSERT_TRUE(run.halt);
  EXPECT_TRUE(h.client->n_calls.empty());
  ASSERT_EQ(h.client->requests.size(), 2u);
  EXPECT_EQ(h.client->requests[0].sampling.max_tokens, 100);
  EXPECT_EQ(h.client->requests[1].sampling.max_tokens, 74);
  EXPECT_EQ(run.remaining, 380 - 2 * (79 + kReplyTokens));
}

// A backend breaking chat_n's contract: it answers one sample fewer than asked, or throws.
class BrokenBatchClient final : public LlmClient {
 public:
  explicit BrokenBatchClient(bool throws) : throws_(throws) {}
  Async<ChatResult> chat(ChatRequest /*request*/) override { co_return ChatResponse{}; }
  Async<std::vector<ChatResult>> chat_n(ChatRequest /*request*/, int n) override {
    if (throws_) throw std::runtime_error("backend bug");
    std::vector<ChatResult> results;
    for (int i = 0; i + 1 < n; ++i) {
      ChatResponse response;
      response.text = reply("B");
      results.push_back(response);
    }
    co_return results;
  }
  bool simulated() const override { return true; }

 private:
  bool throws_;
};

TEST(BatchedCalls, ABackendAnsweringTooFewSamplesFailsTheMissingSample) {
  Harness h([](const ChatRequest&) { return reply("B"); });
  BrokenBatchClient broken(/*throws=*/false);
  h.pool[0].client = &broken;
  const SampledTurn run = three_samples(h, 10000);
  ASSERT_TRUE(run.halt);
  EXPECT_EQ(run.halt->status, DebateStatus::kFailed);
  EXPECT_NE(run.halt->reason.find("the backend answered fewer samples than asked"), std::string::npos)
      << run.halt->reason;
  ASSERT_EQ(run.transcript.messages.size(), 3u);
  EXPECT_EQ(run.transcript.messages[1].text, reply("B"));
  EXPECT_TRUE(run.transcript.messages[2].error.has_value());
}

TEST(BatchedCalls, ABackendThrowingReachesEveryCallOfTheBatch) {
  Harness h([](const ChatRequest&) { return reply("B"); });
  BrokenBatchClient broken(/*throws=*/true);
  h.pool[0].client = &broken;
  h.pool[0].sampling.max_tokens = 100;
  Debate debate(h.setup("harness"));
  const std::vector<ChatMessage> messages = {ChatMessage{"user", "Which planet is largest?"}};
  TurnInfo info;
  info.turn = "sample";
  std::string caught;
  auto body = [&]() -> Async<void> {
    try {
      co_await debate.ask_samples(h.pool[0], messages, info, 3);
    } catch (const std::runtime_error& error) {
      caught = error.what();
    }
  };
  h.loop.spawn(body());
  h.loop.run();  // returns: no call of the batch is left waiting
  EXPECT_EQ(caught, "backend bug");
}

std::vector<double> draft_temperatures(const Harness& h) {
  std::vector<double> temperatures;
  for (const auto& r : h.client->requests)
    if (r.note.turn == "answer") temperatures.push_back(r.sampling.temperature);
  return temperatures;
}

TEST(BatchedCalls, BestOfDraftsWithoutJitterAreOneCallAndWithTheirOwnRequestsEach) {
  const auto script = [](const ChatRequest& r) -> std::string {
    if (r.note.turn.rfind("judge", 0) == 0) return R"({"score": 3})";
    return reply("B");
  };
  Harness paper(script);
  paper.client->supports_n = true;
  paper.best_of = 3;
  paper.run("single");
  EXPECT_TRUE(paper.client->n_calls.empty());  // three temperatures: three requests
  const std::vector<double> jittered = draft_temperatures(paper);
  ASSERT_EQ(jittered.size(), 3u);
  EXPECT_DOUBLE_EQ(jittered[0], 0.55);
  EXPECT_DOUBLE_EQ(jittered[1], 0.7);
  EXPECT_DOUBLE_EQ(jittered[2], 0.85);

  Harness identical(script);
  identical.client->supports_n = true;
  identical.best_of = 3;
  identical.best_of_jitter = 0.0;
  const Transcript t = identical.run("single");
  EXPECT_EQ(identical.client->n_calls, (std::vector<int>{3}));
  EXPECT_EQ(draft_temperatures(identical), (std::vector<double>{0.7, 0.7, 0.7}));
  std::vector<int> samples;
  for (const auto& r : identical.client->requests)
    if (r.note.turn == "answer") samples.push_back(r.note.sample);
  EXPECT_EQ(samples, (std::vector<int>{0, 1, 2}));
  int drafts = 0;
  for (const auto& m : t.messages) drafts += m.role == "draft";
  EXPECT_EQ(drafts, 2);
  EXPECT_EQ(t.final_answer, "B");
}

}  // namespace
}  // namespace parley
