// UDPO's diagnosis (parley/diagnosis.h) on hand-built transcripts. Group sizes, means, Cohen's d,
// the selective curves and the strata are worked by hand in the comments; t-tests and
// correlations are quoted from SciPy 1.10.1 (not part of parley), with the columns below:
//   python3 -c "from scipy import stats; print(stats.ttest_ind(f, s, equal_var=False), stats.ttest_ind(f, s, equal_var=True))"
//   python3 -c "from scipy import stats; print(stats.pearsonr(x, y))"
// (the t-test functions themselves are checked in src/stats/hypothesis_test.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "parley/diagnosis.h"

namespace parley {
namespace {

using Json = nlohmann::json;

struct Us {
  std::optional<double> intra, inter, sys;
};

Transcript debate(const std::string& protocol, const std::string& task, std::uint64_t seed, bool correct,
                  Us u, DebateStatus status = DebateStatus::kCompleted) {
  Transcript t;
  t.protocol = protocol;
  t.task_id = task;
  t.seed = seed;
  t.correct = correct;
  t.status = status;
  if (u.intra) t.metrics["u_intra"] = *u.intra;
  if (u.inter) t.metrics["u_inter"] = *u.inter;
  if (u.sys) t.metrics["u_sys"] = *u.sys;
  t.metrics["flip_rate"] = 0.9;  // other metrics play no part
  return t;
}

// "debate" (Standard MAD, the default baseline):
//   unit    correct  U_intra  U_inter  U_sys
//   (a, 1)  yes      0        0        0
//   (b, 1)  yes      0.25     0.1      0
//   (c, 1)  yes      0.25     0.2      0.2
//   (d, 1)  yes      —        0.3      —      status budget: counts like any debate
//   (e, 1)  no       0.25     0.6      0.2
//   (b, 2)  no       0.25     0.8      0.6
//   (f, 1)  no       0.75     0.4      1.0
//   (g, 1)  no       0        0        0      status failed: left out
// "udpo" (U_inter constant 0; it did not run c or f, and ran h, which "debate" did not):
//   (a, 1) no 0.5 0 0.4; (b, 1) yes 0 0 0; (d, 1) yes 0 0 0; (e, 1) yes 0.25 0 0.2;
//   (b, 2) yes 0 0 0; (h, 1) no 0.5 0 0.6
// Listed out of rank order, so that the ranking, not the input, decides the selective curve.
std::vector<Transcript> run() {
  return {debate("debate", "f", 1, false, {0.75, 0.4, 1.0}),
          debate("debate", "g", 1, false, {0.0, 0.0, 0.0}, DebateStatus::kFailed),
          debate("debate", "e", 1, false, {0.25, 0.6, 0.2}),
          debate("debate", "c", 1, true, {0.25, 0.2, 0.2}),
          debate("debate", "b", 2, false, {0.25, 0.8, 0.6}),
          debate("debate", "d", 1, true, {std::nullopt, 0.3, std::nullopt}, DebateStatus::kBudget),
          debate("debate", "b", 1, true, {0.25, 0.1, 0.0}),
          debate("debate", "a", 1, true, {0.0, 0.0, 0.0}),
          debate("udpo", "a", 1, false, {0.5, 0.0, 0.4}),
          debate("udpo", "b", 1, true, {0.0, 0.0, 0.0}),
          debate("udpo", "d", 1, true, {0.0, 0.0, 0.0}),
          debate("udpo", "e", 1, true, {0.25, 0.0, 0.2}),
          debate("udpo", "b", 2, true, {0.0, 0.0, 0.0}),
          debate("udpo", "h", 1, false, {0.5, 0.0, 0.6})};
}

const std::vector<std::string> kOrder = {"debate", "udpo"};

Diagnosis diagnosed(const DiagnosisOptions& options = {}) {
  auto d = diagnose(run(), kOrder, options);
  EXPECT_TRUE(d) << d.error().message;
  return std::move(d).value();
}

const FailureSeparation& separation(const ProtocolDiagnosis& p, std::string_view metric) {
  for (const FailureSeparation& s : p.separation)
    if (s.metric == metric) return s;
  throw std::logic_error("no such metric");
}

const SelectiveCurve& curve(const ProtocolDiagnosis& p, std::string_view metric) {
  for (const SelectiveCurve& c : p.selective)
    if (c.metric == metric) return c;
  throw std::logic_error("no such metric");
}

const DifficultyStrata& strata(const Diagnosis& d, std::string_view metric) {
  for (const DifficultyStrata& s : d.strata)
    if (s.metric == metric) return s;
  throw std::logic_error("no such metric");
}

TEST(Diagnosis, CountsLeaveOutFailedStatusAndKeepBudgetHalted) {
  const Diagnosis d = diagnosed();
  ASSERT_EQ(d.protocols.size(), 2u);
  const ProtocolDiagnosis& mad = d.protocols[0];
  EXPECT_EQ(mad.protocol, "debate");
  EXPECT_EQ(mad.debates, 7);  // (g, 1) left out
  EXPECT_EQ(mad.failed_status, 1);
  EXPECT_EQ(mad.correct, 4);  // a, b/1, c and the budget-halted d
  EXPECT_EQ(d.protocols[1].protocol, "udpo");
  EXPECT_EQ(d.protocols[1].debates, 6);
  EXPECT_EQ(d.protocols[1].failed_status, 0);
  EXPECT_EQ(d.protocols[1].correct, 4);
  EXPECT_EQ(d.baseline, "debate");  // the run has Standard MAD
}

TEST(Diagnosis, FailedAgainstSuccessfulPerUncertainty) {
  const Diagnosis d = diagnosed();
  const ProtocolDiagnosis& mad = d.protocols[0];
  ASSERT_EQ(mad.separation.size(), 3u);
  EXPECT_EQ(mad.separation[0].metric, "u_intra");
  EXPECT_EQ(mad.separation[2].metric, "u_sys");

  // U_intra (d has none): failed {0.25, 0.25, 0.75}: mean 5/12, variance 1/12; successful
  // {0, 0.25, 0.25}: mean 1/6, variance 1/48. s_pooled² = (2/12 + 2/48) / 4 = 5/96.
  const FailureSeparation& intra = separation(mad, "u_intra");
  EXPECT_EQ(intra.failed.n, 3);
  EXPECT_EQ(intra.successful.n, 3);
  EXPECT_NEAR(intra.failed.mean.value(), 5.0 / 12, 1e-15);
  EXPECT_NEAR(intra.failed.sd.value(), std::sqrt(1.0 / 12), 1e-15);
  EXPECT_NEAR(intra.successful.mean.value(), 1.0 / 6, 1e-15);
  EXPECT_NEAR(intra.successful.sd.value(), std::sqrt(1.0 / 48), 1e-15);
  EXPECT_NEAR(intra.cohens_d.value(), 0.25 / std::sqrt(5.0 / 96), 1e-12);
  // Equal group sizes: Welch's t is Student's; their df and p differ. SciPy, f=[0.25,0.25,0.75];
  // s=[0,0.25,0.25].
  ASSERT_TRUE(intra.welch && intra.student);
  EXPECT_NEAR(intra.welch.value().t, 1.3416407864998738, 1e-12);
  EXPECT_NEAR(intra.welch.value().df, 2.9411764705882355, 1e-12);
  EXPECT_NEAR(intra.welch.value().p, 0.273892756441101, 1e-12);
  EXPECT_NEAR(intra.student.value().t, 1.3416407864998738, 1e-12);
  EXPECT_DOUBLE_EQ(intra.student.value().df, 4.0);
  EXPECT_NEAR(intra.student.value().p, 0.25081535976844566, 1e-12);

  // U_inter (all seven): failed {0.6, 0.8, 0.4}: mean 0.6; successful {0, 0.1, 0.2, 0.3}: mean
  // 0.15. s_pooled² = (2 · 0.04 + 3 · 0.05/3) / 5 = 0.026, d = 0.45 / √0.026. SciPy, f=[0.6,0.8,0.4];
  // s=[0,0.1,0.2,0.3].
  const FailureSeparation& inter = separation(mad, "u_inter");
  EXPECT_EQ(inter.failed.n, 3);
  EXPECT_EQ(inter.successful.n, 4);
  EXPECT_NEAR(inter.failed.mean.value(), 0.6, 1e-15);
  EXPECT_NEAR(inter.successful.mean.value(), 0.15, 1e-15);
  EXPECT_NEAR(inter.cohens_d.value(), 0.45 / std::sqrt(0.026), 1e-12);
  EXPECT_NEAR(inter.welch.value().t, 3.4016802570830444, 1e-12);
  EXPECT_NEAR(inter.welch.value().df, 3.2347188264058673, 1e-12);
  EXPECT_NEAR(inter.welch.value().p, 0.037815082238369595, 1e-12);
  EXPECT_NEAR(inter.student.value().t, 3.6539907432351755, 1e-12);
  EXPECT_DOUBLE_EQ(inter.student.value().df, 5.0);
  EXPECT_NEAR(inter.student.value().p, 0.0146868480091607, 1e-12);

  // U_sys: failed {0.2, 0.6, 1.0}: mean 0.6, variance 0.16; successful {0, 0, 0.2}: mean 1/15,
  // variance 1/75; s_pooled² = (0.32 + 2/75) / 4 = 13/150, d = (8/15) / √(13/150).
  const FailureSeparation& sys = separation(mad, "u_sys");
  EXPECT_EQ(sys.failed.n, 3);
  EXPECT_EQ(sys.successful.n, 3);
  EXPECT_NEAR(sys.failed.mean.value(), 0.6, 1e-15);
  EXPECT_NEAR(sys.successful.mean.value(), 1.0 / 15, 1e-15);
  EXPECT_NEAR(sys.cohens_d.value(), (8.0 / 15) / std::sqrt(13.0 / 150), 1e-12);
  EXPECT_NEAR(sys.welch.value().p, 0.1384601889767475, 1e-12);  // SciPy, f=[0.2,0.6,1.0]; s=[0,0,0.2]
}

TEST(Diagnosis, NoSpreadOrNoGroupIsUndefinedNotANumber) {
  const Diagnosis d = diagnosed();
  // udpo's U_inter is 0 throughout: means 0, SDs 0, tests and d undefined.
  const FailureSeparation& flat = separation(d.protocols[1], "u_inter");
  EXPECT_EQ(flat.failed.n, 2);
  EXPECT_EQ(flat.successful.n, 4);
  EXPECT_EQ(flat.failed.mean.value(), 0.0);
  // Two values are enough for an SD: udpo's failed U_sys {0.4, 0.6}.
  EXPECT_NEAR(separation(d.protocols[1], "u_sys").failed.sd.value(), std::sqrt(0.02), 1e-15);
  EXPECT_EQ(flat.failed.sd.value(), 0.0);
  EXPECT_FALSE(flat.welch);
  EXPECT_FALSE(flat.student);
  EXPECT_FALSE(flat.cohens_d);

  // A protocol without a single failure, and one debate with a U: no mean where no value, no SD
  // below two.
  std::vector<Transcript> transcripts = run();
  transcripts.push_back(debate("single", "a", 1, true, {std::nullopt, std::nullopt, 0.5}));
  transcripts.push_back(debate("single", "b", 1, true, {}));
  const auto r = diagnose(transcripts, {"debate", "udpo", "single"}, {.protocol = "single"});
  ASSERT_TRUE(r) << r.error().message;
  const FailureSeparation& lone = separation(r->protocols[0], "u_sys");
  EXPECT_EQ(lone.failed.n, 0);
  EXPECT_FALSE(lone.failed.mean);
  EXPECT_FALSE(lone.failed.sd);
  EXPECT_EQ(lone.successful.n, 1);
  EXPECT_EQ(lone.successful.mean.value(), 0.5);
  EXPECT_FALSE(lone.successful.sd);
  EXPECT_FALSE(lone.welch || lone.student || lone.cohens_d);
  EXPECT_EQ(separation(r->protocols[0], "u_intra").successful.n, 0);
  EXPECT_EQ(r->protocols[0].correlations.n, 0);
  EXPECT_FALSE(r->protocols[0].correlations.cells[2][3]);
  EXPECT_EQ(curve(r->protocols[0], "u_sys").n, 1);
  EXPECT_EQ(curve(r->protocols[0], "u_sys").points.size(), 10u);  // one debate kept at every k
  EXPECT_EQ(curve(r->protocols[0], "u_sys").points[0].kept, 1);
  EXPECT_EQ(curve(r->protocols[0], "u_intra").n, 0);
  EXPECT_TRUE(curve(r->protocols[0], "u_intra").points.empty());
}

TEST(Diagnosis, CorrelationMatrixOverDebatesDefiningAllThree) {
  const Diagnosis d = diagnosed();
  // debate: a, b/1, c, e, b/2, f (d lacks U_intra and U_sys; g failed). SciPy, with
  // u_intra=[0,.25,.25,.25,.25,.75], u_inter=[0,.1,.2,.6,.8,.4], u_sys=[0,0,.2,.2,.6,1.0],
  // correct=[1,1,1,0,0,0].
  const CorrelationMatrix& m = d.protocols[0].correlations;
  EXPECT_EQ(m.variables, (std::vector<std::string>{"u_intra", "u_inter", "u_sys", "correct"}));
  EXPECT_EQ(m.n, 6);
  ASSERT_EQ(m.cells.size(), 4u);
  ASSERT_EQ(m.cells[0].size(), 4u);
  EXPECT_NEAR(m.cells[0][1].value().r, 0.29699034797053386, 1e-12);
  EXPECT_NEAR(m.cells[0][1].value().p, 0.5676122374919016, 1e-12);
  EXPECT_NEAR(m.cells[0][2].value().r, 0.8620689655172412, 1e-12);  // 25/29
  EXPECT_NEAR(m.cells[0][2].value().p, 0.027225388494813343, 1e-12);
  EXPECT_NEAR(m.cells[1][3].value().r, -0.8885233166386386, 1e-12);
  EXPECT_NEAR(m.cells[1][3].value().p, 0.017947913188873177, 1e-12);
  EXPECT_NEAR(m.cells[3][1].value().r, -0.8885233166386386, 1e-12);  // symmetric
  // The point-biserial test of U_sys with correct is Student's t-test of U_sys by outcome: the
  // same p (0.0907331716847805, above).
  EXPECT_NEAR(m.cells[2][3].value().r, -0.7427813527082074, 1e-12);
  EXPECT_NEAR(m.cells[2][3].value().p, 0.09073317168478055, 1e-12);
  EXPECT_NEAR(m.cells[2][3].value().p, separation(d.protocols[0], "u_sys").student.value().p, 1e-12);
  EXPECT_NEAR(m.cells[0][3].value().r, -0.5570860145311556, 1e-12);
  EXPECT_EQ(m.cells[0][3].value().n, 6);
  EXPECT_NEAR(m.cells[3][3].value().r, 1.0, 1e-12);
  EXPECT_LT(m.cells[3][3].value().p, 1e-15);

  // udpo: U_inter is constant, so its row and column (its diagonal cell too) are undefined; the
  // rest are not. SciPy, u_intra=[.5,0,0,.25,0,.5], u_sys=[.4,0,0,.2,0,.6], correct=[0,1,1,1,1,0].
  const CorrelationMatrix& u = d.protocols[1].correlations;
  EXPECT_EQ(u.n, 6);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_FALSE(u.cells[1][k]) << k;
    EXPECT_FALSE(u.cells[k][1]) << k;
  }
  EXPECT_NEAR(u.cells[0][2].value().r, 0.9649012813540154, 1e-12);
  EXPECT_NEAR(u.cells[0][2].value().p, 0.0018262606682599755, 1e-11);
  EXPECT_NEAR(u.cells[2][3].value().r, -0.9185586535436915, 1e-12);
  EXPECT_NEAR(u.cells[2][3].value().p, 0.009678951648207338, 1e-11);
}

TEST(Diagnosis, SelectivePredictionKeepsTheLowestUWithTiesByTaskThenSeed) {
  const Diagnosis d = diagnosed();
  const ProtocolDiagnosis& mad = d.protocols[0];
  // U_intra, n = 6, ranked: a 0 (right); the ties at 0.25 by task, then seed: b/1 (right),
  // b/2 (wrong), c (right), e (wrong); f 0.75 (wrong). kept = ⌈6k/100⌉ = 1, 2, 2, 3, 3, 4, 5, 5,
  // 6, 6. Ranking the ties by seed first (b/1, c, e, b/2) would keep 3 right at k = 40.
  const SelectiveCurve& intra = curve(mad, "u_intra");
  EXPECT_EQ(intra.n, 6);
  ASSERT_EQ(intra.points.size(), 10u);
  const std::vector<std::int64_t> kept = {1, 2, 2, 3, 3, 4, 5, 5, 6, 6};
  const std::vector<std::int64_t> right = {1, 2, 2, 2, 2, 3, 3, 3, 3, 3};
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(intra.points[i].percent, 10 * static_cast<int>(i + 1));
    EXPECT_EQ(intra.points[i].kept, kept[i]) << i;
    EXPECT_EQ(intra.points[i].correct, right[i]) << i;
    EXPECT_DOUBLE_EQ(intra.points[i].accuracy, static_cast<double>(right[i]) / static_cast<double>(kept[i]))
        << i;
  }
  // At k = 100 the accuracy is that of the n debates defining U_intra (3 of 6), not the
  // protocol's (4 of 7).
  EXPECT_DOUBLE_EQ(intra.points.back().accuracy, 0.5);

