// The simulator's CRIT judges (docs/simulator.md, "CRIT judges", eqs. 18–19): sub-scores
// around the argument's latent quality, a lean per judge family, deterministic draws, and
// format errors that a re-ask repairs.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llm/simulator_argument.h"
#include "llm/simulator_judge.h"
#include "llm/simulator_reply.h"
#include "simulator_test_support.h"

namespace parley::sim {
namespace {

using testing::choice_task;
using testing::request_for;
using Json = nlohmann::json;

ChatRequest crit_request(const std::shared_ptr<const Task>& task, const std::string& author, int index,
                         const std::string& judge = "j1", const std::string& model = "family-a",
                         const std::string& turn = "judge_crit", int round = 1) {
  ChatRequest r = request_for(task, judge, round, turn, 0, 0.3);
  r.model = model;
  r.note.shown = {PeerView{author, "", std::nullopt, "Argument", ArgumentRef{round, index}}};
  return r;
}

double quality_of(const ChatRequest& r) {
  const auto params = default_simulator_params();
  const PeerView& shown = r.note.shown.at(0);
  return argument_quality({r.note.seed, r.note.task->id, shown.agent, shown.argument->round, shown.argument->index},
                          task_latents(*params, *r.note.task));
}

// The three sub-scores of a reply, or nothing for a malformed one.
std::optional<std::vector<double>> sub_scores(const ChatResponse& reply) {
  const Json verdict = Json::parse(reply.text, nullptr, false);
  if (verdict.is_discarded()) return std::nullopt;
  return std::vector<double>{verdict.at("evidence").get<double>(), verdict.at("logic").get<double>(),
                             verdict.at("relevance").get<double>()};
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

ChatResponse simulate(const ChatRequest& r) {
  const auto params = default_simulator_params();
  return simulate_reply(*params, params->profiles.at("default"), r);
}

TEST(SimulatorCrit, ArgumentQualityIsAFunctionOfTheArgumentAlone) {
  const auto params = default_simulator_params();
  const auto task = choice_task(3);
  const TaskLatents latents = task_latents(*params, *task);
  const ArgumentKey key{7, task->id, "a1", 2, 1};
  const double q = argument_quality(key, latents);
  EXPECT_GT(q, 0.0);
  EXPECT_LT(q, 1.0);
  EXPECT_EQ(q, argument_quality(ArgumentKey{7, task->id, "a1", 2, 1}, latents));
  EXPECT_NE(q, argument_quality(ArgumentKey{8, task->id, "a1", 2, 1}, latents));
  EXPECT_NE(q, argument_quality(ArgumentKey{7, "other", "a1", 2, 1}, latents));
  EXPECT_NE(q, argument_quality(ArgumentKey{7, task->id, "a2", 2, 1}, latents));
  EXPECT_NE(q, argument_quality(ArgumentKey{7, task->id, "a1", 3, 1}, latents));
  EXPECT_NE(q, argument_quality(ArgumentKey{7, task->id, "a1", 2, 0}, latents));
}

TEST(SimulatorCrit, ArgumentQualityFollowsEquation18) {
  // At d = ½: logit q = 1 + 0.5·z_u + 0.75·z_i, so its median is 1 and its sd √(0.25 + 0.5625) ≈ 0.90.
  const auto params = default_simulator_params();
  std::vector<double> logits;
  for (int i = 0; i < 1000; ++i) {
    const auto task = choice_task(i, 0.5);
    const TaskLatents latents = task_latents(*params, *task);
    for (const char* author : {"a1", "a2", "a3"}) {
      const double q = argument_quality({3, task->id, author, 1, 0}, latents);
      ASSERT_GT(q, 0.03);
      ASSERT_LT(q, 0.99);
      logits.push_back(std::log(q / (1.0 - q)));
    }
  }
  std::vector<double> sorted = logits;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NEAR(sorted[sorted.size() / 2], 1.0, 0.08);
  const double m = mean(logits);
  double sq = 0;
  for (double l : logits) sq += (l - m) * (l - m);
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(logits.size())), 0.90, 0.05);
}

TEST(SimulatorCrit, HarderTasksAndWeakerAuthorsGiveWeakerArguments) {
  const auto params = default_simulator_params();
  std::vector<double> easy, hard;
  for (int i = 0; i < 300; ++i) {
    const auto easy_task = choice_task(i, 0.1), hard_task = choice_task(i, 0.9);
    for (int index = 0; index < 3; ++index) {
      easy.push_back(argument_quality({1, easy_task->id, "a1", 1, index}, task_latents(*params, *easy_task)));
      hard.push_back(argument_quality({1, hard_task->id, "a1", 1, index}, task_latents(*params, *hard_task)));
    }
  }
  // q₀ = 1, q_d = 2: σ(1.8) ≈ 0.86 against σ(0.2) ≈ 0.55 before the spread.
  EXPECT_GT(mean(easy), 0.75);
  EXPECT_LT(mean(hard), 0.6);
  // An author's standing on a task (z_u) is shared by its arguments: the arguments of one
  // author agree more with each other than with another author's.
  double within = 0, across = 0;
  for (int i = 0; i < 300; ++i) {
    const auto task = choice_task(i, 0.5);
    const TaskLatents latents = task_latents(*params, *task);
    const double a0 = argument_quality({1, task->id, "a1", 1, 0}, latents);
    const double a1 = argument_quality({1, task->id, "a1", 1, 1}, latents);
    const double b0 = argument_quality({1, task->id, "a2", 1, 0}, latents);
    within += std::abs(a0 - a1);
    across += std::abs(a0 - b0);
  }
  EXPECT_LT(within, across * 0.95);
}

TEST(SimulatorCrit, TheReplyIsTheJsonThePromptAskedForWithTheMeanAsComposite) {
  const ChatResponse reply = simulate(crit_request(choice_task(1), "a1", 0));
  const Json verdict = Json::parse(reply.text);
  for (const char* field : {"evidence", "logic", "relevance", "composite"}) {
    ASSERT_TRUE(verdict.contains(field)) << reply.text;
    EXPECT_GE(verdict[field].get<double>(), 0.0);
    EXPECT_LE(verdict[field].get<double>(), 1.0);
  }
  const double mean3 = (verdict["evidence"].get<double>() + verdict["logic"].get<double>() +
                        verdict["relevance"].get<double>()) / 3.0;
  EXPECT_NEAR(verdict["composite"].get<double>(), mean3, 0.005 + 1e-12);
  EXPECT_FALSE(verdict["justification"].get<std::string>().empty());
}

TEST(SimulatorCrit, ScoresAreDeterministicAndAReaskRepeatsThem) {
  const auto task = choice_task(5);
  const ChatRequest first = crit_request(task, "a1", 0);
  EXPECT_EQ(simulate(first).text, simulate(first).text);
  const ChatResponse reask = simulate(crit_request(task, "a1", 0, "j1", "family-a", "judge_crit_reask"));
  EXPECT_EQ(sub_scores(reask), sub_scores(simulate(first)));
  // Another judge, round or argument reads it afresh.
  EXPECT_NE(sub_scores(simulate(crit_request(task, "a1", 0, "j2"))), sub_scores(simulate(first)));
  EXPECT_NE(sub_scores(simulate(crit_request(task, "a1", 1))), sub_scores(simulate(first)));
  EXPECT_NE(sub_scores(simulate(crit_request(task, "a1", 0, "j1", "family-a", "judge_crit", 2))),
            sub_scores(simulate(first)));
}

TEST(SimulatorCrit, HigherLatentQualityScoresHigher) {
  // Eq. (19): each sub-score is q + b_f + σz, clipped; σ = 0.1.
  std::vector<double> quality, composite, residual;
  for (int i = 0; i < 200; ++i) {
    const ChatRequest r = crit_request(choice_task(i), "a" + std::to_string(i % 3), i % 2);
    const auto scores = sub_scores(simulate(r));
    if (!scores) continue;
    const double q = quality_of(r);
    quality.push_back(q);
    composite.push_back(mean(*scores));
    for (double s : *scores)
      if (s > 0.0 && s < 1.0) residual.push_back(s - q - crit_family_bias(r.model));
  }
  ASSERT_GT(quality.size(), 180u);
  // Correlation of composite with quality.
  const double mq = mean(quality), mc = mean(composite);
  double cov = 0, vq = 0, vc = 0;
  for (std::size_t i = 0; i < quality.size(); ++i) {
    cov += (quality[i] - mq) * (composite[i] - mc);
    vq += (quality[i] - mq) * (quality[i] - mq);
    vc += (composite[i] - mc) * (composite[i] - mc);
  }
  EXPECT_GT(cov / std::sqrt(vq * vc), 0.8);
  // The noise is centred and about σ wide (rounding to two decimals adds little).
  double sq = 0;
  for (double e : residual) sq += e * e;
  EXPECT_NEAR(mean(residual), 0.0, 0.02);
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(residual.size())), 0.1, 0.02);
}

