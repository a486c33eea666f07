// parley compare's library half. Expected values are worked by hand in the comments; the
// Wilcoxon and adjusted p-values were also recomputed with the python3 reimplementation of R's
// wilcox.test described in src/stats/paired_test.cc, and the Holm/BH step rules by hand.
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

// A third protocol: against single, accuracy differences {0, 0, 1, -1} and token differences
// {0, 100, 200, 400}.
std::vector<Transcript> three_protocols() {
  auto all = run();
  for (auto t : {unit("other", "q1", true, 100), unit("other", "q2", false, 200), unit("other", "q3", true, 300),
                 unit("other", "q4", false, 500)})
    all.push_back(t);
  return all;
}

const std::vector<std::string> kOrder = {"single", "debate", "other"};

TEST(Compare, HandWorkedAccuracyDifference) {
  auto c = compare_protocols(run(), pairs_against({"single", "debate"}, "single"), {"accuracy", "tokens"},
                             AdjustmentFamily::kPair, true);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 2u);
  const auto& accuracy = c->rows[0];
  EXPECT_EQ(accuracy.first, "debate");
  EXPECT_EQ(accuracy.second, "single");
  EXPECT_EQ(accuracy.n, 4);  // q5 has no baseline unit
  EXPECT_DOUBLE_EQ(accuracy.second_mean, 0.5);
  EXPECT_DOUBLE_EQ(accuracy.first_mean, 1.0);
  EXPECT_DOUBLE_EQ(accuracy.difference.mean_difference, 0.5);
  // Differences {0, 1, 1, 0}. Permutation: |sum| = 2 needs both 1s with one sign: 2 of the 4
  // sign choices of the 1s, times the 4 (identical) choices of the zeros: 8/16.
  EXPECT_DOUBLE_EQ(accuracy.permutation_p, 0.5);
  // Wilcoxon drops the zeros: n = 2, the two |d| = 1 tie (ranks 1.5 each), W+ = 3, so the
  // normal approximation: E = 1.5, Var = 2·3·5/24 - (8 - 2)/48 = 1.125,
  // z = (3 - 1.5 - 0.5)/sqrt(1.125) = 0.94281, p = 2(1 - Phi(z)) = 0.345779.
  EXPECT_NEAR(accuracy.wilcoxon_p, 0.34577858615116031, 1e-12);
  EXPECT_FALSE(accuracy.wilcoxon_exact);
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
  EXPECT_EQ(tokens.family_size, 2);
}

TEST(Compare, AccuracyIsComparedOnlyOnUnitsWithGold) {
  auto all = run();
  for (Transcript& t : all) {
    if (t.task_id == "q2" || t.task_id == "q3") t.gold.clear();  // the units debate won
  }
  auto c = compare_protocols(all, pairs_against({"single", "debate"}, "single"), {"accuracy", "tokens"},
                             AdjustmentFamily::kPair, true);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 2u);
  EXPECT_EQ(c->rows[0].n, 2);  // q1 and q4: both right under both
  EXPECT_DOUBLE_EQ(c->rows[0].difference.mean_difference, 0.0);
  EXPECT_EQ(c->rows[1].n, 4);  // tokens need no gold
  for (Transcript& t : all) t.gold.clear();
  auto none = compare_protocols(all, pairs_against({"single", "debate"}, "single"), {"accuracy", "tokens"},
                                AdjustmentFamily::kPair, true);
  ASSERT_TRUE(none) << none.error().message;
  ASSERT_EQ(none->rows.size(), 1u);
  EXPECT_EQ(none->not_compared, (std::vector<std::string>{"debate vs single: accuracy"}));
}

