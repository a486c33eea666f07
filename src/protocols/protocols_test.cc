// Control flow of the baseline protocols on scripted replies: who was asked what, who saw
// which peers in which round, re-asks, budget stops, failures.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "parley/metrics.h"
#include "parley/protocol.h"
#include "protocols/debate.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::choice_task;
using testing::Harness;
using testing::reply;
using testing::ScriptedClient;

TEST(Single, AsksOnceWithQuestionAndOptions) {
  Harness h([](const ChatRequest&) { return reply("B"); });
  const Transcript t = h.run("single");
  ASSERT_EQ(h.client->requests.size(), 1u);
  const std::string& prompt = h.client->requests[0].messages.back().content;
  EXPECT_NE(prompt.find("Which planet is largest?"), std::string::npos);
  EXPECT_NE(prompt.find("B. Jupiter"), std::string::npos);
  EXPECT_EQ(t.status, DebateStatus::kCompleted);
  EXPECT_EQ(t.final_answer, "B");
  EXPECT_TRUE(t.correct);
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.messages[0].role, "answer");
  EXPECT_EQ(t.messages[0].confidence, 0.8);
  EXPECT_GT(t.messages[0].prompt_tokens, 0);
}

TEST(SelfConsistency, SamplesAndVotes) {
  // Samples 0 and 3 say A, the others say C: C wins 3 to 2.
  Harness h([](const ChatRequest& r) { return reply(r.note.sample == 0 || r.note.sample == 3 ? "A" : "C"); });
  const Transcript t = h.run("self_consistency");
  ASSERT_EQ(h.client->requests.size(), 5u);
  std::set<int> samples;
  for (const auto& r : h.client->requests) {
    samples.insert(r.note.sample);
    EXPECT_EQ(r.note.turn, "sample");
    EXPECT_EQ(r.note.agent, "a1");
  }
  EXPECT_EQ(samples, (std::set<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(t.final_answer, "C");
  EXPECT_FALSE(t.correct);
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].kind, "vote");
}

TEST(SelfConsistency, AReaskNamesTheSampleItRepeatsAndTheMetricsFollowIt) {
  // Three samples of a1 in round 0, issued together; sample 0 is unparsable and its re-ask is
  // issued after samples 1 and 2. Folded by (agent, round) the re-ask would replace sample 2.
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.turn == "reask") return "Answer: C";
    if (r.note.sample == 0) return "Hmm, hard to say.";
    return r.note.sample == 1 ? "Answer: A" : "Answer: B";
  });
  const Transcript t = h.run("self_consistency", {{"samples", std::int64_t{3}}});
  ASSERT_EQ(t.messages.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(t.messages[static_cast<std::size_t>(i)].id, i);
  EXPECT_EQ(t.messages[3].role, "reask");
  EXPECT_EQ(t.messages[3].repeats, 0);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(t.messages[static_cast<std::size_t>(i)].repeats);
  // The turns are "Answer: C", "Answer: A", "Answer: B": each token set is {answer}, so AD
  // (protocols paper eq. 2) is 0. Sample 2 replaced instead would leave {hmm, hard, say} in
  // and give AD = (1 + 1 + 0) / 3.
  EXPECT_EQ(interaction_metrics(t).ad, 0.0);
}

TEST(SelfConsistency, OnePerAgentAsksExactlyTheDebatesFirstRequests) {
  // SVR-MAD's Self Consistency votes the debates' own pre-debate replies: its requests must be
  // the requests of a debate's round 0, to the byte (same record/replay cache keys).
  const auto by_agent = [](const ChatRequest& r) { return reply(r.note.agent == "a2" ? "A" : "C"); };
  Harness voting(by_agent, 3);
  const Transcript t = voting.run("self_consistency", {{"samples", std::int64_t{3}}, {"one_per_agent", true}});
  Harness debating(by_agent, 3);
  debating.run("debate", {{"agents", std::int64_t{3}}});
  std::set<std::string> voting_keys, first_round_keys;
  for (const auto& r : voting.client->requests) voting_keys.insert(cache_key(r));
  for (const auto& r : debating.client->requests)
    if (r.note.round == 0) first_round_keys.insert(cache_key(r));
  EXPECT_EQ(voting_keys.size(), 3u);
  EXPECT_EQ(voting_keys, first_round_keys);
  EXPECT_EQ(t.final_answer, "C");  // a1 and a3 say C, a2 says A
}