TEST(SimulatorCrit, EachJudgeFamilyLeansItsOwnWay) {
  const double a = crit_family_bias("family-a"), b = crit_family_bias("family-c");
  EXPECT_EQ(a, crit_family_bias("family-a"));
  ASSERT_GT(std::abs(a - b), 0.03);  // these two names lean visibly apart
  std::vector<double> family_a, family_b, same_family;
  for (int i = 0; i < 300; ++i) {
    const auto task = choice_task(i, 0.5);
    const auto sa = sub_scores(simulate(crit_request(task, "a1", 0, "j1", "family-a")));
    const auto sb = sub_scores(simulate(crit_request(task, "a1", 0, "j2", "family-c")));
    const auto sc = sub_scores(simulate(crit_request(task, "a1", 0, "j3", "family-a")));
    if (!sa || !sb || !sc) continue;
    family_a.push_back(mean(*sa));
    family_b.push_back(mean(*sb));
    same_family.push_back(mean(*sc));
  }
  // Same arguments: the gap between two families is their biases' (clipping aside); two judges
  // of one family differ by noise only.
  EXPECT_NEAR(mean(family_a) - mean(family_b), a - b, 0.015);
  EXPECT_NEAR(mean(family_a) - mean(same_family), 0.0, 0.015);
}

