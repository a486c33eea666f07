// MACI's run-level analyses on hand-built transcripts: which verdicts become ratings, the
// winners and flips, the Wilson interval and the percentiles, worked by hand; α by an
// independent computation (Krippendorff 2011's interval formula, coincidence-free, in Python:
// D_o = Σ_u Σ_{i≠j} (v_i − v_j)² / (m_u − 1) / n, D_e = Σ_{i≠j} (v_i − v_j)² / (n (n − 1))).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "parley/maci_report.h"

namespace parley {
namespace {

using Json = nlohmann::json;

Json verdict(const std::string& judge, std::optional<double> composite, int shown_at) {
  Json v{{"judge", judge}, {"shown_at", shown_at}};
  if (composite) {
    v["composite"] = *composite;
  } else {
    v["failed"] = "no JSON";
  }
  return v;
}

Json argument(const std::string& agent, int index, std::vector<std::optional<double>> scores) {
  Json judges = Json::array();
  for (std::size_t k = 0; k < scores.size(); ++k) judges.push_back(verdict("j" + std::to_string(k + 1), scores[k], index));
  return {{"agent", agent}, {"index", index}, {"judges", judges}};
}

Transcript debate(const std::string& task, std::vector<Json> arguments) {
  Transcript t;
  t.protocol = "maci";
  t.task_id = task;
  t.events.push_back({1, "judge", Json{{"mode", "crit"}, {"temperature", 0.3}, {"arguments", arguments}}.dump()});
  t.events.push_back({1, "judge", Json{{"mode", "score"}, {"arguments", Json::array()}}.dump()});  // not CRIT
  return t;
}

std::vector<Transcript> run() {
  return {debate("t1", {argument("a1", 0, {0.9, 0.8, 0.7}), argument("a2", 0, {0.5, 0.9, 0.4}),
                        argument("a1", 1, {0.7, std::nullopt, 0.6})}),
          debate("t2", {argument("a1", 0, {0.2, 0.3, 0.2}), argument("a2", 0, {0.6, 0.5, 0.7})})};
}

TEST(JudgeReliability, RatingsWinnersAndFlipsFromTheCritEvents) {
  auto r = judge_reliability(run(), "maci", 1, 200);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->judges, (std::vector<std::string>{"j1", "j2", "j3"}));
  EXPECT_EQ(r->debates, 2);
  EXPECT_EQ(r->arguments, 5);
  EXPECT_EQ(r->missing, 1);
  EXPECT_NEAR(r->alpha, 0.6199596774193548, 1e-12);
  // t1: j1 favours a1 (0.8 vs 0.5), j2 a2 (0.8 vs 0.9), j3 a1 (0.65 vs 0.4); t2: all a2.
  ASSERT_EQ(r->flips.size(), 2u);
  EXPECT_EQ(r->flips[0].swapped, "j2");
  EXPECT_EQ(r->flips[0].rounds, 2);
  EXPECT_EQ(r->flips[0].flips, 1);
  // Wilson 95% of 1/2: 0.5 ± 1.959964·√(0.25/2 + z²/16) / (1 + z²/2).
  EXPECT_NEAR(r->flips[0].rate_ci.lo, 0.094531, 1e-5);
  EXPECT_NEAR(r->flips[0].rate_ci.hi, 0.905469, 1e-5);
  EXPECT_EQ(r->flips[1].flips, 0);
  // 14 valid verdicts; t1's third argument stands at place 1 of 0..2 (0.5), the rest at 0: the
  // Spearman correlation of place and score is 0.127720 (Python, average ranks).
  EXPECT_EQ(r->position_pairs, 14);
  EXPECT_NEAR(r->position_spearman, 0.12772021528712793, 1e-12);
  // Mean pairwise Spearman over the units both judges rated: (j1, j2) 0.4, (j1, j3) 0.820783,
  // (j2, j3) 0.316228 (Python, average ranks) → 0.512337; α's bootstrap interval around α.
  EXPECT_EQ(r->spearman.pairs, 3);
  EXPECT_NEAR(r->spearman.mean, 0.512336815894987, 1e-12);
  EXPECT_LT(r->alpha_ci.lo, r->alpha);
  EXPECT_GT(r->alpha_ci.hi, r->alpha);
  const Json j = Json::parse(judge_reliability_to_json(*r));
  EXPECT_EQ(j["winner_flips"][0]["flips"], 1);
  const std::string table = render_judge_reliability(*r);
  EXPECT_NE(table.find("winner flips, j1 -> j2: 1 of 2 rounds = 0.500"), std::string::npos);
  EXPECT_NE(table.find("(1 verdicts missing)"), std::string::npos);
  EXPECT_NE(table.find("forward/reverse order pairs do not arise"), std::string::npos);
}

TEST(JudgeReliability, PlacesAreScaledPerRoundAndAVerdictWithoutOneHasNoPlace) {
  // Round A: 2 arguments at places 0, 1 of 1 (scaled 0, 1.0), the second scored 0.9; round B: 5
  // arguments at places 0..4 of 4 (scaled 0 … 1.0), the third scored 0.1, the rest 0.5. Spearman
  // of scaled places (0, 1, 0, .25, .5, .75, 1) and scores (.5, .9, .5, .5, .1, .5, .5), j1's
  // only: 0.340207 (Python, average ranks); unscaled places would give −0.204124.
  auto one_judge = [](const std::string& agent, int index, int shown_at, double score) {
    Json judges = Json::array({Json{{"judge", "j1"}, {"shown_at", shown_at}, {"composite", score}},
                               Json{{"judge", "j2"}, {"composite", score}}});  // j2: no place recorded
    return Json{{"agent", agent}, {"index", index}, {"judges", judges}};
  };
  std::vector<Transcript> ts = {
      debate("A", {one_judge("a1", 0, 0, 0.5), one_judge("a2", 0, 1, 0.9)}),
      debate("B", {one_judge("a1", 0, 0, 0.5), one_judge("a2", 0, 1, 0.5), one_judge("a1", 1, 2, 0.1),
                   one_judge("a2", 1, 3, 0.5), one_judge("a1", 2, 4, 0.5)})};
  auto r = judge_reliability(ts, "maci", 1, 50);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->position_pairs, 7);
  EXPECT_NEAR(r->position_spearman, 0.34020690871988585, 1e-9);
}

