// NI, CR, WR and RA-CR on scripted replies: turn order, who saw which outputs in which round,
// which agent RA-CR silenced and why.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using testing::reply;

// Agent k answers option k in round 0 (a1 → A, a2 → B, a3 → C) and B afterwards.
std::string agent_reply(const ChatRequest& r) {
  if (r.note.round > 0) return reply("B");
  return reply(std::string(1, static_cast<char>('A' + (r.note.agent.back() - '1'))));
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

// The "order" event of each round.
std::vector<std::vector<std::string>> orders(const Transcript& t) {
  std::vector<std::vector<std::string>> out;
  for (const auto& e : t.events)
    if (e.kind == "order") out.push_back(split(e.detail));
  return out;
}

std::vector<std::string> shown_agents(const ChatRequest& r) {
  std::vector<std::string> out;
  for (const auto& s : r.note.shown) out.push_back(s.agent);
  return out;
}

TEST(WithinRound, EachTurnSeesOnlyThePeersWhoSpokeBeforeItInTheSameRound) {
  Harness h(agent_reply, 3);
  const Transcript t = h.run("wr");
  ASSERT_EQ(h.client->requests.size(), 6u);
  const auto order = orders(t);
  ASSERT_EQ(order.size(), 2u);
  for (int round = 0; round < 2; ++round) {
    for (std::size_t k = 0; k < 3; ++k) {
      // Requests are issued one after another in the round's order.
      const ChatRequest& r = h.client->requests[static_cast<std::size_t>(round) * 3 + k];
      const auto& turns = order[static_cast<std::size_t>(round)];
      EXPECT_EQ(r.note.agent, turns[k]);
      EXPECT_EQ(r.note.turn, round == 0 ? "answer" : "revise");
      const std::vector<std::string> earlier(turns.begin(), turns.begin() + static_cast<std::ptrdiff_t>(k));
      EXPECT_EQ(shown_agents(r), earlier) << "round " << round << " turn " << k;
      // What is shown is this round's output: round 1's replies all say B.
      for (const auto& peer : r.note.shown) {
        const std::string round0(1, static_cast<char>('A' + (peer.agent.back() - '1')));
        EXPECT_EQ(peer.answer, round == 0 ? round0 : "B") << peer.agent;
      }
    }
  }
  // Round 0: the first speaker gets the plain task prompt; later ones read the earlier replies.
  for (std::size_t k = 0; k < 3; ++k) {
    const bool mentions_peers =
        h.client->requests[k].messages.back().content.str().find("already answered in this round") != std::string::npos;
    EXPECT_EQ(mentions_peers, k > 0);
  }
  // Round 1's first speaker sees no peer: it reconsiders its own solution, as in NI.
  EXPECT_TRUE(h.client->requests[3].note.shown.empty());
  EXPECT_EQ(t.final_answer, "B");
}

TEST(CrossRound, TurnsSeeOnlyThePreviousRound) {
  Harness h(agent_reply, 3);
  const Transcript t = h.run("cr", {{"rounds", std::int64_t{3}}});
  ASSERT_EQ(h.client->requests.size(), 9u);
  for (const auto& r : h.client->requests) {
    if (r.note.round == 0) {
      EXPECT_TRUE(r.note.shown.empty());
      continue;
    }
    ASSERT_EQ(r.note.shown.size(), 2u) << r.note.agent;
    for (const auto& peer : r.note.shown) {
      EXPECT_NE(peer.agent, r.note.agent);
      // In round 1 the peers' round-0 answers, in round 2 their round-1 answers (B).
      const std::string round0(1, static_cast<char>('A' + (peer.agent.back() - '1')));
      EXPECT_EQ(peer.answer, r.note.round == 1 ? round0 : "B");
    }
  }
  // Requests of a round are issued in that round's order.
  const auto order = orders(t);
  for (int round = 0; round < 3; ++round)
    for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(h.client->requests[round * 3 + k].note.agent, order[round][k]);
  for (const auto& m : t.messages) {
    if (m.round == 1 && m.agent == "a1") {
      EXPECT_EQ(m.shown.size(), 2u);
    }
  }
}

TEST(NoInteraction, AgentsSeeOnlyTheirOwnEarlierTurns) {
  Harness h(agent_reply, 3);
  const Transcript t = h.run("ni");
  ASSERT_EQ(h.client->requests.size(), 6u);
  for (const auto& r : h.client->requests) {
    EXPECT_TRUE(r.note.shown.empty());
    if (r.note.round == 1) {
      ASSERT_EQ(r.messages.size(), 3u);  // task, own reply, reconsider
      EXPECT_EQ(r.messages[1].role, "assistant");
      EXPECT_NE(r.messages[2].content.str().find("Reconsider your previous solution"), std::string::npos);
      for (const char* peer : {"a1's solution", "a2's solution", "a3's solution"})
        EXPECT_EQ(r.messages[2].content.str().find(peer), std::string::npos);
    }
  }
  EXPECT_EQ(t.final_answer, "B");
}

TEST(TurnOrder, IsShuffledPerRound) {
  Harness h(agent_reply, 3);
  const Transcript t = h.run("cr", {{"rounds", std::int64_t{8}}});
  std::set<std::vector<std::string>> distinct;
  for (const auto& o : orders(t)) {
    EXPECT_EQ(std::set<std::string>(o.begin(), o.end()), (std::set<std::string>{"a1", "a2", "a3"}));
    distinct.insert(o);
  }
  EXPECT_GT(distinct.size(), 1u);
}

// A judge scoring a3's answers lowest (C: 1, A: 3, B: 5 on the Likert scale).
std::string ranking_judge(const ChatRequest& r) {
  if (r.note.turn.rfind("judge", 0) == 0) {
    const std::string& answer = r.note.shown.at(0).answer;
    return answer == "B" ? R"({"score": 5})" : answer == "A" ? R"({"score": 3})" : R"({"score": 1})";
  }
  return agent_reply(r);
}

TEST(RankAdaptiveCrossRound, JudgeScoresThePreviousRoundAndTheLowestIsSilenced) {
  Harness h(ranking_judge, 3, 1);
  const Transcript t = h.run("ra_cr", {{"rank_bias", 50.0}});
  // Round 0: three turns. Then j1 scores the three round-0 outputs (recorded in round 0).
  std::map<int, std::set<std::string>> speakers;
  int judge_calls = 0;
  for (const auto& m : t.messages) {
    if (m.role == "judge_score") {
      ++judge_calls;
      EXPECT_EQ(m.round, 0);
      EXPECT_EQ(m.agent, "j1");
    } else {
      speakers[m.round].insert(m.agent);
    }
  }
  EXPECT_EQ(judge_calls, 3);
  EXPECT_EQ(speakers[0], (std::set<std::string>{"a1", "a2", "a3"}));
  EXPECT_EQ(speakers[1], (std::set<std::string>{"a1", "a2"}));  // a3 (score 0) is silenced
  bool silenced_event = false, ranking_event = false;
  for (const auto& e : t.events) {
    silenced_event |= e.kind == "silenced" && e.round == 1 && e.detail == "a3";
    ranking_event |= e.kind == "ranking" && e.detail == R"({"a1":0.5,"a2":1,"a3":0})";
  }
  EXPECT_TRUE(silenced_event);
  EXPECT_TRUE(ranking_event);
  // With a strong rank bias the order follows the scores: a2 (1.0) before a1 (0.5).
  EXPECT_EQ(orders(t)[1], (std::vector<std::string>{"a2", "a1"}));
  // Round 1 sees round 0 only: a2 sees a1 and a3 (even though a3 is silenced now).
  for (const auto& r : h.client->requests) {
    if (r.note.round == 1 && r.note.agent == "a2") {
      EXPECT_EQ(shown_agents(r).size(), 2u);
    }
  }
  EXPECT_EQ(t.final_answer, "B");  // a1, a2 say B in round 1; a3 keeps C
}

TEST(RankAdaptiveCrossRound, AnAgentSilencedLastRoundHasNoScoreAndIsNotSilencedAgainOnAnOldOne) {
  // Round 0: a1 A (0.5), a2 B (1), a3 C (0) → a3 silenced in round 1. Round 1: a1 and a2 say B
  // (1 each), a3 wrote nothing: it is unranked in round 2 and speaks; one of a1, a2 (tied,
  // the one sampled later) is silenced instead.
  Harness h(ranking_judge, 3, 1);
  const Transcript t = h.run("ra_cr", {{"rank_bias", 50.0}, {"rounds", std::int64_t{3}}});
  std::map<int, std::set<std::string>> speakers;
  for (const auto& m : t.messages)
    if (m.role.rfind("judge", 0) != 0) speakers[m.round].insert(m.agent);
  EXPECT_EQ(speakers[1], (std::set<std::string>{"a1", "a2"}));
  ASSERT_EQ(speakers[2].size(), 2u);
  EXPECT_TRUE(speakers[2].count("a3"));
  std::vector<std::string> rankings, silenced;
  for (const auto& e : t.events) {
    if (e.kind == "ranking") rankings.push_back(e.detail);
    if (e.kind == "silenced") silenced.push_back(e.detail);
  }
  ASSERT_EQ(rankings.size(), 2u);
  EXPECT_EQ(rankings[1], R"({"a1":1,"a2":1,"a3":null})");
  ASSERT_EQ(silenced.size(), 2u);
  EXPECT_EQ(silenced[0], "a3");
  EXPECT_NE(silenced[1], "a3");
}

// How often each order of round 1 is sampled over `debates` seeds (ra_cr, no silencing).
std::map<std::string, int> round1_orders(const testing::ScriptedClient::Script& script, int debates) {
  std::map<std::string, int> counts;
  for (int seed = 1; seed <= debates; ++seed) {
    Harness h(script, 3, 1);
    h.seed = static_cast<std::uint64_t>(seed);
    h.judging.reasks = 0;
    const Transcript t = h.run("ra_cr", {{"silence", std::int64_t{0}}});
    for (const auto& e : t.events)
      if (e.kind == "order" && e.round == 1) ++counts[e.detail];
  }
  return counts;
}

TEST(RankAdaptiveCrossRound, OrdersAreSampledByPlackettLuceOnExpOfRankBiasTimesScore) {
  // Scores a1 0.5, a2 1, a3 0 with rank_bias 2: weights e, e², 1. Plackett–Luce gives, by
  // hand, P(a2,a1,a3) = e²/(1+e+e²) · e/(1+e) = 0.4863, P(a1,a2,a3) = 0.2156,
  // P(a2,a3,a1) = 0.1789, P(a3,a2,a1) = 0.0658, P(a1,a3,a2) = 0.0292, P(a3,a1,a2) = 0.0242.
  // Over 3000 seeds each frequency lies within 4 binomial standard deviations.
  constexpr int kDebates = 3000;
  const auto counts = round1_orders(ranking_judge, kDebates);
  const std::map<std::string, double> expected = {{"a2,a1,a3", 0.4863}, {"a1,a2,a3", 0.2156}, {"a2,a3,a1", 0.1789},
                                                   {"a3,a2,a1", 0.0658}, {"a1,a3,a2", 0.0292}, {"a3,a1,a2", 0.0242}};
  for (const auto& [order, p] : expected) {
    const double seen = counts.count(order) ? counts.at(order) / static_cast<double>(kDebates) : 0.0;
    EXPECT_NEAR(seen, p, 4 * std::sqrt(p * (1 - p) / kDebates)) << order;
  }
}

TEST(RankAdaptiveCrossRound, AnAgentNoJudgeCouldScoreWeighsAsAScoreOfOneHalf) {
  // a3's verdicts are malformed (no re-ask): it is unscored and weighs exp(2 · 0.5) = e beside
  // a1's e and a2's e², so it opens round 1 with probability e / (2e + e²) = 0.2119.
  const auto script = [](const ChatRequest& r) -> std::string {
    if (r.note.turn.rfind("judge", 0) == 0 && r.note.shown.at(0).answer == "C") return "It is fine.";
    return ranking_judge(r);
  };
  constexpr int kDebates = 3000;
  int a3_first = 0;
  for (const auto& [order, count] : round1_orders(script, kDebates))
    if (order.rfind("a3,", 0) == 0) a3_first += count;
  const double p = 0.2119;
  EXPECT_NEAR(a3_first / static_cast<double>(kDebates), p, 4 * std::sqrt(p * (1 - p) / kDebates));
}

TEST(RankAdaptiveCrossRound, SilencingMoreAgentsThanThereAreLeavesOneSpeaker) {
  Harness h(ranking_judge, 3, 1);
  const Transcript t = h.run("ra_cr", {{"silence", std::int64_t{5}}});
  std::set<std::string> round1;
  for (const auto& m : t.messages)
    if (m.round == 1 && m.role.rfind("judge", 0) != 0) round1.insert(m.agent);
  EXPECT_EQ(round1, (std::set<std::string>{"a2"}));  // the best-scored speaks
}

TEST(RankAdaptiveCrossRound, SilencingCanBeTurnedOff) {
  Harness h(ranking_judge, 3, 1);
  const Transcript t = h.run("ra_cr", {{"silence", std::int64_t{0}}});
  int round1 = 0;
  for (const auto& m : t.messages) round1 += m.round == 1 && m.role.rfind("judge", 0) != 0;
  EXPECT_EQ(round1, 3);
  for (const auto& e : t.events) EXPECT_NE(e.kind, "silenced");
}

TEST(RankAdaptiveCrossRound, NoValidVerdictMeansNoSilencing) {
  Harness h([](const ChatRequest& r) -> std::string {
    if (r.note.turn.rfind("judge", 0) == 0) return "They all look fine to me.";
    return agent_reply(r);
  }, 3, 1);
  h.judging.reasks = 1;
  const Transcript t = h.run("ra_cr");
  int round1 = 0, failures = 0;
  for (const auto& m : t.messages) round1 += m.round == 1 && m.role.rfind("judge", 0) != 0;
  for (const auto& e : t.events) failures += e.kind == "judge_failed";
  EXPECT_EQ(round1, 3);
  EXPECT_EQ(failures, 3);
  EXPECT_EQ(t.status, DebateStatus::kCompleted);
}

}  // namespace
}  // namespace parley
