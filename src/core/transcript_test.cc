// The transcript's one rule on roles: which calls are an agent's own answer.
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

}  // namespace
}  // namespace parley