TEST(Compare, PairFamilyAdjustsEachPairAcrossItsMetrics) {
  // p-values (hand-worked): debate vs single accuracy perm 0.5, Wilcoxon 0.345779 (above);
  // tokens perm 0.125, Wilcoxon: four tied 800s, V = 10, E = 5, Var = 7.5 - 60/48 = 6.25,
  // z = 4.5/2.5 = 1.8, p = 0.0718606. other vs single accuracy {0, 0, 1, -1}: perm 1 (sum 0),
  // Wilcoxon V = E: p = 1; tokens {0, 100, 200, 400}: perm 2·2/16 = 0.25, Wilcoxon (a zero:
  // normal) n = 3, V = 6, E = 3, Var = 3.5, z = 2.5/sqrt(3.5), p = 0.181449.
  const auto pairs = pairs_against(kOrder, "single");
  auto c = compare_protocols(three_protocols(), pairs, {"accuracy", "tokens"}, AdjustmentFamily::kPair, false);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 4u);
  EXPECT_EQ(c->family, AdjustmentFamily::kPair);
  const std::vector<double> permutation = {0.5, 0.125, 1.0, 0.25};
  const std::vector<double> wilcoxon = {0.3457785861511602, 0.07186063822585176, 1.0, 0.18144920772142026};
  // Holm within each pair of two: the smaller p doubled, the larger max(itself, that).
  const std::vector<double> permutation_holm = {0.5, 0.25, 1.0, 0.5};
  const std::vector<double> wilcoxon_holm = {0.3457785861511602, 0.14372127645170352, 1.0, 0.3628984154428405};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(c->rows[i].family_size, 2) << i;
    EXPECT_DOUBLE_EQ(c->rows[i].permutation_p, permutation[i]) << i;
    EXPECT_NEAR(c->rows[i].wilcoxon_p, wilcoxon[i], 1e-12) << i;
    EXPECT_DOUBLE_EQ(c->rows[i].permutation_p_holm, permutation_holm[i]) << i;
    EXPECT_NEAR(c->rows[i].wilcoxon_p_holm, wilcoxon_holm[i], 1e-12) << i;
    // BH within a pair of two: the larger p stays, the smaller is min(that, 2p) — here the
    // same numbers as Holm.
    EXPECT_DOUBLE_EQ(c->rows[i].permutation_p_bh, permutation_holm[i]) << i;
    EXPECT_NEAR(c->rows[i].wilcoxon_p_bh, wilcoxon_holm[i], 1e-12) << i;
  }

  // The same rows in one family of four. Holm over 0.125, 0.25, 0.5, 1: 4·0.125 = 0.5,
  // max(0.5, 3·0.25) = 0.75, max(0.75, 2·0.5) = 1, 1. BH: 1, min(1, 4·0.5/3) = 2/3,
  // min(2/3, 4·0.25/2) = 0.5, min(0.5, 4·0.125/1) = 0.5.
  auto all = compare_protocols(three_protocols(), pairs, {"accuracy", "tokens"}, AdjustmentFamily::kAll, false);
  ASSERT_TRUE(all);
  const std::vector<double> all_holm = {1.0, 0.5, 1.0, 0.75};
  const std::vector<double> all_bh = {2.0 / 3.0, 0.5, 1.0, 0.5};
  const std::vector<double> all_wilcoxon_holm = {0.6915571723023204, 0.28744255290340703, 1.0, 0.5443476231642608};
  const std::vector<double> all_wilcoxon_bh = {0.4610381148682136, 0.28744255290340703, 1.0, 0.3628984154428405};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(all->rows[i].family_size, 4) << i;
    EXPECT_DOUBLE_EQ(all->rows[i].permutation_p_holm, all_holm[i]) << i;
    EXPECT_NEAR(all->rows[i].permutation_p_bh, all_bh[i], 1e-12) << i;
    EXPECT_NEAR(all->rows[i].wilcoxon_p_holm, all_wilcoxon_holm[i], 1e-12) << i;
    EXPECT_NEAR(all->rows[i].wilcoxon_p_bh, all_wilcoxon_bh[i], 1e-12) << i;
  }
}

TEST(Compare, OutputsNameTheFamily) {
  const auto pairs = pairs_against(kOrder, "single");
  auto by_pair = compare_protocols(three_protocols(), pairs, {"accuracy", "tokens"}, AdjustmentFamily::kPair, false);
  auto by_row = compare_protocols(three_protocols(), pairs, {"accuracy", "tokens"}, AdjustmentFamily::kAll, false);
  ASSERT_TRUE(by_pair && by_row);
  EXPECT_NE(render_comparison(*by_pair).find("adjusted within each pair across its metrics (family: pair"),
            std::string::npos);
  EXPECT_NE(render_comparison(*by_row).find("adjusted across all 4 rows (family: all)"), std::string::npos);
  const auto j_pair = nlohmann::json::parse(comparison_to_json(*by_pair));
  const auto j_all = nlohmann::json::parse(comparison_to_json(*by_row));
  EXPECT_EQ(j_pair["family"], "pair");
  EXPECT_EQ(j_all["family"], "all");
  EXPECT_EQ(j_pair["comparisons"][0]["family_size"], 2);
  EXPECT_EQ(j_all["comparisons"][0]["family_size"], 4);
}