  // U_inter, n = 7 (d included): a 0, b/1 0.1, c 0.2, d 0.3 right; f 0.4, e 0.6, b/2 0.8 wrong.
  // kept = ⌈7k/100⌉ = 1, 2, 3, 3, 4, 5, 5, 6, 7, 7.
  const SelectiveCurve& inter = curve(mad, "u_inter");
  EXPECT_EQ(inter.n, 7);
  const std::vector<std::int64_t> kept7 = {1, 2, 3, 3, 4, 5, 5, 6, 7, 7};
  const std::vector<std::int64_t> right7 = {1, 2, 3, 3, 4, 4, 4, 4, 4, 4};
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(inter.points[i].kept, kept7[i]) << i;
    EXPECT_EQ(inter.points[i].correct, right7[i]) << i;
  }
  EXPECT_DOUBLE_EQ(inter.points[5].accuracy, 0.8);
  EXPECT_DOUBLE_EQ(inter.points.back().accuracy, 4.0 / 7);

  // U_sys ties: a and b/1 at 0, c (right) and e (wrong) at 0.2. kept at k = 30: ⌈1.8⌉ = 2,
  // at k = 50: 3 (a, b/1, c), at k = 60: 4 (e too).
  const SelectiveCurve& sys = curve(mad, "u_sys");
  EXPECT_EQ(sys.points[4].kept, 3);
  EXPECT_EQ(sys.points[4].correct, 3);
  EXPECT_EQ(sys.points[5].kept, 4);
  EXPECT_EQ(sys.points[5].correct, 3);
}

