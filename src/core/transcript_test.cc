// The transcript's rules: which calls are an agent's own answer; debate status names; the
// critical-path latency.
#include <gtest/gtest.h>

#include <utility>

#include "parley/transcript.h"

namespace parley {
namespace {

TEST(IsAgentAnswerRole, JudgesModeratorsAndSummariesAreNotAnswers) {
  for (const char* role : {"answer", "revise", "sample", "reask", "critique"})
    EXPECT_TRUE(is_agent_answer_role(role)) << role;
  for (const char* role : {"judge", "judge_rank", "moderator", "summary", "summary_group2"})
    EXPECT_FALSE(is_agent_answer_role(role)) << role;
  EXPECT_TRUE(is_agent_answer_role("adjudge"));  // a prefix, not a substring
}

TEST(DebateStatus, NamesRoundTripExceptCancelledWhichIsNeverStored) {
  for (DebateStatus status : {DebateStatus::kCompleted, DebateStatus::kBudget, DebateStatus::kFailed})
    EXPECT_EQ(parse_debate_status(debate_status_name(status)), status) << debate_status_name(status);
  EXPECT_STREQ(debate_status_name(DebateStatus::kCancelled), "cancelled");
  EXPECT_EQ(parse_debate_status("cancelled"), std::nullopt);
}

TEST(TranscriptLatency, SumsEachAgentsCallsInARoundAndTakesEachRoundsSlowestAgent) {
  Transcript t;
  auto call = [&](int round, const char* agent, double ms) {
    MessageRecord m;
    m.round = round;
    m.agent = agent;
    m.latency_ms = ms;
    t.messages.push_back(m);
  };
  // Worked by hand: round 0 a1 100 + 50 (a re-ask) = 150 against a10 120 -> 150; round 1
  // a10 30 + 20 = 50 against a1 40 -> 50; round 2 (recorded first) a3 7 -> 7. Total 207.
  call(2, "a3", 7);
  call(0, "a1", 100);
  call(0, "a10", 120);
  call(1, "a10", 30);
  call(0, "a1", 50);
  call(1, "a1", 40);
  call(1, "a10", 20);
  EXPECT_DOUBLE_EQ(t.latency_ms(), 207.0);
  EXPECT_DOUBLE_EQ(Transcript().latency_ms(), 0.0);
}

TEST(TranscriptTokens, PromptAndCompletionTokensAreSummedOverEveryCall) {
  Transcript t;
  for (const auto& [prompt, completion] : {std::pair{10, 3}, std::pair{20, 5}, std::pair{7, 0}}) {
    MessageRecord m;
    m.prompt_tokens = prompt;
    m.completion_tokens = completion;
    t.messages.push_back(m);
  }
  EXPECT_EQ(t.prompt_tokens(), 37);
  EXPECT_EQ(t.completion_tokens(), 8);
  EXPECT_EQ(Transcript().prompt_tokens(), 0);
}

// Calls 0 (a1), 1 (a2), 2 (a1, extends 0), 3 (a1, extends 2), each prompt its own words.
Transcript conversation() {
  Transcript t;
  auto call = [&](const char* agent, std::optional<int> extends, std::vector<ChatMessage> prompt) {
    MessageRecord m;
    m.id = static_cast<int>(t.messages.size());
    m.agent = agent;
    m.prompt_extends = extends;
    m.prompt = std::move(prompt);
    t.messages.push_back(std::move(m));
  };
  call("a1", std::nullopt, {{"system", "S"}, {"user", "Q"}});
  call("a2", std::nullopt, {{"user", "Q"}});
  call("a1", 0, {{"assistant", "A0"}, {"user", "peers"}});
  call("a1", 2, {{"assistant", "A1"}, {"user", "peers again"}});
  return t;
}

std::string joined(const std::vector<ChatMessage>& prompt) {
  std::string out;
  for (const auto& m : prompt) out += m.role + "=" + m.content.str() + ";";
  return out;
}

TEST(RebuildPrompt, FollowsTheChainOldestFirst) {
  const Transcript t = conversation();
  EXPECT_EQ(joined(*rebuild_prompt(t, 0)), "system=S;user=Q;");
  EXPECT_EQ(joined(*rebuild_prompt(t, 1)), "user=Q;");
  EXPECT_EQ(joined(*rebuild_prompt(t, 3)), "system=S;user=Q;assistant=A0;user=peers;assistant=A1;user=peers again;");
  EXPECT_TRUE(has_prompts(t));
}

TEST(RebuildPrompt, DanglingCyclicAndMissingLinksAreErrorsNamingTheCall) {
  auto message_of = [](const Transcript& t, int id) {
    auto r = rebuild_prompt(t, id);
    EXPECT_FALSE(r);
    return r ? std::string() : r.error().message;
  };
  Transcript t = conversation();
  t.messages[2].prompt_extends = 9;
  EXPECT_EQ(message_of(t, 3), "call 2's prompt_extends names call 9, which is not in the transcript");
  t.messages[2].prompt_extends = -1;
  EXPECT_EQ(message_of(t, 2), "call 2's prompt_extends names call -1, which is not in the transcript");
  t.messages[2].prompt_extends = 3;  // 2 -> 3 -> 2 -> ...
  EXPECT_EQ(message_of(t, 3), "call 2's prompt_extends names call 3, which is not an earlier call (a cycle)");
  t.messages[2].prompt_extends = 2;
  EXPECT_EQ(message_of(t, 2), "call 2's prompt_extends names call 2, which is not an earlier call (a cycle)");
  t.messages[2].prompt_extends = 1;  // a2's call: another agent's conversation
  EXPECT_EQ(message_of(t, 3), "call 2's prompt_extends names call 1, which is a2's, not a1's");
  t = conversation();
  t.messages[0].prompt.reset();
  EXPECT_EQ(message_of(t, 3), "call 0 has no stored prompt");
  EXPECT_FALSE(has_prompts(t));
  t.messages[0].role = "embedding";  // embeddings have none, and need none
  EXPECT_TRUE(has_prompts(t));
  EXPECT_EQ(message_of(t, 4), "no call 4 in the transcript");
  EXPECT_EQ(message_of(t, -1), "no call -1 in the transcript");
  t.messages[1].id = 7;  // ids are positions
  EXPECT_EQ(message_of(t, 1), "no call 1 in the transcript");
}

}  // namespace
}  // namespace parley