TEST(JudgeReliability, TiesThreeAuthorsMissingVerdictsAndOtherEventsAreReadAsDefined) {
  std::vector<Transcript> ts;
  // A tie under j1 (0.6 each): that round names no winner for j1 and counts for no swap.
  ts.push_back(debate("tie", {argument("a1", 0, {0.6, 0.9}), argument("a2", 0, {0.6, 0.1})}));
  // Three authors: both judges put a1 on top (j1 0.9, j2 0.8) but disagree at the bottom.
  ts.push_back(debate("three", {argument("a1", 0, {0.9, 0.8}), argument("a2", 0, {0.5, 0.1}),
                                argument("a3", 0, {0.1, 0.5})}));
  // j2 gave no verdict on a1's strong argument: its winner is a2, by a2's only score.
  ts.push_back(debate("missing", {argument("a1", 0, {0.9, std::nullopt}), argument("a1", 1, {0.2, 0.3}),
                                  argument("a2", 0, {0.5, 0.6})}));
  // Events that are not CRIT verdicts are not read, whatever their detail.
  ts.back().events.push_back({1, "judge", Json{{"mode", "score"}, {"arguments", {argument("a9", 0, {0.0, 1.0})}}}.dump()});
  ts.back().events.push_back({1, "maci_round", Json{{"mode", "crit"}, {"arguments", {argument("a9", 0, {0.0, 1.0})}}}.dump()});
  auto r = judge_reliability(ts, "maci", 1, 100);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->arguments, 8);  // 2 + 3 + 3; the a9 arguments are not counted
  EXPECT_EQ(r->missing, 1);
  ASSERT_EQ(r->flips.size(), 1u);
  // "three": a1 and a1, no flip; "missing": j1 a1 ((0.9 + 0.2)/2 = 0.55 > 0.5), j2 a2 (0.6 > 0.3): a flip.
  EXPECT_EQ(r->flips[0].rounds, 2);
  EXPECT_EQ(r->flips[0].flips, 1);
}