TEST(Diagnosis, StrataBinAUOneRoundingErrorBelowAnEdgeAtTheEdge) {
  // U_sys = (H + D + L) / 3 with shares: 0.6 / 3 is 0.19999999999999998 in doubles, and 2.4 / 3 is
  // 0.7999999999999999; each is the edge value and opens its bin.
  std::vector<Transcript> debates = {debate("debate", "a", 1, true, {0.0, 0.0, 0.6 / 3}),
                                     debate("debate", "b", 1, false, {0.0, 0.0, 2.4 / 3}),
                                     debate("debate", "c", 1, true, {0.0, 0.0, 0.2 - 1e-9})};
  ASSERT_LT(0.6 / 3, 0.2);
  auto d = diagnose(debates, {"debate"}, {});
  ASSERT_TRUE(d) << d.error().message;
  const DifficultyStrata& sys = strata(*d, "u_sys");
  EXPECT_EQ(sys.strata[0].units, 1);  // c: a real 1e-9 below the edge stays below it
  EXPECT_EQ(sys.strata[1].units, 1);  // a
  EXPECT_EQ(sys.strata[3].units, 0);
  EXPECT_EQ(sys.strata[4].units, 1);  // b
}

TEST(Diagnosis, StrataByTheBaselinesUOnTheSameUnits) {
  const Diagnosis d = diagnosed();
  ASSERT_EQ(d.strata.size(), 3u);
  EXPECT_EQ(d.strata[0].metric, "u_sys");  // the paper's Fig. 5 first
  const DifficultyStrata& sys = strata(d, "u_sys");
  EXPECT_EQ(sys.baseline, "debate");
  EXPECT_EQ(sys.units, 6);
  EXPECT_EQ(sys.without_metric, 1);   // d
  EXPECT_EQ(sys.baseline_failed, 1);  // g
  ASSERT_EQ(sys.strata.size(), 5u);
  for (int b = 0; b < 5; ++b) {
    EXPECT_DOUBLE_EQ(sys.strata[b].low, 0.2 * b);
    EXPECT_DOUBLE_EQ(sys.strata[b].high, 0.2 * (b + 1));
    ASSERT_EQ(sys.strata[b].protocols.size(), 1u);
    EXPECT_EQ(sys.strata[b].protocols[0].protocol, "udpo");
  }
  // [0, 0.2): a, b/1, both right; udpo wrong on a, right on b/1: −50 pp.
  const Stratum& easiest = sys.strata[0];
  EXPECT_EQ(easiest.units, 2);
  EXPECT_EQ(easiest.baseline_correct, 2);
  EXPECT_DOUBLE_EQ(easiest.baseline_accuracy.value(), 1.0);
  EXPECT_EQ(easiest.protocols[0].units, 2);
  EXPECT_DOUBLE_EQ(easiest.protocols[0].accuracy.value(), 0.5);
  EXPECT_DOUBLE_EQ(easiest.protocols[0].gain_pp.value(), -50.0);
  // [0.2, 0.4): c (right) and e (wrong) — 0.2 opens the bin. udpo ran e alone and got it right:
  // against the baseline on e (0 of 1), not on the bin (1 of 2): +100 pp.
  const Stratum& second = sys.strata[1];
  EXPECT_EQ(second.units, 2);
  EXPECT_DOUBLE_EQ(second.baseline_accuracy.value(), 0.5);
  EXPECT_EQ(second.protocols[0].units, 1);
  EXPECT_EQ(second.protocols[0].correct, 1);
  EXPECT_EQ(second.protocols[0].baseline_correct, 0);
  EXPECT_DOUBLE_EQ(second.protocols[0].baseline_accuracy.value(), 0.0);
  EXPECT_DOUBLE_EQ(second.protocols[0].gain_pp.value(), 100.0);
  // [0.4, 0.6): empty — nothing to compare (udpo's own U of 0.4 on a does not bin anything).
  EXPECT_EQ(sys.strata[2].units, 0);
  EXPECT_FALSE(sys.strata[2].baseline_accuracy);
  EXPECT_EQ(sys.strata[2].protocols[0].units, 0);
  EXPECT_FALSE(sys.strata[2].protocols[0].accuracy);
  EXPECT_FALSE(sys.strata[2].protocols[0].baseline_accuracy);
  EXPECT_FALSE(sys.strata[2].protocols[0].gain_pp);
  // [0.6, 0.8): b/2 (0.6 opens the bin), wrong; udpo right.
  EXPECT_EQ(sys.strata[3].units, 1);
  EXPECT_DOUBLE_EQ(sys.strata[3].baseline_accuracy.value(), 0.0);
  EXPECT_DOUBLE_EQ(sys.strata[3].protocols[0].gain_pp.value(), 100.0);
  // [0.8, 1.0]: f at 1.0, wrong; udpo did not run f (nor is h, which only udpo ran, anywhere).
  EXPECT_EQ(sys.strata[4].units, 1);
  EXPECT_EQ(sys.strata[4].baseline_correct, 0);
  EXPECT_EQ(sys.strata[4].protocols[0].units, 0);
  EXPECT_FALSE(sys.strata[4].protocols[0].gain_pp);

  // By U_inter (Fig. 11(b)): every unit has it; f at 0.4 opens [0.4, 0.6), b/2 at 0.8 opens
  // [0.8, 1.0], d at 0.3 joins c in [0.2, 0.4).
  const DifficultyStrata& inter = strata(d, "u_inter");
  EXPECT_EQ(inter.units, 7);
  EXPECT_EQ(inter.without_metric, 0);
  const std::vector<std::int64_t> inter_units = {2, 2, 1, 1, 1};
  for (std::size_t b = 0; b < 5; ++b) EXPECT_EQ(inter.strata[b].units, inter_units[b]) << b;
  EXPECT_EQ(inter.strata[1].baseline_correct, 2);
  EXPECT_EQ(inter.strata[1].protocols[0].units, 1);  // udpo ran d, not c
  // By U_intra (Fig. 11(a)): a in [0, 0.2), the four at 0.25 in [0.2, 0.4), f in [0.6, 0.8).
  const DifficultyStrata& intra = strata(d, "u_intra");
  EXPECT_EQ(intra.units, 6);
  EXPECT_EQ(intra.without_metric, 1);
  const std::vector<std::int64_t> intra_units = {1, 4, 0, 1, 0};
  for (std::size_t b = 0; b < 5; ++b) EXPECT_EQ(intra.strata[b].units, intra_units[b]) << b;
  EXPECT_DOUBLE_EQ(intra.strata[1].protocols[0].gain_pp.value(), 100.0 * (3.0 / 3 - 1.0 / 3));  // b/1, e, b/2
}

