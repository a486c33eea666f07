// svr_mad (SVR-MAD Algorithm 1) on scripted replies: receiver and challenger order under each
// prior (the self-reported confidence, and min-LL and perplexity from scripted token
// log-probabilities), early acceptance against distinct challengers, a receiver that changes its
// answer, the budget and the fallback vote with its two tie-breaks, the App. B posterior, the
// unanimous skip, and NComm.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <utility>
#include <nlohmann/json.hpp>

#include "parley/metrics.h"
#include "parley/protocol.h"
#include "protocol_harness.h"

namespace parley {
namespace {

using testing::Harness;
using Json = nlohmann::json;

std::string says(const std::string& letter, int confidence) {
  return "Reasoning.\nAnswer: " + letter + "\nConfidence: " + std::to_string(confidence) + "%";
}

// Pre-debate answers by agent; a revise turn answers `on_challenge(receiver, challenger)`.
Harness svr_harness(std::map<std::string, std::string> initial,
                    std::function<std::string(const std::string&, const std::string&)> on_challenge) {
  return Harness(
      [initial, on_challenge](const ChatRequest& r) -> std::string {
        if (r.note.round == 0) return initial.at(r.note.agent);
        return on_challenge(r.note.agent, r.note.shown.at(0).agent);
      },
      initial.size());
}

// Pre-debate answers by agent; each agent's revise turns answer its `revisions` in order (the
// last one repeated).
Harness queued_harness(std::map<std::string, std::string> initial,
                       std::map<std::string, std::vector<std::string>> revisions) {
  auto asked = std::make_shared<std::map<std::string, std::size_t>>();
  return Harness(
      [initial, revisions, asked](const ChatRequest& r) -> std::string {
        if (r.note.round == 0) return initial.at(r.note.agent);
        const auto& letters = revisions.at(r.note.agent);
        const std::size_t n = (*asked)[r.note.agent]++;
        return says(letters[std::min(n, letters.size() - 1)], 60);
      },
      initial.size());
}

// Every request that asks for log-probabilities gets `stats` of its agent.
void scripted_logprobs(Harness& h, std::map<std::string, LogprobStats> stats) {
  h.client->logprobs = [stats](const ChatRequest& r) -> std::optional<LogprobStats> {
    if (!r.sampling.logprobs) return std::nullopt;
    return stats.at(r.note.agent);
  };
}

std::vector<Json> events(const Transcript& t, const std::string& kind) {
  std::vector<Json> out;
  for (const auto& e : t.events)
    if (e.kind == kind) out.push_back(Json::parse(e.detail));
  return out;
}

const std::map<std::string, std::string> kInitial = {{"a1", says("B", 90)}, {"a2", says("B", 70)},
                                                     {"a3", says("A", 80)}, {"a4", says("C", 60)},
                                                     {"a5", says("B", 50)}, {"a6", says("A", 40)}};

TEST(SvrMad, TheStrongestReceiverSurvivesTheTopTwoChallengersAndIsAccepted) {
  Harness h = svr_harness(kInitial, [](const std::string&, const std::string&) { return says("B", 90); });
  const Transcript t = h.run("svr_mad", {{"prior", std::string("confidence")}});
  EXPECT_EQ(t.final_answer, "B");
  // Six pre-debate answers, then a1 (confidence 0.9) receives a3 (A, 0.8) and a4 (C, 0.6): the
  // top two that disagree with it, by score; a2 and a5 agree with it, a6 ranks third.
  ASSERT_EQ(t.messages.size(), 8u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(t.messages[i].round, 0);
  EXPECT_EQ(t.messages[6].agent, "a1");
  EXPECT_EQ(t.messages[6].shown, (std::vector<std::string>{"a3"}));
  EXPECT_EQ(t.messages[7].agent, "a1");
  EXPECT_EQ(t.messages[7].shown, (std::vector<std::string>{"a4"}));
  // k = 3 clusters (B, A, C), m = 3: B = S·(k + m) = 2·6.
  EXPECT_EQ(events(t, "budget").at(0)["budget"], 12);
  const auto stop = events(t, "stop").at(0);
  EXPECT_EQ(stop["reason"], "accepted");
  EXPECT_EQ(stop["debates"], 2);
  EXPECT_DOUBLE_EQ(stop["score"].get<double>(), 1.0);  // SVR = (2 − 0)/2
  // The challenger's pre-debate solution reaches the receiver in Du et al.'s format.
  const std::string& prompt = h.client->requests[6].messages.back().content;
  EXPECT_NE(prompt.find("These are the solutions to the problem from other agents"), std::string::npos);
  EXPECT_NE(prompt.find("Answer: A"), std::string::npos) << prompt;
  // NComm: one context transfer per pairwise debate.
  Transcript with_metrics = t;
  add_debate_metrics(with_metrics);
  EXPECT_DOUBLE_EQ(with_metrics.metrics.at("ncomm"), 2.0);
}

TEST(SvrMad, AReceiverThatChangesLosesItsPlaceToTheNextBestScore) {
  // a1 gives way to a3's A but not to a4's C: SVR (1 − 1)/2 = 0 is below the priors of a3 (0.8)
  // and a2 (0.7); a3 then receives a2 and a4 (a1, whose score is now 0, ranks below them) and
  // survives both.
  Harness h = svr_harness(kInitial, [](const std::string& receiver, const std::string& challenger) {
    if (receiver == "a1") return challenger == "a3" ? says("A", 70) : says("B", 80);
    return says(receiver == "a3" ? "A" : "B", 80);
  });
  const Transcript t = h.run("svr_mad", {{"prior", std::string("confidence")}});
  EXPECT_EQ(t.final_answer, "A");
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 4u);
  EXPECT_EQ(svr[0]["receiver"], "a1");
  EXPECT_EQ(svr[0]["outcome"], "change");
  EXPECT_EQ(svr[1]["outcome"], "retain");
  EXPECT_DOUBLE_EQ(svr[1]["score"].get<double>(), 0.0);
  EXPECT_EQ(svr[2]["receiver"], "a3");
  EXPECT_EQ(svr[2]["challenger"], "a2");
  EXPECT_EQ(svr[3]["challenger"], "a4");
  EXPECT_EQ(events(t, "stop").at(0)["reason"], "accepted");
  // Rounds number the pairwise debates in order.
  EXPECT_EQ(t.messages.back().round, 4);
}

TEST(SvrMad, WhenTheBudgetRunsOutEachAgentVotesItsPostDebateMajority) {
  // Three agents, S = C = 1: B = 1·(3 + 1) = 4 receivers. Every receiver adopts its challenger's
  // answer, so nobody is accepted:
  //   a1 (0.9) ← a2: B→A;  a2 (0.8) ← a3: A→C;  a3 (0.7) ← a1 (tie at −1, agent order): C→B;
  //   a1 (−1, first of the tied) ← a2: A.
  // Votes: a1 [A, A] → A; a2 [C] → C; a3 [B] → B. A three-way tie, each with one pre-debate
  // supporter: the first in agent order, A.
  std::map<std::string, std::string> initial = {
      {"a1", says("B", 90)}, {"a2", says("A", 80)}, {"a3", says("C", 70)}};
  std::map<std::string, std::string> answers = {{"a1", "B"}, {"a2", "A"}, {"a3", "C"}};
  Harness h = svr_harness(initial, [&answers](const std::string&, const std::string& challenger) {
    return says(answers.at(challenger), 60);
  });
  const Transcript t = h.run("svr_mad", {{"prior", std::string("confidence")},
                                         {"agents", std::int64_t{3}},
                                         {"communications", std::int64_t{1}},
                                         {"challengers", std::int64_t{1}}});
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 4u);
  EXPECT_EQ(svr[0]["receiver"], "a1");
  EXPECT_EQ(svr[1]["receiver"], "a2");
  EXPECT_EQ(svr[2]["receiver"], "a3");
  EXPECT_EQ(svr[2]["challenger"], "a1");
  EXPECT_EQ(svr[3]["receiver"], "a1");
  const auto stop = events(t, "stop").at(0);
  EXPECT_EQ(stop["reason"], "budget");
  EXPECT_EQ(stop["votes"], Json::parse(R"(["A", "C", "B"])"));
  EXPECT_EQ(t.final_answer, "A");
  // a1 challenges a3 after its own debate: a3 sees a1's pre-debate reply, with the confidence
  // stated in it (90%), not the 60% of a1's later reply.
  const ChatRequest& third = h.client->requests.at(5);
  ASSERT_EQ(third.note.round, 3);
  ASSERT_EQ(third.note.shown.size(), 1u);
  EXPECT_EQ(third.note.shown[0].agent, "a1");
  EXPECT_EQ(third.note.shown[0].answer, "B");
  EXPECT_DOUBLE_EQ(third.note.shown[0].confidence.value_or(-1.0), 0.9);
  EXPECT_NE(third.messages.back().content.str().find("Confidence: 90%"), std::string::npos);
}

TEST(SvrMad, AcceptanceCountsDistinctChallengersNotDebates) {
  // A 5–1 split, S = C = 2: a1 (B, 0.9) has one disagreeing agent, a3. It survives a3 again and
  // again, but one challenger is not C = 2 (App. A: "100% SVR for at least C challengers"), so it
  // is never accepted: Algorithm 1 picks it (SVR 1) and a3 each time until the budget
  // B = 2·(k + m) = 2·(2 + 5) = 14 is spent, 7 receivers of one debate each; the vote decides.
  std::map<std::string, std::string> initial = {{"a1", says("B", 90)}, {"a2", says("B", 80)},
                                                {"a3", says("A", 70)}, {"a4", says("B", 60)},
                                                {"a5", says("B", 50)}, {"a6", says("B", 40)}};
  Harness h = queued_harness(initial, {{"a1", {"B"}}});
  const Transcript t = h.run("svr_mad", {{"prior", std::string("confidence")}});
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 7u);
  for (const Json& e : svr) {
    EXPECT_EQ(e["receiver"], "a1");
    EXPECT_EQ(e["challenger"], "a3");
    EXPECT_EQ(e["outcome"], "retain");
  }
  EXPECT_EQ(svr.back()["D"], 7);
  const auto stop = events(t, "stop");
  ASSERT_EQ(stop.size(), 1u);
  EXPECT_EQ(stop[0]["reason"], "budget");
  EXPECT_EQ(t.final_answer, "B");
}