TEST(JudgeReliability, OneJudgeIsAnErrorNotACrash) {
  auto r = judge_reliability({debate("t", {argument("a1", 0, {0.5}), argument("a2", 0, {0.4})})}, "maci", 1, 50);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("needs at least 2"), std::string::npos);
}

TEST(JudgeReliability, NothingMissingIsNotReportedAsMissing) {
  auto r = judge_reliability({debate("t", {argument("a1", 0, {0.5, 0.6}), argument("a2", 0, {0.4, 0.3})})}, "maci", 1, 50);
  ASSERT_TRUE(r);
  EXPECT_EQ(render_judge_reliability(*r).find("missing"), std::string::npos);
}

TEST(JudgeReliability, NoCritEventsOrAChangedPanelIsAnError) {
  EXPECT_FALSE(judge_reliability(run(), "mad"));
  auto changed = run();
  changed.push_back(debate("t3", {argument("a1", 0, {0.5, 0.5})}));  // two judges only
  auto r = judge_reliability(changed, "maci");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("panel differs"), std::string::npos);
}

TEST(PercentileBins, TypeSevenPercentilesWithNoEvidenceAsZero) {
  std::vector<Transcript> ts;
  const std::vector<std::optional<double>> quality = {0.2, std::nullopt, 0.6, 0.8};
  const std::vector<double> disagreement = {0.1, 0.5, 0.3, 0.9};
  for (std::size_t i = 0; i < quality.size(); ++i) {
    Transcript t;
    t.protocol = "maci";
    Json detail{{"disagreement", disagreement[i]}, {"encoder", "model"}};
    detail["evidence_quality"] = quality[i] ? Json(*quality[i]) : Json(nullptr);
    t.events.push_back({0, "maci_start", detail.dump()});
    ts.push_back(t);
  }
  auto bins = percentile_bins(ts, "maci");
  ASSERT_TRUE(bins) << bins.error().message;
  // Q_0 sorted (0, .2, .6, .8): P30 at h = 0.9 → 0.18, P70 at h = 2.1 → 0.62; D_JS,0 (.1, .3,
  // .5, .9): 0.28 and 0.54.
  EXPECT_NEAR(bins->quality_low, 0.18, 1e-12);
  EXPECT_NEAR(bins->quality_high, 0.62, 1e-12);
  EXPECT_NEAR(bins->disagreement_low, 0.28, 1e-12);
  EXPECT_NEAR(bins->disagreement_high, 0.54, 1e-12);
  EXPECT_NE(render_percentile_bins(*bins).find("percentile_bins: true"), std::string::npos);
  EXPECT_EQ(bins->protocol, "maci");
  EXPECT_EQ(bins->debates, 4);
  EXPECT_FALSE(percentile_bins(ts, "other"));
  // Only maci_start events count, and one whose detail is not JSON is skipped.
  ts[0].events.push_back({1, "maci_round", Json{{"disagreement", 0.99}, {"evidence_quality", 0.99}}.dump()});
  ts[1].events.push_back({0, "maci_start", "{not json"});
  bins = percentile_bins(ts, "maci");
  ASSERT_TRUE(bins);
  EXPECT_EQ(bins->debates, 4);
  EXPECT_NEAR(bins->quality_high, 0.62, 1e-12);
  EXPECT_NE(render_percentile_bins(*bins).find("by the model encoder"), std::string::npos);
  // A run that mixed encoders has no one scale for Q_0.
  ts[2].events[0] = {0, "maci_start", Json{{"disagreement", 0.3}, {"evidence_quality", 0.2}, {"encoder", "lexical"}}.dump()};
  bins = percentile_bins(ts, "maci");
  ASSERT_FALSE(bins);
  EXPECT_NE(bins.error().message.find("different encoders (lexical, model)"), std::string::npos);
}

}  // namespace
}  // namespace parley