TEST(Debate, EveryAgentSeesAllPeersPreviousAnswersEachRound) {
  // a1 starts right (B), a2 and a3 start wrong (A, C); in round 1 everyone adopts B.
  Harness h(
      [](const ChatRequest& r) {
        if (r.note.round == 0) return reply(r.note.agent == "a1" ? "B" : r.note.agent == "a2" ? "A" : "C");
        return reply("B");
      },
      3);
  const Transcript t = h.run("debate");
  ASSERT_EQ(h.client->requests.size(), 9u);  // 3 agents × (1 + 2 rounds)
  std::map<std::pair<std::string, int>, const ChatRequest*> by_turn;
  for (const auto& r : h.client->requests) by_turn[{r.note.agent, r.note.round}] = &r;

  const ChatRequest& a2_round1 = *by_turn.at({"a2", 1});
  EXPECT_EQ(a2_round1.note.turn, "revise");
  ASSERT_EQ(a2_round1.note.shown.size(), 2u);
  EXPECT_EQ(a2_round1.note.shown[0].agent, "a1");
  EXPECT_EQ(a2_round1.note.shown[0].answer, "B");
  EXPECT_EQ(a2_round1.note.shown[1].agent, "a3");
  EXPECT_EQ(a2_round1.note.shown[1].answer, "C");
  EXPECT_EQ(a2_round1.note.own_previous, "A");
  // History: question, own answer, peers' solutions.
  ASSERT_EQ(a2_round1.messages.size(), 3u);
  EXPECT_EQ(a2_round1.messages[1].role, "assistant");
  const std::string& peers_prompt = a2_round1.messages[2].content;
  EXPECT_NE(peers_prompt.find("a1's solution"), std::string::npos);
  EXPECT_NE(peers_prompt.find("a3's solution"), std::string::npos);
  EXPECT_EQ(peers_prompt.find("a2's solution"), std::string::npos);

  const ChatRequest& a3_round2 = *by_turn.at({"a3", 2});
  EXPECT_EQ(a3_round2.messages.size(), 5u);
  for (const auto& peer : a3_round2.note.shown) EXPECT_EQ(peer.answer, "B");  // round-1 answers

  EXPECT_EQ(t.final_answer, "B");
  EXPECT_TRUE(t.correct);
  ASSERT_EQ(t.messages.size(), 9u);
  // The transcript records who was shown to whom.
  for (const auto& m : t.messages) {
    if (m.agent == "a2" && m.round == 1) {
      EXPECT_EQ(m.shown, (std::vector<std::string>{"a1", "a3"}));
    }
    if (m.round == 0) {
      EXPECT_TRUE(m.shown.empty());
    }
  }
}

TEST(Debate, SingleConfiguredAgentIsInstantiatedDistinctly) {
  Harness h([](const ChatRequest&) { return reply("D"); }, 1);
  const Transcript t = h.run("debate", {{"agents", std::int64_t{3}}, {"rounds", std::int64_t{1}}});
  std::set<std::string> names;
  for (const auto& r : h.client->requests) names.insert(r.note.agent);
  EXPECT_EQ(names, (std::set<std::string>{"a1#1", "a1#2", "a1#3"}));
  EXPECT_EQ(t.messages.size(), 6u);
}

class RingDebate final : public RoundDebate {
 public:
  RingDebate() : RoundDebate(4, 1) {}

 protected:
  std::vector<std::size_t> visible_peers(std::size_t self, int, std::size_t n) const override {
    return {(self + 1) % n};
  }
};