TEST(SvrMad, AnAgentWithoutAPreDebateAnswerIsNeitherReceiverNorChallenger) {
  // a1's reply (and its re-ask) hedges without an answer but has the highest min-LL prior; it
  // holds no y to defend or to disagree with (Algorithm 1 line 7). The receiver is a2 (B, the
  // best min-LL among agents with an answer); its challengers are a3 and a6 (A), the agents
  // that disagree, by min-LL; it survives both and is accepted with C = 2 distinct challengers.
  std::map<std::string, std::string> initial = {
      {"a1", "It is either A or B; I cannot tell which.\nConfidence: 95%"}, {"a2", says("B", 60)},
      {"a3", says("A", 60)}, {"a4", says("B", 60)}, {"a5", says("B", 60)}, {"a6", says("A", 60)}};
  Harness h = queued_harness(initial, {{"a2", {"B"}}});
  scripted_logprobs(h, {{"a1", LogprobStats{-0.01, 1.1, 30}},
                        {"a2", LogprobStats{-0.2, 1.4, 30}},
                        {"a3", LogprobStats{-0.3, 1.4, 30}},
                        {"a4", LogprobStats{-0.4, 1.4, 30}},
                        {"a5", LogprobStats{-0.5, 1.4, 30}},
                        {"a6", LogprobStats{-0.6, 1.4, 30}}});
  const Transcript t = h.run("svr_mad", {});
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 2u);
  EXPECT_EQ(svr[0]["receiver"], "a2");
  EXPECT_EQ(svr[0]["challenger"], "a3");
  EXPECT_EQ(svr[1]["receiver"], "a2");
  EXPECT_EQ(svr[1]["challenger"], "a6");
  const auto stop = events(t, "stop");
  ASSERT_EQ(stop.size(), 1u);
  EXPECT_EQ(stop[0]["reason"], "accepted");
  EXPECT_EQ(t.final_answer, "B");
}

