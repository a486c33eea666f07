// What a turn is for the metrics: re-asks folded into their call, failed calls dropped,
// non-answer roles kept apart.
#include "metrics/turns.h"

#include <gtest/gtest.h>

#include "transcript_support.h"

namespace parley {
namespace {

using testing::numbered;
using testing::reask_of;

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
  m.text.clear();  // a failed call has no reply
  m.answer.reset();
  return m;
}

TEST(DebateTurns, AReaskReplacesItsOwnCallsReply) {
  Transcript t;
  MessageRecord reask = call(0, "a1", "reask", "C");
  reask.text = "Answer: C";
  reask.confidence = 0.7;
  // a2's call is issued between a1's call and its re-ask (parallel turns of one round).
  t.messages = numbered({call(0, "a1", "answer", std::nullopt), call(0, "a2", "answer", "B"), reask_of(0, reask)});
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
  t.messages = numbered({call(0, "a1", "answer", std::nullopt), reask_of(0, failed(call(0, "a1", "reask", std::nullopt))),
                         failed(call(0, "a2", "answer", std::nullopt))});
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].agent, "a1");
  EXPECT_FALSE(turns[0].answer);
  EXPECT_EQ(turns[0].text, "reply of a1");
}

TEST(DebateTurns, RejectedDraftsAreNotTurnsNorTheTargetOfAReask) {
  // Best-of-2: draft 0 was kept (and re-asked after its reply), draft 1 was rejected.
  Transcript t;
  t.messages = numbered({call(0, "a1", "answer", std::nullopt), call(0, "a1", "draft", "A"),
                         reask_of(0, call(0, "a1", "reask", "B"))});
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].role, "answer");
  EXPECT_EQ(turns[0].answer, "B");
}

TEST(DebateTurns, AReaskOfACallThatIsNoTurnIsNoTurnEither) {
  // A re-ask naming a rejected draft (a transcript whose re-ask kept its role) adds nothing.
  Transcript t;
  t.messages = numbered({call(0, "a1", "draft", std::nullopt), reask_of(0, call(0, "a1", "reask", "B")),
                         call(0, "a2", "answer", "C")});
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].agent, "a2");
}

TEST(AgentTurns, AJudgesReaskStaysAJudgesTurn) {
  Transcript t;
  // The same agent debates, then judges in the same round; the re-ask follows the judge call.
  t.messages = numbered({call(1, "a1", "revise", "A"), call(1, "a1", "judge", std::nullopt),
                         reask_of(1, call(1, "a1", "judge_reask", "B")), call(1, "a2", "summary", "A")});
  const auto turns = agent_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].role, "revise");
  EXPECT_EQ(turns[0].answer, "A");
  EXPECT_EQ(debate_turns(t).size(), 3u);
  EXPECT_EQ(debate_turns(t)[1].answer, "B");
}

TEST(DebateTurns, ADebatersReaskIsNotFoldedIntoAJudgeOfTheSameNameAndRound) {
  // cr with the default judge being a debater: a1's draft is unparsed, the judge (also "a1")
  // is called in the same round before a1's re-ask comes back. The re-ask names call 0.
  Transcript t;
  t.messages = numbered({call(1, "a1", "revise", std::nullopt), call(1, "a1", "judge_score", std::nullopt),
                         reask_of(0, call(1, "a1", "reask", "C"))});
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].role, "revise");
  EXPECT_EQ(turns[0].answer, "C");
  EXPECT_EQ(turns[1].role, "judge_score");
  EXPECT_FALSE(turns[1].answer);
}

TEST(DebateTurns, SamplesOfOneAgentInOneRoundKeepTheirOwnReasks) {
  // Self-consistency: three samples of a1 in round 0, issued together; sample 0's reply is
  // unparsed and its re-ask is issued after sample 2's call.
  Transcript t;
  t.messages = numbered({call(0, "a1", "sample", std::nullopt), call(0, "a1", "sample", "A"),
                         call(0, "a1", "sample", "B"), reask_of(0, call(0, "a1", "reask", "D"))});
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 3u);
  EXPECT_EQ(turns[0].answer, "D");
  EXPECT_EQ(turns[1].answer, "A");
  EXPECT_EQ(turns[2].answer, "B");
}

TEST(DebateTurns, AStructuredReaskChainFoldsIntoItsFirstCall) {
  // A judge verdict re-asked twice (both name the first call): one turn, the last reply's text.
  Transcript t;
  MessageRecord last = reask_of(0, call(2, "j1", "judge_mad_reask", std::nullopt));
  last.text = "{\"Preference\": \"Yes\"}";
  t.messages = numbered({call(2, "j1", "judge_mad", std::nullopt), reask_of(0, call(2, "j1", "judge_mad_reask", std::nullopt)),
                         last});
  const auto turns = debate_turns(t);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0].role, "judge_mad");
  EXPECT_EQ(turns[0].text, last.text);
}

}  // namespace
}  // namespace parley
