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

}  // namespace
}  // namespace parley
