// What a turn is for the metrics: re-asks folded into their call, failed calls dropped,
// non-answer roles kept apart.
#include "metrics/turns.h"

#include <gtest/gtest.h>

namespace parley {
namespace {

MessageRecord call(int round, std::string agent, std::string role, std::optional<std::string> answer) {
  MessageRecord m;
  m.round = round;
  m.agent = std::move(agent);
  m.role = std::move(role);
  m.text = "reply of " + m.agent;
  m.answer = std::move(answer);
  return m;
}

MessageRecord failed(MessageRecord m) {
  m.error = "timeout: after 5 attempts";
  m.answer.reset();
  return m;
}

TEST(DebateTurns, AReaskReplacesItsOwnCallsReply) {
  Transcript t;
  MessageRecord reask = call(0, "a1", "reask", "C");
  reask.text = "Answer: C";
  reask.confidence = 0.7;
  // a2's call is issued between a1's call and its re-ask (parallel turns of one round).
  t.messages = {call(0, "a1", "answer", std::nullopt), call(0, "a2", "answer", "B"), reask};
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].agent, "a1");
  EXPECT_EQ(turns[0].role, "answer");
  EXPECT_EQ(turns[0].answer, "C");
  EXPECT_EQ(turns[0].text, "Answer: C");
  EXPECT_EQ(turns[0].confidence, 0.7);
  EXPECT_EQ(turns[1].answer, "B");
}

TEST(DebateTurns, FailedCallsAreNotTurnsAndAFailedReaskKeepsTheTurn) {
  Transcript t;
  t.messages = {call(0, "a1", "answer", std::nullopt), failed(call(0, "a1", "reask", std::nullopt)),
                failed(call(0, "a2", "answer", std::nullopt))};
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].agent, "a1");
  EXPECT_FALSE(turns[0].answer);
  EXPECT_EQ(turns[0].text, "reply of a1");
}

TEST(DebateTurns, RejectedDraftsAreNotTurnsNorTheTargetOfAReask) {
  // Best-of-2: draft 0 was kept (and re-asked after its reply), draft 1 was rejected.
  Transcript t;
  t.messages = {call(0, "a1", "answer", std::nullopt), call(0, "a1", "draft", "A"), call(0, "a1", "reask", "B")};
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].role, "answer");
  EXPECT_EQ(turns[0].answer, "B");
}

TEST(AgentTurns, AJudgesReaskStaysAJudgesTurn) {
  Transcript t;
  // The same agent debates, then judges in the same round; the re-ask follows the judge call.
  t.messages = {call(1, "a1", "revise", "A"), call(1, "a1", "judge", std::nullopt), call(1, "a1", "reask", "B"),
                call(1, "a2", "summary", "A")};
  const auto turns = agent_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].role, "revise");
  EXPECT_EQ(turns[0].answer, "A");
  EXPECT_EQ(debate_turns(t).size(), 3u);
  EXPECT_EQ(debate_turns(t)[1].answer, "B");
}

}  // namespace
}  // namespace parley