TEST(SvrMad, TheFallbackVoteOfAnAgentBreaksItsTieWithItsPreDebateAnswer) {
  // Four agents, S = C = 1, B = 1·(3 + 2) = 5 receivers; each receiver's first debate is a
  // change (so none reaches SVR 1):
  //   a1 (C, 0.9) ← a2: A;   a2 (A, 0.8) ← a3: B;   a3 (B, 0.7) ← a1 (a1, a2 tied at −1: agent
  //   order): C;   a4 (B, 0.6) ← a1: A;   a1 (all at −1: the first) ← a2: C, a retain (SVR 0).
  // a1's post-debate answers A, C tie; its pre-debate C breaks the tie. Votes C, B, C, A: C.
  // (Without the tie-break a1 votes A, and A and C tie 2–2... A would win by agent order.)
  Harness h = queued_harness(
      {{"a1", says("C", 90)}, {"a2", says("A", 80)}, {"a3", says("B", 70)}, {"a4", says("B", 60)}},
      {{"a1", {"A", "C"}}, {"a2", {"B"}}, {"a3", {"C"}}, {"a4", {"A"}}});
  const Transcript t = h.run("svr_mad", {{"prior", std::string("confidence")},
                                         {"agents", std::int64_t{4}},
                                         {"communications", std::int64_t{1}},
                                         {"challengers", std::int64_t{1}}});
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 5u);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"a1", "a2"}, {"a2", "a3"}, {"a3", "a1"}, {"a4", "a1"}, {"a1", "a2"}};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(svr[i]["receiver"], pairs[i].first) << i;
    EXPECT_EQ(svr[i]["challenger"], pairs[i].second) << i;
  }
  EXPECT_DOUBLE_EQ(svr[4]["score"].get<double>(), 0.0);  // (1 − 1)/2
  const auto stop = events(t, "stop").at(0);
  EXPECT_EQ(stop["reason"], "budget");
  EXPECT_EQ(stop["votes"], Json::parse(R"(["C", "B", "C", "A"])"));
  EXPECT_EQ(t.final_answer, "C");
}

