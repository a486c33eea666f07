// The transcript's rules: which calls are an agent's own answer; debate status names.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace parley
