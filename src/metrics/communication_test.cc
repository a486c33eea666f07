// NComm (SVR-MAD §5): pairwise context transfers counted on hand-made transcripts.
#include <gtest/gtest.h>

#include "parley/metrics.h"

namespace parley {
namespace {

MessageRecord call(int round, std::string agent, std::vector<std::string> shown, std::string role = "revise") {
  MessageRecord m;
  m.round = round;
  m.agent = std::move(agent);
  m.role = std::move(role);
  m.shown = std::move(shown);
  return m;
}

TEST(Communications, AllToAllDebateIsNTimesNMinusOnePerRound) {
  // Du et al. with 3 agents and 2 rounds: round 0 is independent; in each of rounds 1 and 2
  // every agent reads the two others: 2 rounds × 3 receivers × 2 senders = 12.
  Transcript t;
  for (const char* agent : {"a1", "a2", "a3"}) t.messages.push_back(call(0, agent, {}, "answer"));
  for (int round = 1; round <= 2; ++round) {
    t.messages.push_back(call(round, "a1", {"a2", "a3"}));
    t.messages.push_back(call(round, "a2", {"a1", "a3"}));
    t.messages.push_back(call(round, "a3", {"a1", "a2"}));
  }
  EXPECT_EQ(communications(t), 12);
}

TEST(Communications, ReasksFailedCallsSelfAndRepeatsAddNothing) {
  Transcript t;
  MessageRecord failed = call(1, "a3", {"a1", "a2"});
  failed.error = "timeout";
  MessageRecord reask = call(1, "a1", {"a2", "a3"}, "reask");
  reask.repeats = 0;
  MessageRecord judge_reask = call(2, "judge", {"a1", "a2"}, "judge_mad_reask");
  judge_reask.repeats = 4;
  t.messages = {
      call(1, "a1", {"a2", "a3"}),                // 2
      reask,                                      // part of a1's turn: 0
      call(1, "a2", {"a1", "a1", "a2"}),          // a1 once, itself not: 1
      failed,                                     // never delivered: 0
      call(2, "judge", {"a1", "a2"}, "judge_mad"),  // a judge reading two agents: 2
      judge_reask,                                // the judge's re-ask reads nothing new: 0
  };
  for (std::size_t i = 0; i < t.messages.size(); ++i) t.messages[i].id = static_cast<int>(i);
  EXPECT_EQ(communications(t), 5);
  EXPECT_EQ(communications(Transcript{}), 0);
}

}  // namespace
}  // namespace parley
