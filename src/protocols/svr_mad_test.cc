// svr_mad (SVR-MAD Algorithm 1) on scripted replies, with the self-reported confidence as the
// prior (a ScriptedClient returns no log-probabilities): receiver and challenger order, early
// acceptance, a receiver that changes its answer, the budget and the fallback vote, the
// unanimous skip, and NComm.
#include <gtest/gtest.h>

#include <map>
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
  // Without log-probabilities the min-LL prior is missing for everyone, and recorded as such.
  EXPECT_TRUE(events(t, "priors").at(0)[0]["min_ll"].is_null());
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