TEST(Diagnosis, ChoosingTheProtocolAndTheBaseline) {
  // --protocol: that protocol alone, compared in the strata with the baseline.
  const Diagnosis only_udpo = diagnosed({.protocol = "udpo"});
  ASSERT_EQ(only_udpo.protocols.size(), 1u);
  EXPECT_EQ(only_udpo.protocols[0].protocol, "udpo");
  EXPECT_EQ(only_udpo.baseline, "debate");
  EXPECT_EQ(strata(only_udpo, "u_sys").strata[0].protocols.size(), 1u);
  const Diagnosis only_mad = diagnosed({.protocol = "debate"});
  EXPECT_TRUE(strata(only_mad, "u_sys").strata[0].protocols.empty());  // nothing to compare

  // Another baseline: units binned by udpo's U; debate compared on them.
  const Diagnosis by_udpo = diagnosed({.baseline = "udpo"});
  const DifficultyStrata& s = strata(by_udpo, "u_sys");
  EXPECT_EQ(s.baseline, "udpo");
  EXPECT_EQ(s.units, 6);
  EXPECT_EQ(s.baseline_failed, 0);
  EXPECT_EQ(s.strata[0].units, 3);  // b/1, d, b/2 at 0
  EXPECT_EQ(s.strata[0].protocols[0].protocol, "debate");
  EXPECT_EQ(s.strata[0].protocols[0].units, 3);
  EXPECT_EQ(s.strata[0].protocols[0].correct, 2);  // b/1, d right; b/2 wrong
  EXPECT_EQ(s.strata[3].units, 1);                 // h at 0.6, which debate never ran
  EXPECT_EQ(s.strata[3].protocols[0].units, 0);

  // Without a protocol labelled "debate": the first in report order.
  std::vector<Transcript> renamed = run();
  for (Transcript& t : renamed)
    if (t.protocol == "debate") t.protocol = "mad";
  const auto first = diagnose(renamed, {"udpo", "mad"});
  ASSERT_TRUE(first);
  EXPECT_EQ(first->baseline, "udpo");
  EXPECT_EQ(first->protocols[0].protocol, "udpo");
  EXPECT_EQ(diagnose(renamed, {})->baseline, "mad");  // sorted when the order names none
}

