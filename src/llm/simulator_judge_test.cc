// The simulator's judges: verdicts in the requested JSON form, finite ability that grows with
// the profile's ability, re-asks that are never malformed.
#include "llm/simulator_judge.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llm/simulator_reply.h"
#include "simulator_test_support.h"

namespace parley::sim {
namespace {

using testing::choice_task;
using testing::request_for;

ChatRequest judge_request(int index, const std::string& turn, std::vector<PeerView> shown, const std::string& judge = "j1") {
  ChatRequest r = request_for(choice_task(index), judge, 1, turn, index);
  r.note.shown = std::move(shown);
  return r;
}

std::string wrong_letter(const Task& task) { return task.answer == "A" ? "C" : "A"; }

// Share of comparisons in which the judge prefers the gold response, over 400 tasks.
double compare_accuracy(const std::string& profile_name) {
  const auto params = default_simulator_params();
  const SimulatorProfile& profile = params->profiles.at(profile_name);
  int right = 0, total = 0;
  for (int i = 0; i < 400; ++i) {
    const auto task = choice_task(i);
    const bool gold_first = i % 2 == 0;
    PeerView gold{"a1", task->answer, 0.8, gold_first ? "Response 1" : "Response 2"};
    PeerView wrong{"a2", wrong_letter(*task), 0.8, gold_first ? "Response 2" : "Response 1"};
    const auto reply = simulate_reply(*params, profile,
                                      judge_request(i, "judge_compare", gold_first ? std::vector{gold, wrong} : std::vector{wrong, gold}));
    const auto verdict = nlohmann::json::parse(reply.text, nullptr, false);
    if (verdict.is_discarded()) continue;  // a format error
    ++total;
    right += verdict.at("winner") == gold.label;
  }
  return static_cast<double>(right) / total;
}

TEST(SimulatorJudge, PrefersTheGoldResponseMoreOftenTheAblerItIs) {
  const double strong = compare_accuracy("strong");
  const double weak = compare_accuracy("weak");
  EXPECT_GT(strong, 0.8);
  EXPECT_LT(weak, strong);
  EXPECT_GT(weak, 0.6);
}

TEST(SimulatorJudge, ScoresRightAnswersHigherOnTheLikertScale) {
  const auto params = default_simulator_params();
  double right_sum = 0, wrong_sum = 0;
  int n = 0;
  for (int i = 0; i < 200; ++i) {
    const auto task = choice_task(i);
    for (bool gold : {true, false}) {
      const auto reply = simulate_reply(*params, params->profiles.at("default"),
                                        judge_request(i, "judge_score_reask", {PeerView{"a1", gold ? task->answer : wrong_letter(*task), 0.8, "Response 1"}}));
      const auto verdict = nlohmann::json::parse(reply.text);  // a re-ask is always well formed
      const int score = verdict.at("score").get<int>();
      ASSERT_GE(score, 1);
      ASSERT_LE(score, 5);
      (gold ? right_sum : wrong_sum) += score;
    }
    ++n;
  }
  EXPECT_GT(right_sum / n, wrong_sum / n + 1.5);
}

TEST(SimulatorJudge, RanksEveryLabelOnceAndRubricStaysInTheUnitInterval) {
  const auto params = default_simulator_params();
  const auto task = choice_task(3);
  std::vector<PeerView> shown = {{"a1", "A", 0.9, "Response 1"}, {"a2", task->answer, 0.7, "Response 2"}, {"a3", "", std::nullopt, "Response 3"}};
  const auto rank = nlohmann::json::parse(simulate_reply(*params, params->profiles.at("default"), judge_request(3, "judge_rank_reask", shown)).text);
  std::set<std::string> labels;
  for (const auto& l : rank.at("ranking")) labels.insert(l.get<std::string>());
  EXPECT_EQ(labels, (std::set<std::string>{"Response 1", "Response 2", "Response 3"}));
  for (int i = 0; i < 50; ++i) {
    const auto rubric = nlohmann::json::parse(simulate_reply(*params, params->profiles.at("default"),
                                                             judge_request(i, "judge_rubric_reask", {shown[0]})).text);
    EXPECT_GE(rubric.at("score").get<double>(), 0.0);
    EXPECT_LE(rubric.at("score").get<double>(), 1.0);
  }
}

TEST(SimulatorJudge, FirstRepliesAreSometimesMalformedReasksNever) {
  const auto params = default_simulator_params();
  int malformed = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto task = choice_task(i);
    const auto reply = simulate_reply(*params, params->profiles.at("default"),
                                      judge_request(i, "judge_score", {PeerView{"a1", task->answer, 0.8, "Response 1"}}));
    malformed += nlohmann::json::parse(reply.text, nullptr, false).is_discarded();
  }
  // format_error_rate = 0.025: 50 expected of 2000; a wide band.
  EXPECT_GT(malformed, 20);
  EXPECT_LT(malformed, 90);
}

TEST(SimulatorJudge, KindOfAReaskIsTheKindItRepeats) {
  EXPECT_EQ(judge_kind("judge_score_reask"), "judge_score");
  EXPECT_EQ(judge_kind("judge_rank"), "judge_rank");
  EXPECT_TRUE(is_judge_turn("judge_compare"));
  EXPECT_FALSE(is_judge_turn("revise"));
}

}  // namespace
}  // namespace parley::sim
