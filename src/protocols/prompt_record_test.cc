// What each call was sent is stored in its record (MessageRecord::prompt_extends, prompt) and
// rebuilt exactly: for a scripted three-agent, three-round debate (in issue order, with the
// append-only links it should find), with re-asks, with judges, and for every registered
// protocol on the simulator (re-asks, best-of drafts, budgets), the rebuilt prompt of every
// call is what the client received.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "llm/simulator_params.h"
#include "parley/simulator.h"
#include "parley/store.h"
#include "protocol_harness.h"
#include "protocols/simulated_runs.h"

namespace parley {
namespace {

using testing::Harness;
using testing::reply;

// A prompt as comparable text: "role: content" per message, one after another.
std::string flat(const std::vector<ChatMessage>& messages) {
  std::string out;
  for (const ChatMessage& m : messages) out += m.role + ": " + m.content.str() + "\n\x1f";
  return out;
}

// A call's place in the debate as both sides record it: agent and round (not the turn: a best-of
// draft the judges did not keep is relabelled "draft" after it was sent as its turn). A prompt
// rebuilt onto the wrong round or agent fails; one agent's calls of a round (samples, drafts, a
// re-ask and its turn) are matched as a multiset.
std::string call_key(const std::string& agent, int round) { return agent + " / " + std::to_string(round); }

// The prompts of the transcript's calls (but embeddings), rebuilt, by call, as a multiset; and
// the same of what the client received. A failure to rebuild is a test failure.
std::multiset<std::pair<std::string, std::string>> rebuilt_prompts(const Transcript& t) {
  std::multiset<std::pair<std::string, std::string>> out;
  for (const MessageRecord& m : t.messages) {
    if (m.role == "embedding") {
      EXPECT_FALSE(m.prompt) << "an embedding call stores no prompt";
      continue;
    }
    auto prompt = rebuild_prompt(t, m.id);
    if (!prompt) {
      ADD_FAILURE() << prompt.error().message;
      continue;
    }
    out.emplace(call_key(m.agent, m.round), flat(*prompt));
  }
  return out;
}

std::multiset<std::pair<std::string, std::string>> received(const std::vector<ChatRequest>& requests) {
  std::multiset<std::pair<std::string, std::string>> out;
  for (const ChatRequest& r : requests) out.emplace(call_key(r.note.agent, r.note.round), flat(r.messages));
  return out;
}

// Each stored link is to the same agent's most recent earlier call whose prompt is a prefix.
void expect_links_are_the_latest_prefix(const Transcript& t) {
  for (const MessageRecord& m : t.messages) {
    if (!m.prompt) continue;
    const std::string mine = flat(*rebuild_prompt(t, m.id));
    std::optional<int> expected;
    for (int earlier = m.id - 1; earlier >= 0 && !expected; --earlier) {
      const MessageRecord& e = t.messages[static_cast<std::size_t>(earlier)];
      if (e.agent != m.agent || !e.prompt) continue;
      if (mine.starts_with(flat(*rebuild_prompt(t, earlier)))) expected = earlier;
    }
    EXPECT_EQ(m.prompt_extends, expected) << "call " << m.id;
  }
}

TEST(PromptRecord, ADebateOfThreeAgentsAndThreeRoundsRebuildsEveryPromptInIssueOrder) {
  Harness h([](const ChatRequest& r) { return reply(r.note.agent == "a3" && r.note.round == 0 ? "C" : "B"); }, 3);
  h.pool[0].system_prompt = "You are careful.";
  const Transcript t = h.run("debate", {{"agents", std::int64_t{3}}, {"rounds", std::int64_t{2}}});
  ASSERT_EQ(t.status, DebateStatus::kCompleted);
  ASSERT_EQ(t.messages.size(), 9u);
  ASSERT_EQ(h.client->requests.size(), 9u);
  // The client is called in issue order here (one loop turn per reply), so call i is request i.
  for (std::size_t i = 0; i < t.messages.size(); ++i) {
    const MessageRecord& m = t.messages[i];
    ASSERT_EQ(m.agent, h.client->requests[i].note.agent);
    auto prompt = rebuild_prompt(t, m.id);
    ASSERT_TRUE(prompt) << prompt.error().message;
    EXPECT_EQ(flat(*prompt), flat(h.client->requests[i].messages)) << "call " << i;
  }
  // Round 0 extends nothing; each later round extends the agent's previous round and stores only
  // what it adds (its own reply and the peers' solutions).
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_FALSE(t.messages[i].prompt_extends);
    EXPECT_EQ(t.messages[i].prompt->size(), h.client->requests[i].messages.size());
  }
  for (std::size_t i = 3; i < 9; ++i) {
    ASSERT_TRUE(t.messages[i].prompt_extends) << i;
    EXPECT_EQ(*t.messages[i].prompt_extends, static_cast<int>(i) - 3);
    EXPECT_EQ(t.messages[i].prompt->size(), 2u) << "the reply and the peers' solutions";
  }
  EXPECT_EQ(t.messages[0].prompt->front().role, "system");
  EXPECT_EQ(t.messages[0].prompt->front().content.str(), "You are careful.");
  expect_links_are_the_latest_prefix(t);
  EXPECT_TRUE(has_prompts(t));
}

TEST(PromptRecord, ReAsksAndJudgesRebuildToWhatTheClientReceived) {
  // a2's first round-1 reply is unparsable (re-asked); best-of-2 drafts bring judges in, whose
  // replies are never valid JSON, so each judge call is re-asked too.
  int a2_revisions = 0;
  Harness h(
      [&](const ChatRequest& r) -> std::variant<std::string, CallError> {
        if (r.note.agent.starts_with("j")) return std::string("no verdict");
        if (r.note.agent == "a2" && r.note.round == 1 && r.note.turn == "revise" && a2_revisions++ == 0)
          return std::string("I am not sure.");
        return reply("B");
      },
      3, 1);
  h.best_of = 2;
  h.best_of_jitter = 0.0;
  const Transcript t = h.run("debate", {{"agents", std::int64_t{3}}, {"rounds", std::int64_t{2}}});
  ASSERT_EQ(t.status, DebateStatus::kCompleted) << t.status_reason;
  int reasks = 0, judge_calls = 0, judge_reasks = 0;
  for (const MessageRecord& m : t.messages) {
    reasks += m.role == "reask";
    judge_calls += m.role.starts_with("judge");
    judge_reasks += m.role.starts_with("judge") && m.repeats.has_value();
  }
  EXPECT_GT(reasks, 0);
  EXPECT_GT(judge_calls, 0);
  EXPECT_GT(judge_reasks, 0);
  EXPECT_EQ(rebuilt_prompts(t), received(h.client->requests));
  // A re-ask extends the call it repeats: its prompt adds the failed reply and the request again.
  for (const MessageRecord& m : t.messages) {
    if (m.role != "reask") continue;
    ASSERT_TRUE(m.prompt_extends);
    EXPECT_EQ(m.prompt->size(), 2u);
    EXPECT_EQ(m.prompt->front().role, "assistant");
  }
  expect_links_are_the_latest_prefix(t);
}

TEST(PromptRecord, EveryProtocolOnTheSimulatorRebuildsEveryPrompt) {
  SimulatorParams sim = *default_simulator_params();
  sim.format_error_rate = 0.3;  // frequent re-asks
  const std::string trigger_model = simulated::bundled_trigger_model(PARLEY_SOURCE_DIR);
  const std::vector<simulated::RunSetting> settings = {{1, std::nullopt}, {2, std::nullopt}, {2, std::nullopt, 0.0},
                                                       {1, 2500}, {1, std::nullopt, kPaperBestOfJitter, 1}};
  int calls = 0, extending = 0;
  for (const ProtocolInfo& info : protocol_registry()) {
    const ProtocolParams params = simulated::default_params(info, trigger_model);
    const auto protocol = info.make(params);
    for (const auto& setting : settings) {
      for (int task_index = 0; task_index < 4; ++task_index) {
        EventLoop loop;
        simulated::RecordingSimulator client(loop, sim, simulated::Completion::kScrambled,
                                             static_cast<std::uint64_t>(task_index), true);
        const Transcript t = simulated::run_on(client, loop, info, params, *protocol, simulated::generated_task(task_index),
                                               40 + static_cast<std::uint64_t>(task_index), setting);
        std::vector<ChatRequest> requests;
        for (const auto& exchange : client.chats) requests.push_back(exchange.request);
        EXPECT_EQ(rebuilt_prompts(t), received(requests)) << info.name << ", task " << task_index;
        // The same after a trip through the stored JSON.
        auto stored = transcript_from_json(transcript_to_json(t));
        ASSERT_TRUE(stored) << stored.error().message;
        EXPECT_EQ(rebuilt_prompts(*stored), received(requests)) << info.name << ", stored";
        for (const MessageRecord& m : t.messages) {
          calls += m.prompt.has_value();
          extending += m.prompt_extends.has_value();
        }
      }
    }
  }
  EXPECT_GT(calls, 1000);
  EXPECT_GT(extending, calls / 3);  // most calls continue a conversation
}

}  // namespace
}  // namespace parley