TEST(Diagnosis, ErrorsNameTheProblem) {
  const auto empty = diagnose({}, {});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "no debates in this run");
  const auto protocol = diagnose(run(), kOrder, {.protocol = "mappo"});
  ASSERT_FALSE(protocol);
  EXPECT_EQ(protocol.error().message, "'mappo' is not a protocol of this run (protocols: debate, udpo)");
  const auto baseline = diagnose(run(), kOrder, {.baseline = "single"});
  ASSERT_FALSE(baseline);
  EXPECT_EQ(baseline.error().message,
            "the baseline 'single' is not a protocol of this run (protocols: debate, udpo)");
}

TEST(Diagnosis, AProtocolWithOnlyFailedDebates) {
  std::vector<Transcript> transcripts = run();
  transcripts.push_back(debate("broken", "a", 1, false, {}, DebateStatus::kFailed));
  const auto d = diagnose(transcripts, {"debate", "udpo", "broken"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->protocols[2].debates, 0);
  EXPECT_EQ(d->protocols[2].failed_status, 1);
  EXPECT_EQ(strata(*d, "u_sys").strata[0].protocols[1].units, 0);
  const auto as_baseline = diagnose(transcripts, {"debate", "udpo", "broken"}, {.baseline = "broken"});
  ASSERT_TRUE(as_baseline);
  EXPECT_EQ(strata(*as_baseline, "u_sys").units, 0);
  EXPECT_EQ(strata(*as_baseline, "u_sys").baseline_failed, 1);
}

TEST(Diagnosis, TableAndJson) {
  Diagnosis d = diagnosed();
  d.simulated = true;
  const std::string table = render_diagnosis(d);
  EXPECT_EQ(table.rfind("SIMULATED: these numbers come from parley's built-in simulator.\n", 0), 0u) << table;
  EXPECT_NE(table.find("debate: 7 debates, 4 correct (accuracy 0.571); 1 of status failed left out"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("udpo: 6 debates, 4 correct (accuracy 0.667)\n"), std::string::npos) << table;
  EXPECT_NE(table.find("Welch t"), std::string::npos);
  EXPECT_NE(table.find("Student t"), std::string::npos);
  // U_intra of debate: n 3 and 3, means 0.417 and 0.167, d 1.095.
  EXPECT_NE(table.find("U_intra   3         0.417   3        0.167   1.342     2.9     0.274     1.342      "
                       "0.251     1.095"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("over the 6 debates defining all three U"), std::string::npos);
  EXPECT_NE(table.find("0.862 (p 0.0272)"), std::string::npos) << table;
  EXPECT_NE(table.find("U_sys (n 6)"), std::string::npos) << table;
  EXPECT_NE(table.find("    40    0.667 (3)         1.000 (3)         1.000 (3)"), std::string::npos)
      << table;
  EXPECT_NE(
      table.find("Difficulty strata by debate's U_sys on the same (task, seed) (Fig. 5): 6 units; 1 without "
                 "U_sys left out; 1 of status failed left out"),
      std::string::npos)
      << table;
  EXPECT_NE(table.find("    [0.2, 0.4)    2      0.500       1.000 (+100.0) [1]"), std::string::npos)
      << table;
  EXPECT_NE(table.find("    [0.0, 0.2)    2      1.000       0.500 (-50.0)"), std::string::npos) << table;
  EXPECT_NE(table.find("    [0.8, 1.0]    1      0.000       —"), std::string::npos) << table;
  EXPECT_EQ(table.find("U_intra bin"), std::string::npos);  // the Fig. 11 strata are in the JSON
  d.simulated = false;
  EXPECT_EQ(render_diagnosis(d).find("SIMULATED"), std::string::npos);

  const std::string json = diagnosis_to_json(diagnosed({.simulated = true}));
  EXPECT_EQ(json.rfind("{\n  \"simulated\": true,\n  \"baseline\"", 0), 0u) << json;  // pretty, key order kept
  const Json j = Json::parse(json);
  EXPECT_EQ(j["simulated"], true);
  EXPECT_EQ(j["baseline"], "debate");
  const Json& mad = j["protocols"][0];
  EXPECT_EQ(mad["protocol"], "debate");
  EXPECT_EQ(mad["debates"], 7);
  EXPECT_EQ(mad["failed_status"], 1);
  EXPECT_EQ(mad["correct"], 4);
  EXPECT_NEAR(mad["accuracy"].get<double>(), 4.0 / 7, 1e-15);
  const Json& sys = mad["failure_separation"][2];
  EXPECT_EQ(sys["metric"], "u_sys");
  EXPECT_EQ(sys["failed"]["n"], 3);
  EXPECT_NEAR(sys["failed"]["mean"].get<double>(), 0.6, 1e-15);
  EXPECT_NEAR(sys["successful"]["sd"].get<double>(), std::sqrt(1.0 / 75), 1e-15);
  EXPECT_NEAR(sys["welch"]["p"].get<double>(), 0.1384601889767475, 1e-12);
  EXPECT_DOUBLE_EQ(sys["student"]["df"].get<double>(), 4.0);
  EXPECT_NEAR(sys["welch"]["t"].get<double>(), 2.2188007849009166, 1e-12);
  EXPECT_NEAR(sys["cohens_d"].get<double>(), 1.811643254631353, 1e-12);
  EXPECT_EQ(mad["correlations"]["n"], 6);
  EXPECT_EQ(mad["correlations"]["variables"][3], "correct");
  EXPECT_NEAR(mad["correlations"]["r"][1][3].get<double>(), -0.8885233166386386, 1e-12);
  EXPECT_NEAR(mad["correlations"]["p"][1][3].get<double>(), 0.017947913188873177, 1e-12);
  const Json& udpo = j["protocols"][1];
  EXPECT_TRUE(udpo["correlations"]["r"][1][1].is_null());
  EXPECT_TRUE(udpo["correlations"]["p"][0][1].is_null());
  EXPECT_TRUE(udpo["failure_separation"][1]["welch"].is_null());
  EXPECT_TRUE(udpo["failure_separation"][1]["student"].is_null());
  EXPECT_TRUE(udpo["failure_separation"][1]["cohens_d"].is_null());
  EXPECT_EQ(udpo["failure_separation"][1]["failed"]["mean"], 0.0);
  const Json& point = mad["selective_prediction"][0]["points"][3];
  EXPECT_EQ(mad["selective_prediction"][0]["metric"], "u_intra");
  EXPECT_EQ(mad["selective_prediction"][0]["n"], 6);
  EXPECT_EQ(point["k"], 40);
  EXPECT_EQ(point["kept"], 3);
  EXPECT_EQ(point["correct"], 2);
  EXPECT_NEAR(point["accuracy"].get<double>(), 2.0 / 3, 1e-15);
  ASSERT_EQ(j["difficulty_strata"].size(), 3u);
  const Json& by_sys = j["difficulty_strata"][0];
  EXPECT_EQ(by_sys["metric"], "u_sys");
  EXPECT_EQ(by_sys["baseline"], "debate");
  EXPECT_EQ(by_sys["units"], 6);
  EXPECT_EQ(by_sys["without_metric"], 1);
  EXPECT_EQ(by_sys["baseline_failed"], 1);
  EXPECT_EQ(by_sys["strata"][4]["low"], 0.8);
  EXPECT_EQ(by_sys["strata"][4]["high"], 1.0);
  const Json& second = by_sys["strata"][1];
  EXPECT_EQ(second["units"], 2);
  EXPECT_EQ(second["baseline_correct"], 1);
  EXPECT_EQ(second["baseline_accuracy"], 0.5);
  EXPECT_EQ(second["protocols"][0]["protocol"], "udpo");
  EXPECT_EQ(second["protocols"][0]["units"], 1);
  EXPECT_EQ(second["protocols"][0]["correct"], 1);
  EXPECT_EQ(second["protocols"][0]["accuracy"], 1.0);
  EXPECT_EQ(second["protocols"][0]["baseline_correct"], 0);
  EXPECT_EQ(second["protocols"][0]["baseline_accuracy"], 0.0);
  EXPECT_EQ(second["protocols"][0]["gain_pp"], 100.0);
  EXPECT_TRUE(by_sys["strata"][2]["baseline_accuracy"].is_null());
  EXPECT_TRUE(by_sys["strata"][2]["protocols"][0]["gain_pp"].is_null());
  EXPECT_EQ(j["difficulty_strata"][1]["metric"], "u_intra");
  EXPECT_EQ(j["difficulty_strata"][2]["metric"], "u_inter");
}

TEST(Diagnosis, TableLayout) {
  // Every header of the tables, and the rows that show each kind of cell, exactly.
  std::vector<Transcript> transcripts = run();
  transcripts.push_back(debate("single", "a", 1, true, {}));
  const auto r = diagnose(transcripts, {"debate", "udpo", "single"});
  ASSERT_TRUE(r) << r.error().message;
  const std::string table = render_diagnosis(*r);
  const auto has_line = [&](const std::string& line) {
    EXPECT_NE(table.find("\n" + line + "\n"), std::string::npos) << "missing line:\n" << line << "\nin:\n" << table;
  };
  EXPECT_EQ(table.rfind("UDPO's diagnosis of debate collapse (§3.2): failed = not correct; debates of status failed "
                        "left out\n\ndebate: 7 debates",
                        0),
            0u)
      << table;
  has_line("              failed n  mean    succ. n  mean    Welch t   df      p         Student t  p         Cohen's d");
  has_line("    U_inter   3         0.600   4        0.150   3.402     3.2     0.0378    3.654      0.0147    2.791");
  has_line("    U_sys     3         0.600   3        0.067   2.219     2.3     0.138     2.219      0.0907    1.812");
  has_line("    U_inter   2         0.000   4        0.000   —         —       —         —          —         —");
  has_line("              U_intra               U_inter               U_sys                 correct");
  has_line("    U_intra   1.000 (p 0)           —                     0.965 (p 0.00183)     -0.919 (p 0.00954)");
  has_line("    U_inter   0.297 (p 0.568)       1.000 (p 1.8e-32)     0.561 (p 0.247)       -0.889 (p 0.0179)");
  has_line("    k%    U_intra (n 6)     U_inter (n 7)     U_sys (n 6)");
  has_line("    k%    U_intra (n 0)     U_inter (n 0)     U_sys (n 0)");
  // Ten rows, k = 10 … 100, and the table ends.
  EXPECT_NE(table.find("\n    100   —                 —                 —\n\nDifficulty strata"), std::string::npos);
  has_line("    U_sys bin     units  debate      udpo                  single");
  has_line("    [0.8, 1.0]    1      0.000       — [0]                 — [0]");
  // The strata by U_sys follow the last protocol after a blank line; by U_intra and U_inter
  // they are only in the JSON.
  EXPECT_NE(table.find("\n\nDifficulty strata by debate's U_sys"), std::string::npos);
  // p = 0.001 itself is written plainly; below it, in scientific notation.
  Diagnosis edited = *r;
  edited.protocols[0].separation[1].welch.value().p = 0.001;
  edited.protocols[0].separation[1].student.value().p = 0.00099;
  EXPECT_NE(render_diagnosis(edited).find(
                "\n    U_inter   3         0.600   4        0.150   3.402     3.2     0.001     3.654      9.9e-04   2.791\n"),
            std::string::npos)
      << render_diagnosis(edited);
  // Nothing left out: no clause saying so.
  const std::string by_udpo = render_diagnosis(*diagnose(run(), kOrder, {.baseline = "udpo"}));
  EXPECT_NE(by_udpo.find("Difficulty strata by udpo's U_sys on the same (task, seed) (Fig. 5): 6 units\n"),
            std::string::npos)
      << by_udpo;
}

}  // namespace
}  // namespace parley
