#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "parley/report.h"

namespace parley {
namespace {

Transcript debate(const std::string& protocol, const std::string& task, bool correct, std::int64_t tokens_in,
                  double latency_ms, std::optional<std::string> final_answer = "A",
                  DebateStatus status = DebateStatus::kCompleted) {
  Transcript t;
  t.protocol = protocol;
  t.task_id = task;
  t.seed = 1;
  t.gold = "A";
  t.correct = correct;
  t.final_answer = std::move(final_answer);
  t.status = status;
  MessageRecord m;
  m.agent = "a1";
  m.prompt_tokens = tokens_in;
  m.completion_tokens = 10;
  m.latency_ms = latency_ms;
  t.messages.push_back(m);
  t.wall_ms = 1e9;  // never used: summaries must not depend on wall time
  return t;
}

std::vector<Transcript> sample_run() {
  return {
      debate("single", "q1", true, 100, 10),
      debate("single", "q2", true, 200, 20),
      debate("single", "q3", true, 300, 30),
      debate("single", "q4", false, 400, 40, std::nullopt, DebateStatus::kFailed),
      debate("debate", "q1", true, 1000, 5),
      debate("beta", "q1", false, 50, 5),
      debate("alpha", "q1", false, 50, 5),
  };
}

TEST(Summarize, HandComputedMeans) {
  const Summary s = summarize(sample_run(), {"single", "debate"}, false);
  ASSERT_EQ(s.protocols.size(), 4u);
  const ProtocolSummary& single = s.protocols[0];
  EXPECT_EQ(single.name, "single");
  EXPECT_EQ(single.n, 4);
  EXPECT_DOUBLE_EQ(single.accuracy, 0.75);
  EXPECT_DOUBLE_EQ(single.tokens_in_mean, 250.0);
  EXPECT_DOUBLE_EQ(single.tokens_out_mean, 10.0);
  EXPECT_DOUBLE_EQ(single.calls_mean, 1.0);
  EXPECT_DOUBLE_EQ(single.apt, 0.75 * 100000.0 / 260.0);  // = 288.46...
  EXPECT_DOUBLE_EQ(single.unparsed_rate, 0.25);
  EXPECT_DOUBLE_EQ(single.latency_ms_mean, 25.0);
  EXPECT_EQ(single.failed, 1);
  EXPECT_LE(single.accuracy_ci.lo, single.accuracy);
  EXPECT_GE(single.accuracy_ci.hi, single.accuracy);
  EXPECT_GE(single.accuracy_ci.lo, 0.0);
  EXPECT_LE(single.accuracy_ci.hi, 1.0);
}

// Served traffic without gold: accuracy is over the debates that have gold; with none, there is
// no accuracy ("-", null), not 0.
TEST(Summarize, AccuracyIsOverTheDebatesWithGoldAndAbsentWithout) {
  std::vector<Transcript> run = {debate("served", "q1", false, 100, 5), debate("served", "q2", false, 100, 5),
                                 debate("mixed", "q1", true, 100, 5), debate("mixed", "q2", false, 100, 5),
                                 debate("mixed", "q3", false, 100, 5)};
  for (Transcript& t : run) {
    if (t.protocol == "served" || t.task_id != "q1") t.gold.clear();
  }
  const Summary s = summarize(run, {"served", "mixed"}, false);
  const ProtocolSummary& served = s.protocols[0];
  EXPECT_EQ(served.n, 2);
  EXPECT_EQ(served.graded, 0);
  const ProtocolSummary& mixed = s.protocols[1];
  EXPECT_EQ(mixed.graded, 1);
  EXPECT_DOUBLE_EQ(mixed.accuracy, 1.0);  // 1 correct of the 1 with gold (not 1 of 3)
  EXPECT_DOUBLE_EQ(mixed.apt, 100000.0 / 110.0);
  const std::string table = render_table(s);
  EXPECT_NE(table.find("served        2                      -        100        10    1.00        -"), std::string::npos)
      << table;
  EXPECT_NE(table.find("mixed         3   1.000 [1.000, 1.000]        100        10    1.00   909.09"), std::string::npos)
      << table;
  const auto j = nlohmann::json::parse(summary_to_json(s));
  EXPECT_TRUE(j["protocols"][0]["accuracy"].is_null());
  EXPECT_TRUE(j["protocols"][0]["accuracy_ci"].is_null());
  EXPECT_TRUE(j["protocols"][0]["apt"].is_null());
  EXPECT_EQ(j["protocols"][0]["accuracy_n"], 0);
  EXPECT_EQ(j["protocols"][1]["accuracy"], 1.0);
  EXPECT_EQ(j["protocols"][1]["accuracy_n"], 1);
}

TEST(Summarize, OrderFollowsTheExperimentThenSortedRest) {
  const Summary s = summarize(sample_run(), {"single", "debate"}, false);
  EXPECT_EQ(s.protocols[1].name, "debate");
  EXPECT_EQ(s.protocols[2].name, "alpha");
  EXPECT_EQ(s.protocols[3].name, "beta");
}

TEST(Summarize, IndependentOfInputOrder) {
  auto run = sample_run();
  const std::string forward = summary_to_json(summarize(run, {"single"}, true));
  std::reverse(run.begin(), run.end());
  EXPECT_EQ(summary_to_json(summarize(run, {"single"}, true)), forward);
}

TEST(Summarize, DegenerateCiWhenAllAgree) {
  const Summary s = summarize(sample_run(), {}, false);
  const auto& debate_row = s.protocols[2];  // sorted: alpha, beta, debate, single
  EXPECT_EQ(debate_row.name, "debate");
  EXPECT_DOUBLE_EQ(debate_row.accuracy_ci.lo, 1.0);
  EXPECT_DOUBLE_EQ(debate_row.accuracy_ci.hi, 1.0);
}

TEST(Summarize, EceOfTheFinalConfidenceOverTheDebatesThatStateOne) {
  auto run = sample_run();  // single: q1–q3 right, q4 wrong
  run[0].metrics["final_confidence"] = 0.9;   // right
  run[1].metrics["final_confidence"] = 0.95;  // right
  run[3].metrics["final_confidence"] = 0.3;   // wrong; q3 states none
  const Summary s = summarize(run, {"single"}, false);
  // Bins of 0.1: [0.9, 1) holds |0.9 − 1 + 0.95 − 1| = 0.15, [0.3, 0.4) |0.3 − 0| = 0.3; over 3.
  ASSERT_TRUE(s.protocols[0].ece);
  EXPECT_NEAR(*s.protocols[0].ece, 0.45 / 3.0, 1e-12);
  EXPECT_EQ(s.protocols[0].ece_n, 3);
  EXPECT_FALSE(s.protocols[1].ece);
  const auto j = nlohmann::json::parse(summary_to_json(s));
  EXPECT_NEAR(j["protocols"][0]["ece"].get<double>(), 0.15, 1e-12);
  EXPECT_FALSE(j["protocols"][1].contains("ece"));
}

TEST(Summarize, MetricMeansOverTheDebatesThatDefineThem) {
  auto run = sample_run();
  run[0].metrics["prr"] = 0.5;
  run[1].metrics["prr"] = 0.0;
  run[2].metrics["cf"] = 0.9;
  const Summary s = summarize(run, {"single"}, false);
  const auto& prr = s.protocols[0].metrics.at("prr");
  EXPECT_EQ(prr.n, 2);
  EXPECT_DOUBLE_EQ(prr.mean, 0.25);  // (0.5 + 0) / 2, not / 4
  // Resampling the two debates that define it: means 0 (1/4), 0.25 (1/2), 0.5 (1/4), so the
  // 2.5% and 97.5% quantiles are 0 and 0.5 (each end has 25% of the mass, far from the
  // levels). Over all four debates, with the missing ones as 0, the top would be 0.375.
  EXPECT_DOUBLE_EQ(prr.ci.lo, 0.0);
  EXPECT_DOUBLE_EQ(prr.ci.hi, 0.5);
  const auto& cf = s.protocols[0].metrics.at("cf");
  EXPECT_EQ(cf.n, 1);
  EXPECT_DOUBLE_EQ(cf.mean, 0.9);
  EXPECT_DOUBLE_EQ(cf.ci.lo, 0.9);
  EXPECT_DOUBLE_EQ(cf.ci.hi, 0.9);
  EXPECT_TRUE(s.protocols[1].metrics.empty());
  const auto j = nlohmann::json::parse(summary_to_json(s));
  EXPECT_DOUBLE_EQ(j["protocols"][0]["metrics"]["prr"].get<double>(), 0.25);
  EXPECT_EQ(j["protocols"][0]["metrics_n"]["prr"], 2);
  EXPECT_EQ(j["protocols"][0]["metrics_ci"]["prr"], nlohmann::json::parse("[0.0, 0.5]"));
  EXPECT_EQ(j["protocols"][0]["metrics_ci"]["cf"], nlohmann::json::parse("[0.9, 0.9]"));
}

// Two debates of one protocol whose every cost differs: tokens in 90 and 280, out 10 and 20
// (totals 100 and 300), calls 1 and 3.
std::vector<Transcript> two_costs() {
  auto a = debate("debate", "q1", true, 90, 1);
  auto b = debate("debate", "q2", false, 270, 1);
  b.messages[0].completion_tokens = 10;
  MessageRecord more;
  more.agent = "a2";
  more.prompt_tokens = 5;
  more.completion_tokens = 5;
  b.messages.push_back(more);
  b.messages.push_back(more);  // b: in 270 + 5 + 5 = 280, out 10 + 5 + 5 = 20, 3 calls
  return {a, b};
}

TEST(Summarize, EveryMeanHasItsOwnBootstrapCi) {
  // Two debates: resampled means are the low value (1/4), the midpoint (1/2) or the high value
  // (1/4), so each 95% CI is [low, high] whatever the stream; a CI taken from the wrong
  // quantity shows at once.
  const Summary s = summarize(two_costs(), {}, false);
  const ProtocolSummary& p = s.protocols.at(0);
  EXPECT_DOUBLE_EQ(p.tokens_in_mean, 185.0);
  EXPECT_DOUBLE_EQ(p.tokens_out_mean, 15.0);
  EXPECT_DOUBLE_EQ(p.calls_mean, 2.0);
  EXPECT_DOUBLE_EQ(p.tokens_ci.lo, 100.0);
  EXPECT_DOUBLE_EQ(p.tokens_ci.hi, 300.0);
  EXPECT_DOUBLE_EQ(p.tokens_in_ci.lo, 90.0);
  EXPECT_DOUBLE_EQ(p.tokens_in_ci.hi, 280.0);
  EXPECT_DOUBLE_EQ(p.tokens_out_ci.lo, 10.0);
  EXPECT_DOUBLE_EQ(p.tokens_out_ci.hi, 20.0);
  EXPECT_DOUBLE_EQ(p.calls_ci.lo, 1.0);
  EXPECT_DOUBLE_EQ(p.calls_ci.hi, 3.0);
  EXPECT_DOUBLE_EQ(p.accuracy_ci.lo, 0.0);
  EXPECT_DOUBLE_EQ(p.accuracy_ci.hi, 1.0);
  const auto row = nlohmann::json::parse(summary_to_json(s))["protocols"][0];
  EXPECT_DOUBLE_EQ(row["tokens_mean"].get<double>(), 200.0);
  EXPECT_EQ(row["tokens_ci"], nlohmann::json::parse("[100.0, 300.0]"));
  EXPECT_EQ(row["tokens_in_ci"], nlohmann::json::parse("[90.0, 280.0]"));
  EXPECT_EQ(row["tokens_out_ci"], nlohmann::json::parse("[10.0, 20.0]"));
  EXPECT_EQ(row["calls_ci"], nlohmann::json::parse("[1.0, 3.0]"));
}

TEST(Summarize, QuantitiesOnTheSameDebatesShareTheirResamplesAndProtocolsDoNot) {
  // Eight debates with the same 0/1 outcomes for accuracy and for a metric, under two labels;
  // a third metric is defined on five of the eight. Quantities on the same debates are
  // resampled with the same draws (the stream of (seed, label, debates)), so equal values give
  // equal CIs; each protocol has its own stream; a rerun repeats every one.
  std::vector<Transcript> run;
  for (const char* protocol : {"x", "y"}) {
    for (int i = 0; i < 8; ++i) {
      run.push_back(debate(protocol, "q" + std::to_string(i), i % 3 == 0, 100, 1));
      run.back().metrics["cf"] = i % 3 == 0 ? 1.0 : 0.0;
      if (i < 5) run.back().metrics["ad"] = 0.1 * i;
    }
  }
  const Summary s = summarize(run, {}, false, 7);
  const auto& x = s.protocols[0];
  const auto& y = s.protocols[1];
  const std::vector<double> outcomes = {1, 0, 0, 1, 0, 0, 1, 0};  // q0..q7: i % 3 == 0
  const std::vector<double> ad = {0.1 * 0, 0.1 * 1, 0.1 * 2, 0.1 * 3, 0.1 * 4};  // q0..q4
  for (const ProtocolSummary* p : {&x, &y}) {
    const Interval expected = bootstrap_mean_ci(outcomes, HashBuilder().add(std::uint64_t{7}).add(p->name).add(std::uint64_t{8}).value());
    EXPECT_EQ(p->accuracy_ci.lo, expected.lo);
    EXPECT_EQ(p->accuracy_ci.hi, expected.hi);
    EXPECT_EQ(p->metrics.at("cf").ci.lo, expected.lo);
    EXPECT_EQ(p->metrics.at("cf").ci.hi, expected.hi);
    const Interval expected_ad = bootstrap_mean_ci(ad, HashBuilder().add(std::uint64_t{7}).add(p->name).add(std::uint64_t{5}).value());
    EXPECT_EQ(p->metrics.at("ad").ci.lo, expected_ad.lo);
    EXPECT_EQ(p->metrics.at("ad").ci.hi, expected_ad.hi);
  }
  const auto differs = [](const Interval& a, const Interval& b) { return a.lo != b.lo || a.hi != b.hi; };
  EXPECT_TRUE(differs(x.accuracy_ci, y.accuracy_ci) || differs(x.metrics.at("ad").ci, y.metrics.at("ad").ci));
  EXPECT_EQ(summary_to_json(summarize(run, {}, false, 7)), summary_to_json(s));
}

TEST(Table, MeansWithCisForThePapersMetrics) {
  auto run = two_costs();
  run[0].metrics["prr"] = 0.25;
  run[1].metrics["prr"] = 0.75;
  run[0].metrics["u_sys"] = 0.5;
  const std::string table = render_table(summarize(run, {}, false));
  EXPECT_NE(table.find("mean [95% bootstrap CI] over the debates that define each (every metric is in "
                       "summary.json):\n"
                       "protocol  tokens                  prr\n"
                       "debate    200 [100, 300]          0.500 [0.250, 0.750]\n"
                       "protocol  u_sys\n"
                       "debate    0.500 [0.500, 0.500]\n"),
            std::string::npos)
      << table;
}

TEST(SummaryJson, HasTheDocumentedShape) {
  const auto j = nlohmann::json::parse(summary_to_json(summarize(sample_run(), {"single"}, true)));
  EXPECT_TRUE(j["simulated"].get<bool>());
  const auto& row = j["protocols"][0];
  for (const char* key : {"name", "n", "accuracy", "accuracy_ci", "tokens_in_mean", "tokens_out_mean", "calls_mean",
                          "apt", "unparsed_rate", "failed"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_EQ(row["accuracy_ci"].size(), 2u);
  EXPECT_EQ(row["failed"].get<int>(), 1);
}

// single → debate by (task, seed):  q1/1 ✓→✓, q2/1 ✓→✗, q3/1 ✗→✓, q4/1 ✗→✗, q1/2 ✗→✓;
// q5/1 only single ran and q6/1 only debate: both left out.
std::vector<Transcript> breakdown_run() {
  std::vector<Transcript> run = {
      debate("single", "q1", true, 100, 1),  debate("single", "q2", true, 100, 1),
      debate("single", "q3", false, 100, 1), debate("single", "q4", false, 100, 1),
      debate("single", "q5", true, 100, 1),  debate("single", "q1", false, 100, 1),
      debate("debate", "q1", true, 100, 1),  debate("debate", "q2", false, 100, 1),
      debate("debate", "q3", true, 100, 1),  debate("debate", "q4", false, 100, 1),
      debate("debate", "q6", true, 100, 1),  debate("debate", "q1", true, 100, 1),
  };
  run[5].seed = 2;
  run[11].seed = 2;
  return run;
}

TEST(Summarize, DecisionBreakdownAgainstSingleOverMatchedUnits) {
  const Summary s = summarize(breakdown_run(), {"single", "debate"}, false);
  EXPECT_FALSE(s.protocols[0].vs_single);  // the baseline itself
  ASSERT_TRUE(s.protocols[1].vs_single);
  const DecisionBreakdown& b = *s.protocols[1].vs_single;
  EXPECT_EQ(b.baseline, "single");
  EXPECT_EQ(b.right_right, 1);
  EXPECT_EQ(b.right_wrong, 1);
  EXPECT_EQ(b.wrong_right, 2);
  EXPECT_EQ(b.wrong_wrong, 1);
  EXPECT_EQ(b.units(), 5);

  const auto j = nlohmann::json::parse(summary_to_json(s));
  EXPECT_FALSE(j["protocols"][0].contains("vs_single"));
  EXPECT_EQ(j["protocols"][1]["vs_single"],
            nlohmann::json::parse(R"({"right_right": 1, "right_wrong": 1, "wrong_right": 2, "wrong_wrong": 1,
                                      "baseline": "single"})"));
  const std::string table = render_table(s);
  EXPECT_NE(table.find("vs single on the same task x seed units"), std::string::npos) << table;
  EXPECT_NE(table.find("right->right  right->wrong  wrong->right  wrong->wrong"), std::string::npos) << table;
  EXPECT_NE(table.find("debate        5             1             1             2             1"), std::string::npos)
      << table;
}

TEST(Summarize, NoBreakdownWithoutASingleProtocol) {
  auto run = breakdown_run();
  for (auto& t : run)
    if (t.protocol == "single") t.protocol = "cot";
  const Summary s = summarize(run, {}, false);
  for (const auto& p : s.protocols) EXPECT_FALSE(p.vs_single) << p.name;
  EXPECT_EQ(render_table(s).find("vs single"), std::string::npos);
  EXPECT_EQ(summary_to_json(s).find("vs_single"), std::string::npos);
}

// A selective protocol's trigger event (protocols/selective.h).
Transcript selective(const std::string& task, bool debated, bool single_correct, bool correct) {
  Transcript t = debate("imad", task, correct, 100, 1);
  t.events.push_back({0, "trigger",
                      nlohmann::json{{"method", "imad"}, {"decision", debated ? "debate" : "skip"},
                                     {"single_answer", "A"}, {"single_correct", single_correct}}.dump()});
  return t;
}

// Served traffic without gold: no unit is right or wrong, so none is in either breakdown.
TEST(Summarize, UnitsWithoutGoldAreLeftOutOfTheDecisionBreakdowns) {
  auto run = breakdown_run();  // 5 matched units, as above
  for (auto& t : run) {
    if (t.task_id == "q2") t.gold.clear();  // q2/1 ✓→✗ loses its gold on both sides
  }
  auto no_gold_single = debate("single", "q7", false, 100, 1);
  no_gold_single.gold.clear();
  auto gold_debate = debate("debate", "q7", true, 100, 1);  // its baseline has none: left out
  run.push_back(no_gold_single);
  run.push_back(gold_debate);
  const Summary s = summarize(run, {"single", "debate"}, false);
  ASSERT_TRUE(s.protocols[1].vs_single);
  const DecisionBreakdown& b = *s.protocols[1].vs_single;
  EXPECT_EQ(b.right_right, 1);
  EXPECT_EQ(b.right_wrong, 0);
  EXPECT_EQ(b.wrong_right, 2);
  EXPECT_EQ(b.wrong_wrong, 1);
  EXPECT_EQ(b.units(), 4);

  auto gold_less_trigger = [](const std::string& task, bool debated) {
    Transcript t = selective(task, debated, false, false);
    t.gold.clear();
    return t;
  };
  std::vector<Transcript> served = {gold_less_trigger("s1", false), gold_less_trigger("s2", true)};
  const Summary selective_summary = summarize(served, {"imad"}, false);
  EXPECT_FALSE(selective_summary.protocols[0].selective);  // no decision can be judged, nor counted
}

// imad on six units; the MAD reference ran q1–q4 only:
//   q1 skip, single ✓, mad ✗   → skipped r->w (beneficial: the skip avoided harm)
//   q2 skip, single ✗, mad ✗   → skipped w->w (beneficial)
//   q3 skip, single ✗, mad ✓   → skipped w->r (harmful: a fix missed)
//   q4 debate, single ✓, own ✓ → debated r->r (wasted)
//   q5 debate, single ✗, own ✓ → debated w->r (beneficial)
//   q6 skip, single ✗, no mad  → unknown, left out of the rate
// beneficial 3 of 5 judged decisions; 2 of 6 debated.
TEST(Summarize, SelectiveDecisionsTakeMadsOutcomeOnSkippedUnitsFromTheReference) {
  std::vector<Transcript> run = {selective("q1", false, true, true),  selective("q2", false, false, false),
                                 selective("q3", false, false, false), selective("q4", true, true, true),
                                 selective("q5", true, false, true),   selective("q6", false, false, false),
                                 debate("mad", "q1", false, 100, 1),  debate("mad", "q2", false, 100, 1),
                                 debate("mad", "q3", true, 100, 1),   debate("mad", "q4", true, 100, 1)};
  const Summary s = summarize(run, {"imad", "mad"}, false);
  ASSERT_TRUE(s.protocols[0].selective);
  const SelectiveDecisions& d = *s.protocols[0].selective;
  EXPECT_EQ(d.mad_reference, "mad");
  EXPECT_EQ(d.skipped.right_wrong, 1);
  EXPECT_EQ(d.skipped.wrong_wrong, 1);
  EXPECT_EQ(d.skipped.wrong_right, 1);
  EXPECT_EQ(d.skipped.right_right, 0);
  EXPECT_EQ(d.debated.right_right, 1);
  EXPECT_EQ(d.debated.wrong_right, 1);
  EXPECT_EQ(d.skipped_wrong_unknown, 1);
  EXPECT_EQ(d.decisions(), 6);
  EXPECT_EQ(d.judged(), 5);
  EXPECT_EQ(d.beneficial(), 3);
  EXPECT_DOUBLE_EQ(d.beneficial_rate(), 0.6);
  EXPECT_DOUBLE_EQ(d.debate_rate(), 2.0 / 6.0);
  // Without the single baseline the reference has no row of its own.
  EXPECT_FALSE(s.protocols[1].selective);
  const auto j = nlohmann::json::parse(summary_to_json(s));
  EXPECT_DOUBLE_EQ(j["protocols"][0]["selective"]["beneficial_rate"].get<double>(), 0.6);
  const std::string table = render_table(s);
  EXPECT_NE(table.find("selective debate decisions (iMAD Table 4)"), std::string::npos) << table;
  EXPECT_NE(table.find("1 skipped units have no MAD outcome"), std::string::npos) << table;
}

TEST(Summarize, FullMadDebatesEveryUnitAgainstTheSingleBaseline) {
  auto run = breakdown_run();
  for (auto& t : run)
    if (t.protocol == "debate") t.protocol = "mad";
  const Summary s = summarize(run, {"single", "mad"}, false);
  ASSERT_TRUE(s.protocols[1].selective);
  const SelectiveDecisions& d = *s.protocols[1].selective;
  EXPECT_EQ(d.debated.units(), 5);
  EXPECT_EQ(d.skipped.units(), 0);
  EXPECT_DOUBLE_EQ(d.debate_rate(), 1.0);
  EXPECT_DOUBLE_EQ(d.beneficial_rate(), 2.0 / 5.0);  // the two wrong->right units
  EXPECT_FALSE(s.protocols[0].selective);             // single records no decisions
}

// A unit of svr_mad with its pre-debate priors (answer, signals, correctness) and final scores;
// without scores, a unit svr_mad found unanimous before debate (its "unanimous" stop).
Transcript svr_unit(const std::string& task, bool correct, const std::string& priors, const std::string& scores) {
  Transcript t = debate("svr_mad", task, correct, 100, 1);
  t.events.push_back({0, "priors", priors});
  if (!scores.empty()) t.events.push_back({2, "scores", scores});
  else t.events.push_back({0, "stop", R"({"reason":"unanimous","answer":"A"})"});
  return t;
}

// Three agents. q1: one right before debate (a2); min-LL ranks a1 (wrong) first, PPL a2 (lowest
// perplexity, right), confidence a3 (wrong), the final score a2 (right). q2: two right (a1, a3);
// min-LL ranks a1 (right), PPL a1 (tie with a3 at 1.5: the first), confidence a2 (wrong), score a3
// (right). q3: unanimous, left out. Single ran q1 (wrong) and q2 (right).
TEST(Summarize, DifficultyGroupsUnitsByAgentsRightBeforeDebate) {
  std::vector<Transcript> run = {
      svr_unit("q1", true,
               R"([{"answer":"A","min_ll":-0.1,"ppl":1.9,"confidence":0.5,"correct":false},
                   {"answer":"B","min_ll":-0.5,"ppl":1.2,"confidence":0.6,"correct":true},
                   {"answer":"C","min_ll":-0.9,"ppl":2.5,"confidence":0.9,"correct":false}])",
               R"([{"score":-1},{"score":1},{"score":0.9}])"),
      svr_unit("q2", false,
               R"([{"answer":"A","min_ll":-0.2,"ppl":1.5,"confidence":0.5,"correct":true},
                   {"answer":"B","min_ll":-0.4,"ppl":2.0,"confidence":0.8,"correct":false},
                   {"answer":"A","min_ll":null,"ppl":1.5,"confidence":0.7,"correct":true}])",
               R"([{"score":0},{"score":-1},{"score":1}])"),
      svr_unit("q3", true, R"([{"answer":"A","correct":true},{"answer":"A","correct":true},{"answer":"A","correct":true}])",
               ""),
      debate("single", "q1", false, 100, 1),
      debate("single", "q2", true, 100, 1)};
  const Summary s = summarize(run, {"single", "svr_mad"}, true);
  ASSERT_TRUE(s.difficulty);
  const DifficultyBreakdown& d = *s.difficulty;
  EXPECT_EQ(d.source, "svr_mad");
  EXPECT_EQ(d.agents, 3);
  EXPECT_EQ(d.unanimous, 1);
  ASSERT_EQ(d.groups.size(), 2u);
  const DifficultyGroup& one = d.groups[0];
  EXPECT_EQ(one.correct_before, 1);
  EXPECT_EQ(one.units, 1);
  EXPECT_EQ(one.top_correct.count("min_ll"), 0u);
  EXPECT_EQ(one.top_correct.at("ppl"), 1);
  EXPECT_EQ(one.top_correct.count("confidence"), 0u);
  EXPECT_EQ(one.top_correct.at("svr"), 1);
  EXPECT_EQ(one.protocol_units.at("single"), 1);
  EXPECT_EQ(one.protocol_correct.count("single"), 0u);
  EXPECT_EQ(one.protocol_correct.at("svr_mad"), 1);
  const DifficultyGroup& two = d.groups[1];
  EXPECT_EQ(two.correct_before, 2);
  EXPECT_EQ(two.top_correct.at("min_ll"), 1);
  EXPECT_EQ(two.top_correct.at("ppl"), 1);
  EXPECT_EQ(two.top_correct.count("confidence"), 0u);
  EXPECT_EQ(two.top_correct.at("svr"), 1);
  EXPECT_EQ(two.protocol_correct.at("single"), 1);
  const auto j = nlohmann::json::parse(summary_to_json(s));
  EXPECT_DOUBLE_EQ(j["difficulty"]["groups"][0]["top_correct"]["ppl"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["difficulty"]["groups"][0]["accuracy"]["single"].get<double>(), 0.0);
  EXPECT_NE(render_table(s).find("by difficulty (SVR-MAD Fig. 1-2)"), std::string::npos);
  // A run without priors has no breakdown.
  EXPECT_FALSE(summarize(breakdown_run(), {}, false).difficulty);
}

// "Unanimous before debate" is svr_mad's decision (vote.h's unanimous(): free-text answers as the
// vote groups them), which the breakdown reads from its "unanimous" stop, not equality of the
// spelled answers: "Paris", "paris" and "Paris." are one answer, so q1 is left out.
TEST(Summarize, DifficultyLeavesOutTheUnitsSvrMadFoundUnanimous) {
  const std::vector<Transcript> run = {
      svr_unit("q1", true,
               R"([{"answer":"Paris","correct":true},{"answer":"paris","correct":true},
                   {"answer":"Paris.","correct":true}])",
               ""),
      svr_unit("q2", true,
               R"([{"answer":"Paris","correct":true},{"answer":"Lyon","correct":false},
                   {"answer":"Paris","correct":true}])",
               R"([{"score":1},{"score":-1},{"score":0.5}])")};
  const Summary s = summarize(run, {"svr_mad"}, false);
  ASSERT_TRUE(s.difficulty);
  EXPECT_EQ(s.difficulty->unanimous, 1);
  ASSERT_EQ(s.difficulty->groups.size(), 1u);
  EXPECT_EQ(s.difficulty->groups[0].correct_before, 2);
  EXPECT_EQ(s.difficulty->groups[0].units, 1);
}

