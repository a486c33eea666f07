#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parley/report.h"

namespace parley {
namespace {

Transcript unit(const std::string& protocol, const std::string& task, bool correct, std::int64_t tokens = 100) {
  Transcript t;
  t.protocol = protocol;
  t.task_id = task;
  t.seed = 1;
  t.gold = "A";
  t.final_answer = correct ? "A" : "B";
  t.correct = correct;
  MessageRecord m;
  m.prompt_tokens = tokens;
  t.messages.push_back(m);
  return t;
}

std::vector<Transcript> run() {
  std::vector<Transcript> all = {
      unit("single", "q1", true, 100),  unit("single", "q2", false, 100), unit("single", "q3", false, 100),
      unit("single", "q4", true, 100),  unit("debate", "q1", true, 900),  unit("debate", "q2", true, 900),
      unit("debate", "q3", true, 900),  unit("debate", "q4", true, 900),
      unit("debate", "q5", false, 900),  // no baseline unit: not matched
  };
  all[4].metrics["flip_rate"] = 0.5;
  all[5].metrics["flip_rate"] = 0.25;
  return all;
}

TEST(Compare, HandWorkedAccuracyDifference) {
  auto c = compare_protocols(run(), {"single", "debate"}, "single", {"accuracy", "tokens"}, true);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 2u);
  const auto& accuracy = c->rows[0];
  EXPECT_EQ(accuracy.protocol, "debate");
  EXPECT_EQ(accuracy.n, 4);  // q5 has no baseline unit
  EXPECT_DOUBLE_EQ(accuracy.baseline_mean, 0.5);
  EXPECT_DOUBLE_EQ(accuracy.protocol_mean, 1.0);
  EXPECT_DOUBLE_EQ(accuracy.difference.mean_difference, 0.5);
  // Differences {0, 1, 1, 0}. Permutation: |sum| = 2 needs both 1s with one sign: 2 of the 4
  // sign choices of the 1s, times the 4 (identical) choices of the zeros: 8/16.
  EXPECT_DOUBLE_EQ(accuracy.permutation_p, 0.5);
  // Wilcoxon drops the zeros: n = 2, the two |d| = 1 tie (ranks 1.5 each), W+ = 3, so the
  // normal approximation: E = 1.5, Var = 2·3·5/24 - (8 - 2)/48 = 1.125,
  // z = (3 - 1.5 - 0.5)/sqrt(1.125) = 0.94281, p = 2(1 - Phi(z)) = 0.345779.
  EXPECT_NEAR(accuracy.wilcoxon_p, 0.34577858615116031, 1e-12);
  const auto& tokens = c->rows[1];
  EXPECT_DOUBLE_EQ(tokens.difference.mean_difference, 800.0);
  EXPECT_DOUBLE_EQ(tokens.difference.bca.lo, 800.0);  // constant differences: zero width
  // Family of two: Holm multiplies the smaller p by 2. Token differences {800 x4}: the
  // permutation p is 2/16; accuracy's 0.5 stays 0.5 after Holm (max with 2 · 0.125).
  EXPECT_DOUBLE_EQ(tokens.permutation_p, 0.125);
  EXPECT_DOUBLE_EQ(tokens.permutation_p_holm, 0.25);
  EXPECT_DOUBLE_EQ(accuracy.permutation_p_holm, 0.5);
  // BH: 0.125 · 2 / 1 = 0.25, then min(0.5 · 2/2, ...) = 0.5.
  EXPECT_DOUBLE_EQ(tokens.permutation_p_bh, 0.25);
  EXPECT_DOUBLE_EQ(accuracy.permutation_p_bh, 0.5);
}

TEST(Compare, TranscriptMetricsAreComparableWhereDefined) {
  auto all = run();
  all[0].metrics["flip_rate"] = 0.0;
  all[1].metrics["flip_rate"] = 0.5;
  auto c = compare_protocols(all, {}, "single", {"flip_rate"}, false);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 1u);
  EXPECT_EQ(c->rows[0].n, 2);  // q1 and q2 have it on both sides
  EXPECT_DOUBLE_EQ(c->rows[0].difference.mean_difference, ((0.5 - 0.0) + (0.25 - 0.5)) / 2.0);
}

TEST(Compare, AMetricTheBaselineNeverDefinesIsNotComparedNorInTheFamily) {
  // flip_rate exists for debate only: the pair is listed, not tested, and accuracy's p-values
  // are adjusted over a family of one.
  auto c = compare_protocols(run(), {"single", "debate"}, "single", {"accuracy", "flip_rate"}, false);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 1u);
  EXPECT_EQ(c->rows[0].metric, "accuracy");
  EXPECT_DOUBLE_EQ(c->rows[0].permutation_p_holm, c->rows[0].permutation_p);
  EXPECT_EQ(c->not_compared, (std::vector<std::string>{"debate flip_rate"}));
  EXPECT_NE(render_comparison(*c).find("not compared (the metric is defined on no matched unit of both): debate flip_rate"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(comparison_to_json(*c))["not_compared"][0], "debate flip_rate");
}

TEST(Compare, ErrorsNameTheProblem) {
  auto bad_baseline = compare_protocols(run(), {}, "cot", {"accuracy"}, false);
  ASSERT_FALSE(bad_baseline);
  EXPECT_NE(bad_baseline.error().message.find("baseline 'cot' is not a protocol of this run (protocols: debate, single)"),
            std::string::npos);
  auto bad_metric = compare_protocols(run(), {}, "single", {"accuracy", "speed"}, false);
  ASSERT_FALSE(bad_metric);
  EXPECT_NE(bad_metric.error().message.find("unknown metric 'speed'"), std::string::npos);
}

TEST(Compare, JsonAndTable) {
  auto c = compare_protocols(run(), {"single", "debate"}, "single", {"accuracy"}, true);
  ASSERT_TRUE(c);
  const auto j = nlohmann::json::parse(comparison_to_json(*c));
  EXPECT_EQ(j["baseline"], "single");
  EXPECT_TRUE(j["simulated"].get<bool>());
  const auto& row = j["comparisons"][0];
  for (const char* key : {"protocol", "metric", "n", "difference", "ci_percentile", "ci_bca", "permutation_p",
                          "permutation_p_holm", "permutation_p_bh", "wilcoxon_p", "wilcoxon_p_holm", "wilcoxon_p_bh"})
    EXPECT_TRUE(row.contains(key)) << key;
  const auto table = render_comparison(*c);
  EXPECT_EQ(table.rfind("SIMULATED", 0), 0u);
  EXPECT_NE(table.find("debate"), std::string::npos);
  EXPECT_NE(table.find("+0.5 ["), std::string::npos);
}

}  // namespace
}  // namespace parley
