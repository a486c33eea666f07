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

// MAD's per-round judge shown an affirmative and a negative side.
nlohmann::json mad_verdict(int index, const std::string& turn, const std::string& affirmative, const std::string& negative,
                           const std::string& profile = "default") {
  const auto params = default_simulator_params();
  const std::vector<PeerView> shown = {{"a1", affirmative, 0.8, "Affirmative"}, {"a2", negative, 0.7, "Negative"}};
  return nlohmann::json::parse(
      simulate_reply(*params, params->profiles.at(profile), judge_request(index, turn, shown)).text, nullptr, false);
}

TEST(SimulatorJudge, MadVerdictsStopOnAgreementOrWhenOneSideIsTakenForRight) {
  const auto agreed = mad_verdict(1, "judge_mad_reask", "B", "B");
  EXPECT_EQ(agreed.at("Preference"), "Yes");
  EXPECT_EQ(agreed.at("Supported Side"), "Affirmative");
  EXPECT_EQ(agreed.at("Debate Answer"), "B");
  EXPECT_FALSE(agreed.at("Reason").get<std::string>().empty());

  int settled_on_gold = 0, open = 0, answered_gold = 0, n = 0;
  for (int i = 0; i < 400; ++i) {
    const auto task = choice_task(i);
    const bool gold_affirmative = i % 2 == 0;
    const std::string gold = task->answer, wrong = wrong_letter(*task);
    const auto v = mad_verdict(i, "judge_mad", gold_affirmative ? gold : wrong, gold_affirmative ? wrong : gold);
    if (v.is_discarded()) continue;  // a format error
    ++n;
    const bool yes = v.at("Preference") == "Yes";
    settled_on_gold += yes && v.at("Debate Answer") == gold;
    answered_gold += v.at("Debate Answer") == gold;
    open += !yes;
    // The supported side is the one whose answer is the Debate Answer.
    EXPECT_EQ(v.at("Supported Side") == "Affirmative", v.at("Debate Answer") == (gold_affirmative ? gold : wrong));
  }
  // A default judge sees the truth on ≈ 87 % of average tasks: p² + (1 − p)² of the rounds
  // settle, almost all on the gold; the others stay open for another round.
  EXPECT_GT(settled_on_gold, n * 55 / 100);
  EXPECT_GT(answered_gold, n * 70 / 100);
  EXPECT_GT(open, n * 5 / 100);
}

TEST(SimulatorJudge, MadFinalisationPicksOneOfTheSidesAnswers) {
  for (int i = 0; i < 50; ++i) {
    const auto task = choice_task(i);
    const auto v = mad_verdict(i, "judge_final_reask", task->answer, wrong_letter(*task));
    EXPECT_FALSE(v.contains("Preference"));
    EXPECT_TRUE(v.at("Debate Answer") == task->answer || v.at("Debate Answer") == wrong_letter(*task));
    // A side without an answer is never chosen.
    EXPECT_EQ(mad_verdict(i, "judge_final_reask", "", "C").at("Debate Answer"), "C");
    // A re-ask states the verdict the first reply meant.
    const auto first = mad_verdict(i, "judge_mad", task->answer, wrong_letter(*task));
    if (!first.is_discarded()) {
      EXPECT_EQ(first, mad_verdict(i, "judge_mad_reask", task->answer, wrong_letter(*task)));
    }
  }
}

TEST(SimulatorJudge, KindOfAReaskIsTheKindItRepeats) {
  EXPECT_EQ(judge_kind("judge_score_reask"), "judge_score");
  EXPECT_EQ(judge_kind("judge_rank"), "judge_rank");
  EXPECT_TRUE(is_judge_turn("judge_compare"));
  EXPECT_FALSE(is_judge_turn("revise"));
}

}  // namespace
}  // namespace parley::sim