// A sid_et unit that debated: single-agent min-LL and correctness, its first call's tokens (100),
// the debate's outcome and total tokens (1,000).
Transcript sid_unit(const std::string& task, double min_ll, bool single_correct, bool debate_correct) {
  Transcript t = debate("sid_et", task, debate_correct, 990, 1);  // 990 + 10 tokens
  MessageRecord first;
  first.prompt_tokens = 60;
  first.completion_tokens = 40;
  t.messages.insert(t.messages.begin(), first);
  t.messages.back().prompt_tokens -= 100;  // keep the total at 1,000
  t.events.push_back({0, "trigger", nlohmann::json{{"decision", "debate"}, {"min_logprob", min_ll},
                                                   {"single_correct", single_correct}}.dump()});
  return t;
}

// Ten units, min-LL −0.1·i − 10⁻⁷·i for q0..q9. Single right on q0–q6, wrong on q7–q9; the debate right
// everywhere except q0. Skipping r = 90%: q0–q8 keep the single answer → right on q0–q6 (7), q9
// debated → right: 8/10; tokens (9·100 + 1,000)/10 = 190. The reference (svr_mad) is right on 9
// of 10 with 500 tokens: 0.8 < 0.9 and 190 ≤ 500 → next. r = 80%: q0–q7 single (7 right), q8,
// q9 debated (2): 0.9 ≥ 0.9 → selected, threshold −0.8 (q8's min-LL: sid_et keeps the answers
// whose min-LL is above it, q0–q7). Two more units, u0 and u1, were unanimous before debate
// (svr_mad's record): App. A leaves them out. Kept in, they would make r = 90% reach the
// reference (sid_et right on both with 100 tokens, svr_mad wrong on both: 10/12 ≥ 9/12).
TEST(TuneSkipRate, ReplaysAlgorithmTwoAgainstTheReference) {
  std::vector<Transcript> run;
  for (int i = 0; i < 10; ++i) {
    const std::string task = "q" + std::to_string(i);
    run.push_back(sid_unit(task, -0.1 * i - 1e-7 * i, i <= 6, i != 0));
    run.push_back(debate("svr_mad", task, i != 9, 490, 1));  // 490 + 10 tokens
  }
  for (const char* task : {"u0", "u1"}) {
    run.push_back(sid_unit(task, 0.0, true, true));
    Transcript unanimous = debate("svr_mad", task, false, 90, 1);
    unanimous.events.push_back({0, "priors", R"([{"answer":"7","correct":false}])"});
    unanimous.events.push_back({0, "stop", R"({"reason":"unanimous","answer":"7"})"});
    run.push_back(unanimous);
  }
  auto tuning = tune_skip_rate(run, "sid_et", "svr_mad");
  ASSERT_TRUE(tuning) << tuning.error().message;
  EXPECT_EQ(tuning->units, 10);
  EXPECT_EQ(tuning->unanimous, 2);
  EXPECT_EQ(tuning->pre_debate_source, "svr_mad");
  EXPECT_DOUBLE_EQ(tuning->reference_accuracy, 0.9);
  EXPECT_DOUBLE_EQ(tuning->reference_tokens, 500.0);
  ASSERT_EQ(tuning->rows.size(), 9u);
  EXPECT_DOUBLE_EQ(tuning->rows[0].accuracy, 0.8);
  EXPECT_DOUBLE_EQ(tuning->rows[0].tokens, 190.0);
  EXPECT_DOUBLE_EQ(tuning->rows[1].accuracy, 0.9);
  EXPECT_DOUBLE_EQ(tuning->selected, 0.8);
  EXPECT_NEAR(tuning->rows[1].threshold, -0.8000008, 1e-12);
  const std::string rendered = render_skip_rate(*tuning, "sid_et", "svr_mad");
  EXPECT_NE(rendered.find("selected skip rate 80%"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("2 units unanimous before debate left out"), std::string::npos) << rendered;
  // The printed threshold is the exact double (shortest round-trip form), so that sid_et at
  // that threshold keeps exactly q0–q7.
  // (Python's repr of −0.1·8 − 10⁻⁷·8; six significant digits would print −0.800001, which keeps q8.)
  EXPECT_NE(rendered.find("use threshold: -0.8000008000000001\n"), std::string::npos) << rendered;

  // A unit sid_et skipped cannot be replayed; nor can a run without the reference.
  run[0].events.back().detail = nlohmann::json{{"decision", "skip"}, {"min_logprob", 0.0}}.dump();
  EXPECT_FALSE(tune_skip_rate(run, "sid_et", "svr_mad"));
  EXPECT_FALSE(tune_skip_rate(breakdown_run(), "sid_et", "svr_mad"));
}

// sid_et debates a unit whose single answer did not parse ("forced") or has no min-LL at any
// threshold, so the replay debates it at every rate; a re-ask of the single answer is part of
// the single stage's cost. Units p0–p3 (min-LL −0.1 … −0.4; single right on p0, p1; p0's answer
// re-asked, 100 + 50 tokens), f0 (forced, min-LL −0.01) and n0 (no min-LL, debate wrong); the
// debate costs 1,000 tokens (p0: 1,050) and is right except on n0; svr_mad right on 5 of 6 at 500.
// r = 90%: ⌈5.4⌉ = 6 > 4 skippable, so p0–p3 skipped: right p0, p1, f0 = 3/6, tokens
// (150 + 3·100 + 2·1,000)/6 = 2,450/6. r = 50%: p0–p2 skipped: right p0, p1, p3, f0 = 4/6,
// tokens (150 + 2·100 + 3·1,000)/6 = 3,350/6 > 500: selected, threshold −0.4 (p3's min-LL).
TEST(TuneSkipRate, UnitsSidEtAlwaysDebatesAreDebatedAtEveryRate) {
  std::vector<Transcript> run;
  for (int i = 0; i < 4; ++i) {
    const std::string task = "p" + std::to_string(i);
    Transcript unit = sid_unit(task, -0.1 * (i + 1), i <= 1, true);
    for (std::size_t k = 0; k < unit.messages.size(); ++k) unit.messages[k].id = static_cast<int>(k);
    if (i == 0) {
      MessageRecord reask;
      reask.role = "reask";
      reask.prompt_tokens = 30;
      reask.completion_tokens = 20;
      reask.repeats = 0;
      unit.messages.insert(unit.messages.begin() + 1, reask);
      for (std::size_t k = 0; k < unit.messages.size(); ++k) unit.messages[k].id = static_cast<int>(k);
    }
    run.push_back(unit);
  }
  Transcript forced = sid_unit("f0", -0.01, false, true);
  forced.events.back().detail = nlohmann::json{{"decision", "debate"},
                                               {"forced", "the single agent gave no parsable answer"},
                                               {"min_logprob", -0.01},
                                               {"single_correct", false}}
                                    .dump();
  run.push_back(forced);
  Transcript no_logprobs = sid_unit("n0", 0.0, true, false);
  no_logprobs.events.back().detail = nlohmann::json{{"decision", "debate"}, {"single_correct", true}}.dump();
  run.push_back(no_logprobs);
  for (const char* task : {"p0", "p1", "p2", "p3", "f0", "n0"})
    run.push_back(debate("svr_mad", task, std::string(task) != "n0", 490, 1));

  auto tuning = tune_skip_rate(run, "sid_et", "svr_mad");
  ASSERT_TRUE(tuning) << tuning.error().message;
  EXPECT_EQ(tuning->units, 6);
  EXPECT_EQ(tuning->always_debated, 2);
  EXPECT_DOUBLE_EQ(tuning->reference_accuracy, 5.0 / 6.0);
  ASSERT_EQ(tuning->rows.size(), 9u);
  EXPECT_EQ(tuning->rows[0].skipped, 4);
  EXPECT_DOUBLE_EQ(tuning->rows[0].accuracy, 0.5);
  EXPECT_DOUBLE_EQ(tuning->rows[0].tokens, 2450.0 / 6.0);
  EXPECT_EQ(tuning->rows[4].skipped, 3);
  EXPECT_DOUBLE_EQ(tuning->rows[4].accuracy, 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(tuning->rows[4].tokens, 3350.0 / 6.0);
  EXPECT_DOUBLE_EQ(tuning->rows[4].threshold, -0.4);
  EXPECT_DOUBLE_EQ(tuning->selected, 0.5);
  const std::string rendered = render_skip_rate(*tuning, "sid_et", "svr_mad");
  EXPECT_NE(rendered.find("2 of the units are debated at every rate"), std::string::npos) << rendered;
}

TEST(RenderTable, LabelsSimulatedNumbers) {
  const auto simulated = render_table(summarize(sample_run(), {}, true));
  const auto real = render_table(summarize(sample_run(), {}, false));
  EXPECT_EQ(simulated.rfind("SIMULATED", 0), 0u);
  EXPECT_EQ(real.find("SIMULATED"), std::string::npos);
  EXPECT_NE(real.find("0.750 ["), std::string::npos);
  EXPECT_NE(real.find("288.46"), std::string::npos);
  EXPECT_NE(real.find("25.0%"), std::string::npos);
}

}  // namespace
}  // namespace parley