TEST(Compare, AnyPairAndItsMirror) {
  // debate vs other, then other vs debate: token differences {800, 700, 600, 400} and their
  // negatives. The mirror resamples the same units, so its CIs are the negated, swapped ones.
  auto forward = compare_protocols(three_protocols(), {{"debate", "other"}}, {"tokens"}, AdjustmentFamily::kPair, false);
  auto mirror = compare_protocols(three_protocols(), {{"other", "debate"}}, {"tokens"}, AdjustmentFamily::kPair, false);
  ASSERT_TRUE(forward && mirror);
  const auto& f = forward->rows.at(0);
  const auto& m = mirror->rows.at(0);
  EXPECT_EQ(f.first, "debate");
  EXPECT_EQ(f.second, "other");
  EXPECT_EQ(f.n, 4);
  EXPECT_DOUBLE_EQ(f.first_mean, 900.0);
  EXPECT_DOUBLE_EQ(f.second_mean, 275.0);  // (100 + 200 + 300 + 500) / 4
  EXPECT_DOUBLE_EQ(f.difference.mean_difference, 625.0);
  EXPECT_DOUBLE_EQ(m.difference.mean_difference, -625.0);
  // All four differences positive: only +/-(all) reach |sum| = 2500, 2/16.
  EXPECT_DOUBLE_EQ(f.permutation_p, 0.125);
  EXPECT_DOUBLE_EQ(m.permutation_p, 0.125);
  EXPECT_NEAR(m.difference.percentile.lo, -f.difference.percentile.hi, 1e-9);
  EXPECT_NEAR(m.difference.percentile.hi, -f.difference.percentile.lo, 1e-9);
  EXPECT_NEAR(m.difference.bca.lo, -f.difference.bca.hi, 1e-9);
  EXPECT_NEAR(m.difference.bca.hi, -f.difference.bca.lo, 1e-9);
  EXPECT_LT(f.difference.percentile.lo, f.difference.percentile.hi);
}

TEST(Compare, PairSelections) {
  EXPECT_EQ(pairs_against(kOrder, "debate"),
            (std::vector<ProtocolPair>{{"single", "debate"}, {"other", "debate"}}));
  EXPECT_EQ(all_pairs({"ni", "wr", "cr", "ra_cr"}),
            (std::vector<ProtocolPair>{{"ni", "wr"}, {"ni", "cr"}, {"ni", "ra_cr"}, {"wr", "cr"}, {"wr", "ra_cr"},
                                       {"cr", "ra_cr"}}));
  EXPECT_TRUE(all_pairs({"single"}).empty());
  EXPECT_EQ(protocols_in_order(three_protocols(), {"other", "missing"}),
            (std::vector<std::string>{"other", "debate", "single"}));
}

TEST(Compare, BuiltInMetricsReadTheTranscript) {
  // "long": two calls in one round by two agents — prompt 100 + 20, completion 30 + 5,
  // latency max(50, 70) = 70 (parallel agents), parsed. "short": one call, prompt 10,
  // completion 4, latency 15, no final answer (unparsed, so wrong).
  Transcript a = unit("long", "q1", true, 100);
  a.messages[0].agent = "a1";
  a.messages[0].completion_tokens = 30;
  a.messages[0].latency_ms = 50;
  MessageRecord second;
  second.agent = "a2";
  second.prompt_tokens = 20;
  second.completion_tokens = 5;
  second.latency_ms = 70;
  a.messages.push_back(second);
  Transcript b = unit("short", "q1", false, 10);
  b.messages[0].completion_tokens = 4;
  b.messages[0].latency_ms = 15;
  b.final_answer.reset();
  const std::vector<std::string> metrics = {"accuracy", "tokens", "tokens_in", "tokens_out",
                                            "calls", "latency_ms", "unparsed"};
  auto c = compare_protocols({a, b}, {{"long", "short"}}, metrics, AdjustmentFamily::kPair, false);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), metrics.size());
  const std::vector<std::pair<double, double>> expected = {{1, 0}, {155, 14}, {120, 10}, {35, 4},
                                                           {2, 1},  {70, 15},  {0, 1}};
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    EXPECT_EQ(c->rows[i].metric, metrics[i]);
    EXPECT_DOUBLE_EQ(c->rows[i].first_mean, expected[i].first) << metrics[i];
    EXPECT_DOUBLE_EQ(c->rows[i].second_mean, expected[i].second) << metrics[i];
  }
}

TEST(Compare, TranscriptMetricsAreComparableWhereDefined) {
  auto all = run();
  all[0].metrics["flip_rate"] = 0.0;
  all[1].metrics["flip_rate"] = 0.5;
  auto c = compare_protocols(all, {{"debate", "single"}}, {"flip_rate"}, AdjustmentFamily::kPair, false);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 1u);
  EXPECT_EQ(c->rows[0].n, 2);  // q1 and q2 have it on both sides
  EXPECT_DOUBLE_EQ(c->rows[0].difference.mean_difference, ((0.5 - 0.0) + (0.25 - 0.5)) / 2.0);
}