TEST(SvrMad, TheFallbackBreaksATieOfVotesByPreDebateSupport) {
  // a2 and a3 state no confidence: their priors are missing and rank below every score, so they
  // never receive. S = C = 1, B = 1·(3 + 2) = 5 receivers:
  //   a1 (A, 0.9) ← a4 (C, 0.6; a2, a3 rank below): C, a change;   a4 (C, 0.6) ← a1: A;
  //   a1 (−1, before a4 at −1) ← a4: A, a retain (SVR 0);  a1 (0) ← a4: A (1/3);  a1 ← a4: A (1/2).
  // Votes: a1 [C, A, A, A] → A; a2 B, a3 B (never debated); a4 [A] → A. A and B tie 2–2; B had two
  // pre-debate supporters, A one: B (agent order alone would give A).
  Harness h = queued_harness({{"a1", says("A", 90)},
                              {"a2", "Reasoning.\nAnswer: B"},
                              {"a3", "Reasoning.\nAnswer: B"},
                              {"a4", says("C", 60)}},
                             {{"a1", {"C", "A"}}, {"a4", {"A"}}});
  const Transcript t = h.run("svr_mad", {{"prior", std::string("confidence")},
                                         {"agents", std::int64_t{4}},
                                         {"communications", std::int64_t{1}},
                                         {"challengers", std::int64_t{1}}});
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 5u);
  EXPECT_EQ(svr[0]["challenger"], "a4");
  EXPECT_EQ(svr[1]["receiver"], "a4");
  for (std::size_t i = 2; i < 5; ++i) EXPECT_EQ(svr[i]["receiver"], "a1") << i;
  EXPECT_DOUBLE_EQ(svr[4]["score"].get<double>(), 0.5);  // (3 − 1)/4
  const auto stop = events(t, "stop").at(0);
  EXPECT_EQ(stop["reason"], "budget");
  EXPECT_EQ(stop["votes"], Json::parse(R"(["A", "B", "B", "A"])"));
  EXPECT_EQ(t.final_answer, "B");
}