TEST(Debate, VisibilityHookRestrictsWhoSeesWhom) {
  EventLoop loop;
  ScriptedClient client(loop, [](const ChatRequest&) { return reply("B"); });
  ProtocolParams params;
  DebateSetup setup;
  setup.loop = &loop;
  setup.task = choice_task();
  setup.protocol_label = "ring";
  setup.params = &params;
  for (int i = 1; i <= 4; ++i) setup.agent_pool.push_back(Agent{"a" + std::to_string(i), &client, "m", {}, ""});
  RingDebate ring;
  auto coroutine2 = [&]() -> Async<void> { co_await run_debate(ring, std::move(setup)); };
  loop.spawn(coroutine2());
  loop.run();
  for (const auto& r : client.requests) {
    if (r.note.round != 1) continue;
    ASSERT_EQ(r.note.shown.size(), 1u);
    const int self = r.note.agent.back() - '0';
    EXPECT_EQ(r.note.shown[0].agent, "a" + std::to_string(self % 4 + 1));
  }
}

TEST(Debate, UnparsableReplyIsReaskedOnce) {
  Harness h([](const ChatRequest& r) -> std::variant<std::string, CallError> {
    if (r.note.turn == "reask") return reply("B");
    return std::string("I am not sure at all.");
  });
  const Transcript t = h.run("single");
  ASSERT_EQ(t.messages.size(), 2u);
  EXPECT_EQ(t.messages[0].role, "answer");
  EXPECT_FALSE(t.messages[0].answer.has_value());
  EXPECT_EQ(t.messages[1].role, "reask");
  EXPECT_EQ(t.final_answer, "B");
  // The re-ask carries the unparsable reply and the format reminder.
  const auto& reask = h.client->requests[1].messages;
  ASSERT_EQ(reask.size(), 3u);
  EXPECT_EQ(reask[1].content, "I am not sure at all.");
  // It names the turn it repeats (the simulator models it as that turn).
  EXPECT_EQ(h.client->requests[0].note.repeats, "");
  EXPECT_EQ(h.client->requests[1].note.repeats, "answer");
}

TEST(Debate, TheTranscriptNamesItsUnitAndKeepsWhatTheClientReported) {
  Harness h([](const ChatRequest&) { return reply("B"); });
  h.client->usage_estimated = true;
  h.client->attempts = 3;
  h.client->logprobs = [](const ChatRequest&) { return std::optional<LogprobStats>(LogprobStats{-2.5, 1.75, 12}); };
  h.seed = 7;
  const Transcript t = h.run("single");
  EXPECT_EQ(t.task_id, "t1");
  EXPECT_EQ(t.protocol, "single");
  EXPECT_EQ(t.seed, 7u);
  EXPECT_EQ(t.gold, "B");
  EXPECT_EQ(t.question, "Which planet is largest?");
  EXPECT_EQ(t.options, (std::vector<std::string>{"Mars", "Jupiter", "Venus", "Earth"}));
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_TRUE(t.messages[0].tokens_estimated);
  EXPECT_EQ(t.messages[0].attempts, 3);
  EXPECT_EQ(t.messages[0].min_token_logprob, -2.5);
  EXPECT_EQ(t.messages[0].perplexity, 1.75);
}

TEST(Debate, AnAgentsOwnPreviousAnswerIsItsLatestOne) {
  // a1 answers A, then B, then is asked again: its request says its previous answer is B.
  Harness h([](const ChatRequest& r) { return reply(r.note.round == 0 ? "A" : "B"); }, 3);
  h.run("debate", {{"rounds", std::int64_t{2}}});
  std::map<int, std::string> own_previous;
  for (const auto& r : h.client->requests)
    if (r.note.agent == "a1") own_previous[r.note.round] = r.note.own_previous.value_or("none");
  EXPECT_EQ(own_previous[0], "none");
  EXPECT_EQ(own_previous[1], "A");
  EXPECT_EQ(own_previous[2], "B");
}