TEST(Compare, AMetricTheBaselineNeverDefinesIsNotComparedNorInTheFamily) {
  // flip_rate exists for debate only: the pair is listed, not tested, and accuracy's p-values
  // are adjusted over a family of one.
  auto c = compare_protocols(run(), {{"debate", "single"}}, {"accuracy", "flip_rate"}, AdjustmentFamily::kPair, false);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->rows.size(), 1u);
  EXPECT_EQ(c->rows[0].metric, "accuracy");
  EXPECT_EQ(c->rows[0].family_size, 1);
  EXPECT_DOUBLE_EQ(c->rows[0].permutation_p_holm, c->rows[0].permutation_p);
  EXPECT_EQ(c->not_compared, (std::vector<std::string>{"debate vs single: flip_rate"}));
  EXPECT_NE(render_comparison(*c).find(
                "not compared (the metric is defined on no matched unit of both): debate vs single: flip_rate"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(comparison_to_json(*c))["not_compared"][0], "debate vs single: flip_rate");
}

TEST(Compare, ErrorsNameTheProblem) {
  const auto error = [](const std::vector<ProtocolPair>& pairs, const std::vector<std::string>& metrics) {
    auto c = compare_protocols(run(), pairs, metrics, AdjustmentFamily::kPair, false);
    return c ? std::string("no error") : c.error().message;
  };
  EXPECT_EQ(error({{"debate", "cot"}}, {"accuracy"}), "'cot' is not a protocol of this run (protocols: debate, single)");
  EXPECT_EQ(error({{"cot", "single"}}, {"accuracy"}), "'cot' is not a protocol of this run (protocols: debate, single)");
  EXPECT_EQ(error({{"debate", "debate"}}, {"accuracy"}), "'debate' is compared with itself");
  EXPECT_EQ(error({{"debate", "single"}, {"single", "debate"}}, {"accuracy"}),
            "the pair single vs debate is listed twice");
  EXPECT_EQ(error({}, {"accuracy"}), "no protocol pair to compare");
  EXPECT_NE(error({{"debate", "single"}}, {"accuracy", "speed"}).find("unknown metric 'speed'"), std::string::npos);
}

TEST(Compare, JsonAndTable) {
  auto c = compare_protocols(run(), {{"debate", "single"}}, {"accuracy"}, AdjustmentFamily::kPair, true);
  ASSERT_TRUE(c);
  const auto j = nlohmann::json::parse(comparison_to_json(*c));
  EXPECT_TRUE(j["simulated"].get<bool>());
  const auto& row = j["comparisons"][0];
  EXPECT_EQ(row["first"], "debate");
  EXPECT_EQ(row["second"], "single");
  EXPECT_DOUBLE_EQ(row["first_mean"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(row["second_mean"].get<double>(), 0.5);
  EXPECT_EQ(row["wilcoxon_exact"], false);
  EXPECT_EQ(row["n"], 4);
  EXPECT_EQ(row["metric"], "accuracy");
  EXPECT_DOUBLE_EQ(row["difference"].get<double>(), 0.5);
  EXPECT_EQ(row["family_size"], 1);
  // One row: every adjusted p is the raw one (a family of one).
  EXPECT_DOUBLE_EQ(row["permutation_p"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(row["permutation_p_holm"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(row["permutation_p_bh"].get<double>(), 0.5);
  EXPECT_NEAR(row["wilcoxon_p"].get<double>(), 0.34577858615116031, 1e-12);
  EXPECT_NEAR(row["wilcoxon_p_holm"].get<double>(), 0.34577858615116031, 1e-12);
  EXPECT_NEAR(row["wilcoxon_p_bh"].get<double>(), 0.34577858615116031, 1e-12);
  EXPECT_EQ(row["ci_percentile"], nlohmann::json::array({c->rows[0].difference.percentile.lo,
                                                         c->rows[0].difference.percentile.hi}));
  EXPECT_EQ(row["ci_bca"], nlohmann::json::array({c->rows[0].difference.bca.lo, c->rows[0].difference.bca.hi}));
  for (const char* key : {"metric", "n", "difference", "ci_percentile", "ci_bca", "permutation_p", "permutation_p_holm",
                          "permutation_p_bh", "wilcoxon_p", "wilcoxon_p_holm", "wilcoxon_p_bh"})
    EXPECT_TRUE(row.contains(key)) << key;
  const auto table = render_comparison(*c);
  EXPECT_EQ(table.rfind("SIMULATED", 0), 0u);
  // Columns: the comparison padded to its longest label (16 here, at least 10), metric to 10,
  // n to 5, the two means to 10 each (4 significant digits), two spaces between.
  EXPECT_NE(table.find("\ncomparison        metric          n      mean A      mean B  "), std::string::npos) << table;
  EXPECT_NE(table.find("\ndebate vs single  accuracy        4           1         0.5  "), std::string::npos) << table;
  EXPECT_NE(table.find("+0.5 ["), std::string::npos);
}

}  // namespace
}  // namespace parley