// The min-LL prior (the default) from the replies' token log-probabilities, as exp(min-LL):
//   a1 B −2.0 → 0.135;  a2 A −0.1 → 0.905;  a3 B −0.5 → 0.607;  a4 C −1.0 → 0.368
// (the stated confidences would rank a1 first). a2 receives a3 and a4 (top two by prior); it
// keeps A against a3 and gives way to a4: SVR (1 − 1)/2 = 0, below the priors of a3, a4, a1 on the
// probability scale (raw min-LLs, all negative, would keep a2 first). a3 then receives a4 (0.368)
// and a2 (0), survives both and is accepted.
TEST(SvrMad, TheMinLogLikelihoodPriorRanksByTheLeastLikelyTokensProbability) {
  Harness h = queued_harness(
      {{"a1", says("B", 95)}, {"a2", says("A", 50)}, {"a3", says("B", 60)}, {"a4", says("C", 70)}},
      {{"a2", {"A", "C"}}, {"a3", {"B"}}});
  scripted_logprobs(h, {{"a1", LogprobStats{-2.0, 1.4, 30}},
                        {"a2", LogprobStats{-0.1, 1.4, 30}},
                        {"a3", LogprobStats{-0.5, 1.4, 30}},
                        {"a4", LogprobStats{-1.0, 1.4, 30}}});
  const Transcript t = h.run("svr_mad", {{"agents", std::int64_t{4}}});
  const auto priors = events(t, "priors").at(0);
  EXPECT_NEAR(priors[1]["prior"].get<double>(), 0.9048374180359595, 1e-12);  // exp(−0.1)
  EXPECT_DOUBLE_EQ(priors[1]["min_ll"].get<double>(), -0.1);
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 4u);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"a2", "a3"}, {"a2", "a4"}, {"a3", "a4"}, {"a3", "a2"}};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(svr[i]["receiver"], pairs[i].first) << i;
    EXPECT_EQ(svr[i]["challenger"], pairs[i].second) << i;
  }
  EXPECT_EQ(events(t, "stop").at(0)["reason"], "accepted");
  EXPECT_EQ(t.final_answer, "B");
}

// The perplexity prior as 1/PPL: a1 1.1 → 0.909, a2 3.0 → 0.333, a3 1.5 → 0.667, a4 2.0 → 0.5.
// a1 (B) receives a4 (C, 0.5) then a2 (A, 0.333) -- a3 agrees with it -- and survives both.
TEST(SvrMad, ThePerplexityPriorRanksLowerPerplexityFirst) {
  Harness h = queued_harness(
      {{"a1", says("B", 50)}, {"a2", says("A", 95)}, {"a3", says("B", 60)}, {"a4", says("C", 70)}},
      {{"a1", {"B"}}});
  scripted_logprobs(h, {{"a1", LogprobStats{-1.0, 1.1, 30}},
                        {"a2", LogprobStats{-1.0, 3.0, 30}},
                        {"a3", LogprobStats{-1.0, 1.5, 30}},
                        {"a4", LogprobStats{-1.0, 2.0, 30}}});
  const Transcript t = h.run("svr_mad", {{"agents", std::int64_t{4}}, {"prior", std::string("ppl")}});
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 2u);
  EXPECT_EQ(svr[0]["receiver"], "a1");
  EXPECT_EQ(svr[0]["challenger"], "a4");
  EXPECT_EQ(svr[1]["challenger"], "a2");
  EXPECT_EQ(events(t, "stop").at(0)["reason"], "accepted");
  EXPECT_NEAR(events(t, "priors").at(0)[0]["prior"].get<double>(), 1.0 / 1.1, 1e-12);
}

