// The simulator's self-critique (docs/simulator.md, eqs. 13–16) and the restating affirmative
// of an opened MAD: replies parse into every section, a re-ask is complete, the initial answer
// is the agent's ordinary initial answer, and hesitation peaks for borderline answers.
#include <gtest/gtest.h>

#include <cmath>

#include "llm/simulator_model.h"
#include "llm/simulator_test_support.h"
#include "parley/self_critique.h"

namespace parley::sim {
namespace {

using testing::choice_task;
using testing::request_for;

TEST(SimulatorCritique, RepliesHaveEverySectionAndAReaskIsAlwaysComplete) {
  EventLoop loop;
  auto client = testing::client(loop);
  std::vector<ChatRequest> requests;
  for (int i = 0; i < 400; ++i) {
    requests.push_back(request_for(choice_task(i), "a1", 0, "self_critique"));
    ChatRequest reask = request_for(choice_task(i), "a1", 0, "self_critique_reask");
    reask.note.repeats = "self_critique";
    requests.push_back(reask);
  }
  const auto replies = testing::run_all(*client, loop, requests);
  int incomplete = 0;
  for (std::size_t i = 0; i < replies.size(); i += 2) {
    const Task& task = *requests[i].note.task;
    const SelfCritique first = parse_self_critique(replies[i].text, task);
    const SelfCritique again = parse_self_critique(replies[i + 1].text, task);
    EXPECT_TRUE(again.complete()) << again.problem() << "\n" << replies[i + 1].text;
    if (!first.complete()) {
      ++incomplete;
      // A malformed reply stops after the critique: only the final sections are missing.
      EXPECT_EQ(first.missing, (std::vector<CritiqueSection>{CritiqueSection::kFinalAnswer,
                                                             CritiqueSection::kFinalConfidence}));
      continue;
    }
    // The re-ask states what the first reply meant.
    EXPECT_EQ(first.final.value, again.final.value);
    EXPECT_EQ(first.initial.value, again.initial.value);
    EXPECT_FALSE(first.initial_reasoning.empty());
    EXPECT_FALSE(first.critique.empty());
  }
  // format_error_rate 0.025 of 400: about 10.
  EXPECT_GT(incomplete, 0);
  EXPECT_LT(incomplete, 30);
}

TEST(SimulatorCritique, TheInitialAnswerIsTheAgentsOrdinaryInitialAnswerAtZeroTemperature) {
  EventLoop loop;
  auto client = testing::client(loop);
  std::vector<ChatRequest> requests;
  for (int i = 0; i < 200; ++i) {
    requests.push_back(request_for(choice_task(i), "a1", 0, "self_critique", 0, 0.0));
    requests.push_back(request_for(choice_task(i), "a1", 0, "answer", 0, 0.0));
  }
  const auto replies = testing::run_all(*client, loop, requests);
  for (std::size_t i = 0; i < replies.size(); i += 2) {
    const Task& task = *requests[i].note.task;
    const SelfCritique critique = parse_self_critique(replies[i].text, task);
    const Answer plain = parse_answer(replies[i + 1].text, task);
    if (!critique.initial.parsed() || !plain.parsed()) continue;
    // Same margin z (eq. 3), hence the same correctness.
    EXPECT_EQ(answers_match(task, *critique.initial.value), answers_match(task, *plain.value)) << task.id;
  }
}

TEST(SimulatorCritique, HesitationPeaksForBorderlineAnswers) {
  const auto params = default_simulator_params();
  const SimulatorProfile& profile = params->profiles.at("default");  // ability 0.6
  const auto mean_hesitation = [&](double difficulty) {
    double sum = 0.0;
    for (int i = 0; i < 300; ++i) {
      const auto task = choice_task(i, difficulty);
      const ChatRequest r = request_for(task, "a1", 0, "self_critique");
      sum += decide_self_critique(*params, profile, r.note, 0.7, task_latents(*params, *task)).hesitation;
    }
    return sum / 300.0;
  };
  const double clear = mean_hesitation(0.0);           // k·(a − d) = 3.6: clearly right
  const double borderline = mean_hesitation(0.6);      // a = d: right or wrong by the noise
  const double coherent_wrong = mean_hesitation(1.0);  // k·(a − d) = −2.4: mostly confidently wrong
  EXPECT_GT(borderline, clear + 0.1);
  EXPECT_GT(borderline, coherent_wrong);
}

TEST(SimulatorCritique, AnOpenedAffirmativeRestatesItsStance) {
  EventLoop loop;
  auto client = testing::client(loop);
  std::vector<ChatRequest> requests;
  for (int i = 0; i < 50; ++i) {
    ChatRequest r = request_for(choice_task(i), "a1", 1, "affirmative");
    r.note.own_previous = option_letter(static_cast<std::size_t>((i + 1) % 4));  // a wrong answer
    requests.push_back(r);
  }
  const auto replies = testing::run_all(*client, loop, requests);
  int parsed = 0;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    const Answer answer = parse_answer(replies[i].text, *requests[i].note.task);
    if (!answer.parsed()) continue;  // a format error (format_error_rate)
    ++parsed;
    EXPECT_EQ(answer.value, requests[i].note.own_previous);
  }
  EXPECT_GE(parsed, 45);
}

}  // namespace
}  // namespace parley::sim