TEST(Budget, APromptIsReservedAtFourTokensAMessagePlusOneAThirdOfItsBytes) {
  // The documented reservation (docs/protocols.md, "Budget"): per message 4 + ceil(bytes / 3),
  // and at least 32 completion tokens must remain. A system prompt of 300 bytes makes the
  // rounding matter (300 / 3 exactly).
  const auto run = [](std::optional<std::int64_t> budget, ChatRequest* seen) {
    Harness h([](const ChatRequest&) { return reply("B"); });
    h.pool[0].system_prompt = std::string(300, 'x');
    h.pool[0].sampling.max_tokens = 500;
    const Transcript t = h.run("single", {}, budget);
    if (seen && !h.client->requests.empty()) *seen = h.client->requests[0];
    return t;
  };
  ChatRequest request;
  run(std::nullopt, &request);
  std::int64_t prompt = 0;
  for (const auto& m : request.messages) prompt += 4 + static_cast<std::int64_t>((m.content.size() + 2) / 3);
  ASSERT_EQ(request.messages.size(), 2u);
  EXPECT_EQ(request.messages[0].content.size(), 300u);

  const Transcript too_small = run(prompt + 31, nullptr);
  EXPECT_EQ(too_small.status, DebateStatus::kBudget);
  EXPECT_TRUE(too_small.messages.empty());
  const Transcript just_enough = run(prompt + 32, &request);
  EXPECT_EQ(just_enough.status, DebateStatus::kCompleted);
  ASSERT_EQ(just_enough.messages.size(), 1u);
  EXPECT_EQ(request.sampling.max_tokens, 32);  // the completion cap lowered to what is left
}

TEST(Budget, AReplysReportedUsageReplacesItsReservation) {
  Harness h([](const ChatRequest&) { return reply("B"); });
  Debate debate(h.setup("harness", /*budget=*/5000));
  const std::vector<ChatMessage> question = {ChatMessage{"user", "Which planet is largest?"}};
  const TurnInfo info;
  auto body = [&]() -> Async<void> { co_await debate.ask(h.pool[0], question, info); };
  h.loop.spawn(body());
  h.loop.run();
  const MessageRecord& call = debate.transcript().messages.at(0);
  ASSERT_GT(call.prompt_tokens, 0);
  ASSERT_GT(call.completion_tokens, 0);
  EXPECT_EQ(debate.budget_remaining(), 5000 - call.prompt_tokens - call.completion_tokens);
}

// One agent asked twice in turn: an answer, then a revision.
class AnswerThenRevise final : public Protocol {
 public:
  Async<std::optional<std::string>> run(Debate& debate) const override {
    const Agent agent = debate.agents(1).at(0);
    std::vector<ChatMessage> messages = {{"user", "Which planet is largest? A. Mars B. Jupiter C. Venus D. Earth"}};
    const TurnInfo answer;
    const Turn first = co_await debate.ask(agent, messages, answer);
    messages.push_back({"assistant", first.text});
    messages.push_back({"user", "Revise."});
    TurnInfo revise;
    revise.round = 1;
    revise.turn = "revise";
    const Turn second = co_await debate.ask(agent, messages, revise);
    co_return second.answer.value;
  }
};

TEST(Budget, SpentToExactlyZeroByACallHaltsTheNextWithoutAnOverrun) {
  // The budget is exactly what the first call reports using: nothing is over budget, and the
  // next call finds none left. The debate stops with status budget, answers with its vote, and
  // records the halt as its one event (docs/protocols.md, "Budget"); a budget one token smaller
  // is overrun by the first call, which is recorded as such.
  const auto run = [](std::optional<std::int64_t> budget) {
    Harness h([](const ChatRequest&) { return reply("B") + std::string(400, ' '); });
    const AnswerThenRevise protocol;
    return h.run_protocol(protocol, "two_asks", budget);
  };
  const Transcript unlimited = run(std::nullopt);
  ASSERT_EQ(unlimited.messages.size(), 2u);
  const std::int64_t first_call = unlimited.messages[0].prompt_tokens + unlimited.messages[0].completion_tokens;

  const Transcript spent = run(first_call);
  EXPECT_EQ(spent.status, DebateStatus::kBudget);
  ASSERT_EQ(spent.messages.size(), 1u);
  EXPECT_EQ(spent.prompt_tokens() + spent.completion_tokens(), first_call);
  EXPECT_EQ(spent.final_answer, "B");
  const std::string reason = "token budget of " + std::to_string(first_call) +
                             " spent or reserved before a1's revise turn in round 1";
  EXPECT_EQ(spent.status_reason, reason);
  ASSERT_EQ(spent.events.size(), 1u);
  EXPECT_EQ(spent.events[0].round, 0);
  EXPECT_EQ(spent.events[0].kind, "budget");
  EXPECT_EQ(spent.events[0].detail, reason);

  const Transcript overrun = run(first_call - 1);
  EXPECT_EQ(overrun.status, DebateStatus::kBudget);
  ASSERT_EQ(overrun.events.size(), 2u);
  EXPECT_EQ(overrun.events[0].kind, "budget_overrun");
  EXPECT_EQ(overrun.events[0].detail, "1 tokens over budget");
  EXPECT_EQ(overrun.events[1].kind, "budget");
}