// App. B: the posterior is the mean of the receiver's post-debate signal. a1 (B, 0.9) receives
// a2 and a3; its replies have min-LL −0.1 and −0.5: exp −0.1 = 0.904837, exp −0.5 = 0.606531,
// mean 0.755684 (by hand). At threshold 0.7 a1 is accepted after both debates; at 0.8 it is not
// (a sum, 1.511, would be).
TEST(SvrMad, TheAppendixBPosteriorIsTheMeanPostDebateSignal) {
  for (const double threshold : {0.7, 0.8}) {
    Harness h = queued_harness({{"a1", says("B", 90)}, {"a2", says("A", 80)}, {"a3", says("C", 70)}},
                               {{"a1", {"B"}}, {"a2", {"A"}}, {"a3", {"C"}}});
    auto debates = std::make_shared<int>(0);
    h.client->logprobs = [debates](const ChatRequest& r) -> std::optional<LogprobStats> {
      if (!r.sampling.logprobs) return std::nullopt;
      if (r.note.round == 0) return LogprobStats{-1.0, 1.4, 30};
      return LogprobStats{++*debates == 1 ? -0.1 : -0.5, 1.4, 30};
    };
    const Transcript t = h.run("svr_mad", {{"agents", std::int64_t{3}},
                                           {"prior", std::string("confidence")},
                                           {"posterior", std::string("min_ll")},
                                           {"threshold", threshold}});
    const auto svr = events(t, "svr");
    ASSERT_GE(svr.size(), 2u);
    EXPECT_NEAR(svr[0]["score"].get<double>(), 0.9048374180359595, 1e-12);
    EXPECT_NEAR(svr[1]["score"].get<double>(), 0.7556840388742965, 1e-12);
    const auto stop = events(t, "stop").at(0);
    if (threshold == 0.7) {
      EXPECT_EQ(stop["reason"], "accepted");
      EXPECT_EQ(stop["debates"], 2);
      EXPECT_EQ(t.final_answer, "B");
    } else {
      EXPECT_GT(svr.size(), 2u);  // not accepted: the debates go on
      EXPECT_FALSE(stop["reason"] == "accepted" && stop["agent"] == "a1" && stop["debates"] == 2);
    }
  }
}

TEST(SvrMad, AUnanimousPreDebateAnswerEndsThere) {
  std::map<std::string, std::string> initial;
  for (int i = 1; i <= 6; ++i) initial["a" + std::to_string(i)] = says("D", 50 + i);
  Harness h = svr_harness(initial, [](const std::string&, const std::string&) { return says("A", 1); });
  const Transcript t = h.run("svr_mad");
  EXPECT_EQ(t.final_answer, "D");
  EXPECT_EQ(t.messages.size(), 6u);
  EXPECT_EQ(events(t, "stop").at(0)["reason"], "unanimous");
  // Every pre-debate answer asked for log-probabilities (the priors).
  for (const auto& r : h.client->requests) EXPECT_TRUE(r.sampling.logprobs);
  // The scripted server returns no log-probabilities: min-LL is recorded as missing, and the
  // stated confidence stands in for the prior.
  EXPECT_TRUE(events(t, "priors").at(0)[0]["min_ll"].is_null());
  EXPECT_DOUBLE_EQ(events(t, "priors").at(0)[0]["prior"].get<double>(), 0.51);
  EXPECT_EQ(events(t, "no_logprobs").size(), 1u);
}