TEST(SimulatorCrit, FamilyBiasesSpreadAsNormalsOfSdFivePercent) {
  std::vector<double> biases;
  for (int i = 0; i < 2000; ++i) biases.push_back(crit_family_bias("model-" + std::to_string(i)));
  double sq = 0, largest = 0;
  for (double b : biases) {
    sq += b * b;
    largest = std::max(largest, std::abs(b));
  }
  EXPECT_NEAR(mean(biases), 0.0, 0.005);
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(biases.size())), 0.05, 0.005);
  EXPECT_LT(largest, 0.25);
}

TEST(SimulatorCrit, TheJustificationSaysHowHighEachSubScoreIs) {
  // Bands: ≥ 0.7 high, ≥ 0.4 middle, else low (two-decimal scores hit both edges).
  int edges = 0;
  for (int i = 0; i < 3000; ++i) {
    const ChatResponse reply = simulate(crit_request(choice_task(i, (i % 10) / 10.0), "a1", i % 3));
    const Json verdict = Json::parse(reply.text, nullptr, false);
    if (verdict.is_discarded()) continue;
    const std::string why = verdict["justification"];
    const double e = verdict["evidence"], l = verdict["logic"], r = verdict["relevance"];
    edges += e == 0.7 || e == 0.4 || l == 0.7 || l == 0.4 || r == 0.7 || r == 0.4;
    const std::string evidence = e >= 0.7 ? "well supported" : e >= 0.4 ? "partly supported" : "poorly supported";
    const std::string logic = l >= 0.7 ? "is sound" : l >= 0.4 ? "is partly sound" : "is flawed";
    const std::string relevance = r >= 0.7 ? "directly addresses" : r >= 0.4 ? "partly addresses" : "barely addresses";
    EXPECT_NE(why.find(evidence), std::string::npos) << reply.text;
    EXPECT_NE(why.find(logic), std::string::npos) << reply.text;
    EXPECT_NE(why.find(relevance), std::string::npos) << reply.text;
  }
  EXPECT_GT(edges, 10);
}

TEST(SimulatorCrit, AFirstReplyIsSometimesProseAndAReaskNeverIs) {
  int malformed = 0, reask_malformed = 0;
  for (int i = 0; i < 2000; ++i) {
    const auto task = choice_task(i);
    ChatRequest first = crit_request(task, "a1", 0);
    first.note.sample = i;  // as the judge keys it: one sample index per argument
    malformed += !sub_scores(simulate(first)).has_value();
    ChatRequest reask = crit_request(task, "a1", 0, "j1", "family-a", "judge_crit_reask");
    reask.note.sample = i;
    reask_malformed += !sub_scores(simulate(reask)).has_value();
  }
  EXPECT_GT(malformed, 20);  // format_error_rate 0.025 of 2000 ≈ 50
  EXPECT_LT(malformed, 90);
  EXPECT_EQ(reask_malformed, 0);
}

TEST(SimulatorCrit, ARequestThatNamesNoArgumentHasNothingToJudge) {
  ChatRequest r = crit_request(choice_task(1), "a1", 0);
  r.note.shown[0].argument.reset();
  EXPECT_EQ(simulate(r).text, "There is nothing to judge.");
  r.note.shown.clear();
  EXPECT_EQ(simulate(r).text, "There is nothing to judge.");
}

}  // namespace
}  // namespace parley::sim