TEST(BestOf, DraftsOfSampleSCarrySampleIndicesSTimesNPlusI) {
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.turn.rfind("judge", 0) == 0) return R"({"score": 3})";
    return reply("B");
  });
  h.best_of = 2;
  h.run("self_consistency", {{"samples", std::int64_t{3}}});
  std::multiset<int> samples;
  for (const auto& r : h.client->requests)
    if (r.note.turn == "sample") samples.insert(r.note.sample);
  EXPECT_EQ(samples, (std::multiset<int>{0, 1, 2, 3, 4, 5}));
}

TEST(Debate, EmbeddingCallsAreAnnotatedWithTheirRoundAndTheEmbedder) {
  Harness h([](const ChatRequest&) { return reply("B"); });
  h.client->embedding = [](const std::string&) -> std::variant<std::vector<double>, CallError> {
    return std::vector<double>{1.0, 0.0};
  };
  h.embedder = Embedder{"emb", h.client.get(), "embed-model"};
  h.client->attempts = 2;
  const Transcript t = h.run_with([](Debate& debate) -> Async<void> {
    std::vector<std::string> texts = {"one", "two"};
    std::string about = "a1, a2";
    co_await debate.embed(std::move(texts), 3, std::move(about));
  });
  ASSERT_EQ(h.client->embedding_requests.size(), 1u);
  const auto& note = h.client->embedding_requests[0].note;
  EXPECT_EQ(note.round, 3);
  EXPECT_EQ(note.agent, "emb");
  EXPECT_EQ(note.turn, "embedding");
  EXPECT_EQ(h.client->embedding_requests[0].model, "embed-model");
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_EQ(t.messages[0].round, 3);
  EXPECT_EQ(t.messages[0].role, "embedding");
  EXPECT_EQ(t.messages[0].attempts, 2);
}

TEST(Debate, ReaskCanBeDisabled) {
  Harness h([](const ChatRequest&) { return std::string("no idea"); });
  const Transcript t = h.run("single", {}, std::nullopt, /*reask=*/0);
  EXPECT_EQ(t.messages.size(), 1u);
  EXPECT_FALSE(t.final_answer.has_value());
  EXPECT_FALSE(t.correct);
  EXPECT_EQ(t.status, DebateStatus::kCompleted);
}

TEST(Budget, DebateStopsBeforeExceedingItAndVotesOnWhatItHas) {
  Harness h([](const ChatRequest& r) { return reply(r.note.agent == "a1" ? "B" : "A") + std::string(400, ' '); }, 3);
  // Each round-0 call costs ~ (prompt ~60) + (completion ~110) tokens; the budget allows the
  // initial answers and not a full revision round.
  const std::int64_t budget = 2600;
  const Transcript t = h.run("debate", {}, budget);
  EXPECT_EQ(t.status, DebateStatus::kBudget);
  EXPECT_LE(t.prompt_tokens() + t.completion_tokens(), budget);
  EXPECT_GE(t.messages.size(), 3u);
  EXPECT_LT(t.messages.size(), 9u);
  EXPECT_FALSE(t.status_reason.empty());
  EXPECT_EQ(t.final_answer, "A");  // a2 and a3 said A
}