// A server without log-probabilities (it refused them, or returns none): the min-LL prior falls
// back to the stated confidence for every agent, so the debate runs as with `prior: confidence`
// (the first test's), and a `no_logprobs` event says so.
TEST(SvrMad, WithoutLogprobsTheStatedConfidenceStandsInForTheMinLogLikelihoodPrior) {
  Harness h = svr_harness(kInitial, [](const std::string&, const std::string&) { return says("B", 90); });
  const Transcript t = h.run("svr_mad", {});
  const auto fallback = events(t, "no_logprobs");
  ASSERT_EQ(fallback.size(), 1u);
  EXPECT_EQ(fallback[0]["prior"], "confidence");
  EXPECT_EQ(fallback[0]["posterior"], "svr");
  EXPECT_DOUBLE_EQ(events(t, "priors").at(0)[0]["prior"].get<double>(), 0.9);
  ASSERT_EQ(t.messages.size(), 8u);
  EXPECT_EQ(t.messages[6].agent, "a1");
  EXPECT_EQ(t.messages[6].shown, (std::vector<std::string>{"a3"}));
  EXPECT_EQ(t.messages[7].shown, (std::vector<std::string>{"a4"}));
  EXPECT_EQ(events(t, "stop").at(0)["reason"], "accepted");
  EXPECT_EQ(t.final_answer, "B");
}

// App. B's min-LL posterior without log-probabilities: the mean stated confidence after each
// debate (0.9, 0.9), which reaches threshold 0.85 -- not 0, which never would.
TEST(SvrMad, WithoutLogprobsTheAppendixBPosteriorIsTheMeanStatedConfidence) {
  Harness h = svr_harness(kInitial, [](const std::string&, const std::string&) { return says("B", 90); });
  const Transcript t = h.run("svr_mad", {{"posterior", std::string("min_ll")}, {"threshold", 0.85}});
  const auto fallback = events(t, "no_logprobs");
  ASSERT_EQ(fallback.size(), 1u);
  EXPECT_EQ(fallback[0]["prior"], "confidence");
  EXPECT_EQ(fallback[0]["posterior"], "confidence");
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 2u);
  EXPECT_DOUBLE_EQ(svr[1]["score"].get<double>(), 0.9);
  EXPECT_EQ(events(t, "stop").at(0)["reason"], "accepted");
}

// One reply without log-probabilities among others that have them is not a server without
// them: its prior is missing and ranks lowest (a1, though its stated 90% is the highest), and
// nothing falls back.
TEST(SvrMad, AReplyWithoutLogprobsAmongOthersStillRanksLowest) {
  Harness h = svr_harness(kInitial, [](const std::string&, const std::string&) { return says("B", 90); });
  h.client->logprobs = [](const ChatRequest& r) -> std::optional<LogprobStats> {
    if (!r.sampling.logprobs || r.note.agent == "a1") return std::nullopt;
    const double min_ll = -0.1 * (r.note.agent.back() - '1');  // a2 −0.1, a3 −0.2, ... a6 −0.5
    return LogprobStats{min_ll, 1.4, 30};
  };
  const Transcript t = h.run("svr_mad", {});
  EXPECT_TRUE(events(t, "no_logprobs").empty());
  EXPECT_TRUE(events(t, "priors").at(0)[0]["prior"].is_null());
  const auto svr = events(t, "svr");
  ASSERT_EQ(svr.size(), 2u);
  EXPECT_EQ(svr[0]["receiver"], "a2");  // B, the best min-LL
  EXPECT_EQ(svr[0]["challenger"], "a3");
  EXPECT_EQ(svr[1]["challenger"], "a4");
  EXPECT_EQ(t.final_answer, "B");
}

TEST(SvrMad, SignalParametersAreChecked) {
  const ProtocolInfo* info = find_protocol("svr_mad");
  ASSERT_NE(info, nullptr);
  for (const auto& spec : info->params) {
    if (spec.name == "prior") {
      EXPECT_EQ(spec.check(ParamValue(std::string("ppl"))), "");
      EXPECT_NE(spec.check(ParamValue(std::string("svr"))), "");  // SVR is a posterior only
    }
    if (spec.name == "posterior") {
      EXPECT_NE(spec.check(ParamValue(std::string("entropy"))), "");
    }
  }
}

}  // namespace
}  // namespace parley