TEST(Failure, FailedCallEndsTheDebateWithAReason) {
  Harness h(
      [](const ChatRequest& r) -> std::variant<std::string, CallError> {
        if (r.note.agent == "a2" && r.note.round == 1) {
          return CallError{CallErrorKind::kTimeout, 0, "no reply within 60 s", 5};
        }
        return reply("B");
      },
      3);
  const Transcript t = h.run("debate");
  EXPECT_EQ(t.status, DebateStatus::kFailed);
  EXPECT_NE(t.status_reason.find("a2"), std::string::npos);
  EXPECT_NE(t.status_reason.find("timeout"), std::string::npos);
  EXPECT_FALSE(t.final_answer.has_value());
  bool recorded = false;
  for (const auto& m : t.messages) recorded |= m.error.has_value() && m.attempts == 5;
  EXPECT_TRUE(recorded);
}

// A call cancelled because the run was stopped cuts the debate short: status kCancelled (never
// stored), not a failure of the debate.
TEST(Failure, CancelledCallCutsTheDebateShort) {
  Harness h(
      [](const ChatRequest& r) -> std::variant<std::string, CallError> {
        if (r.note.round == 1) return CallError{CallErrorKind::kCancelled, 0, "the run was stopped", 1};
        return reply("B");
      },
      3);
  const Transcript t = h.run("debate");
  EXPECT_EQ(t.status, DebateStatus::kCancelled);
  EXPECT_NE(t.status_reason.find("cancelled: the run was stopped"), std::string::npos) << t.status_reason;
  EXPECT_FALSE(t.final_answer.has_value());
}

TEST(Registry, NamesAreUniqueAndDefaultsAreWithinBounds) {
  std::set<std::string> names;
  for (const auto& info : protocol_registry()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    for (const auto& spec : info.params) {
      if (spec.check && !spec.required) {  // a required parameter's default is never used
        EXPECT_EQ(spec.check(spec.default_value), "") << info.name << "." << spec.name;
      }
      if (auto* v = std::get_if<std::int64_t>(&spec.default_value)) {
        if (spec.min) {
          EXPECT_GE(*v, *spec.min) << spec.name;
        }
        if (spec.max) {
          EXPECT_LE(*v, *spec.max) << spec.name;
        }
      }
    }
  }
  EXPECT_NE(find_protocol("debate"), nullptr);
  EXPECT_EQ(find_protocol("nope"), nullptr);
}

const ParamSpec& spec_of(const std::string& protocol, const std::string& param) {
  for (const auto& spec : find_protocol(protocol)->params)
    if (spec.name == param) return spec;
  ADD_FAILURE() << protocol << " has no parameter " << param;
  static const ParamSpec none;
  return none;
}

ParamValue default_of(const std::string& protocol, const std::string& param) {
  return spec_of(protocol, param).default_value;
}

TEST(Registry, DefaultsAreThePapersSettings) {
  // Protocols paper §2.2 / App. A: three agents, two rounds, best-of-2 on every turn.
  for (const char* name : {"ni", "wr", "cr", "ra_cr"}) {
    EXPECT_EQ(default_of(name, "agents"), ParamValue(std::int64_t{3})) << name;
    EXPECT_EQ(default_of(name, "rounds"), ParamValue(std::int64_t{2})) << name;
    EXPECT_EQ(find_protocol(name)->default_best_of, 2) << name;
    // Two agents can still interact; ni needs no peers at all.
    EXPECT_EQ(spec_of(name, "agents").min, std::string(name) == "ni" ? 1.0 : 2.0) << name;
  }
  EXPECT_EQ(default_of("ra_cr", "silence"), ParamValue(std::int64_t{1}));  // "silences one per round"
  EXPECT_EQ(default_of("ra_cr", "rank_bias"), ParamValue(2.0));             // ours: docs/protocols.md
  // Du et al.'s main setting; Wang et al. as the quickstart runs it; iMAD's MAD (5 rounds).
  EXPECT_EQ(default_of("debate", "agents"), ParamValue(std::int64_t{3}));
  EXPECT_EQ(default_of("debate", "rounds"), ParamValue(std::int64_t{2}));
  EXPECT_EQ(default_of("self_consistency", "samples"), ParamValue(std::int64_t{5}));
  EXPECT_EQ(default_of("mad", "max_rounds"), ParamValue(std::int64_t{5}));
  for (const char* name : {"single", "self_consistency", "debate", "mad", "group_debate"})
    EXPECT_EQ(find_protocol(name)->default_best_of, 1) << name;
}

}  // namespace
}  // namespace parley
