// FocusCal terms (iMAD eqs. 6–8) on pinned inputs worked out by hand, the batch objective's
// agreement with the public helpers, and parse_loss_spec on good and bad specs.

#include "trigger/loss.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "parley/trigger_model.h"
#include "trigger/mlp.h"

namespace parley {
namespace {

const FocusCalParams kDefaults;  // α0 2, α1 1, γ 2, λ 6, μ 5, B 15, τ 0.7

TEST(FocalLoss, PinnedValues) {
  // eq. (6) with α1 = 1, α0 = 2, γ = 2:
  //   p .5, y 1: −1·.5²·ln .5 = .25·ln 2      = 0.173286795
  //   p .5, y 0: −2·.5²·ln .5 = .5·ln 2       = 0.346573590
  //   p .9, y 1: −1·.1²·ln .9 = .01·0.1053605 = 0.001053605
  //   p .8, y 0: −2·.8²·ln .2 = 1.28·1.6094379 = 2.060080528
  // mean = 2.580994518 / 4 = 0.645248630
  EXPECT_NEAR(focal_loss({0.5, 0.5, 0.9, 0.8}, {1, 0, 1, 0}, kDefaults), 0.6452486296, 1e-9);
  EXPECT_NEAR(focal_loss({0.5}, {1}, kDefaults), 0.1732867951, 1e-9);
  EXPECT_NEAR(focal_loss({0.8}, {0}, kDefaults), 2.0600805279, 1e-9);
  // A confident correct answer costs almost nothing: .01²·(−ln .99) = 1.005e-6.
  EXPECT_NEAR(focal_loss({0.99}, {1}, kDefaults), 1.00503e-6, 1e-10);
  EXPECT_EQ(focal_loss({}, {}, kDefaults), 0.0);
  EXPECT_THROW((void)focal_loss({0.5}, {1, 0}, kDefaults), std::invalid_argument);
}

TEST(FocalLoss, GammaZeroAlphaOneIsCrossEntropy) {
  FocusCalParams p;
  p.alpha0 = p.alpha1 = 1.0;
  p.gamma = 0.0;
  // −(ln .25 + ln(1 − .4))/2 = (1.3862944 + 0.5108256)/2 = 0.9485600
  EXPECT_NEAR(focal_loss({0.25, 0.4}, {1, 0}, p), 0.9485599924, 1e-9);
}

TEST(ConfidencePenalty, PinnedValues) {
  // eq. (7), τ = 0.7:
  //   p .8, y 0, u .3: p > τ → u² = .09
  //   p .6, y 0, u .4: p ≤ τ → 0
  //   p .5, y 1, u .2: p < τ → (1 − .2)² = .64
  //   p .9, y 1, u .5: p ≥ τ → 0
  //   p .7, y 0, u .9: p = τ is not > τ → 0
  // mean = .73 / 5 = .146
  EXPECT_NEAR(
      confidence_penalty({0.8, 0.6, 0.5, 0.9, 0.7}, {0.3, 0.4, 0.2, 0.5, 0.9}, {0, 0, 1, 1, 0}, kDefaults),
      0.146, 1e-12);
  EXPECT_NEAR(confidence_penalty({0.71}, {1.0}, {0}, kDefaults), 1.0, 1e-12);
  EXPECT_EQ(confidence_penalty({0.1}, {1.0}, {1}, kDefaults), 0.0);  // (1 − 1)² = 0
  EXPECT_THROW((void)confidence_penalty({0.5}, {0.5, 0.5}, {1}, kDefaults), std::invalid_argument);
}

TEST(ExpectedCalibrationError, PinnedValues) {
  const std::vector<double> p = {0.1, 0.15, 0.5, 0.55, 0.9, 1.0};
  const std::vector<int> y = {0, 1, 1, 0, 1, 1};
  // 5 bins, bin = floor(5p): .1, .15 → 0; .5, .55 → 2; .9 and 1.0 → 4 (p = 1 in the last bin).
  //   bin 0: |.25 − 1| = .75; bin 2: |1.05 − 1| = .05; bin 4: |1.9 − 2| = .1 → .9 / 6 = .15
  EXPECT_NEAR(expected_calibration_error(p, y, 5), 0.15, 1e-12);
  // 15 bins: every score alone (bins 1, 2, 7, 8, 13, 14):
  //   .1 + .85 + .5 + .55 + .1 + 0 = 2.1 → 2.1 / 6 = .35
  EXPECT_NEAR(expected_calibration_error(p, y), 0.35, 1e-12);
  // One bin: |Σp − Σy| / N = |3.2 − 4| / 6 = .8 / 6.
  EXPECT_NEAR(expected_calibration_error(p, y, 1), 0.8 / 6.0, 1e-12);
  // Calibrated within the bin: four at .25 with one correct → |1 − 1| = 0.
  EXPECT_NEAR(expected_calibration_error({0.25, 0.25, 0.25, 0.25}, {1, 0, 0, 0}), 0.0, 1e-15);
  EXPECT_EQ(expected_calibration_error({}, {}), 0.0);
}

TEST(CalibrationBin, EdgesGoUpAndOneGoesToTheLastBin) {
  EXPECT_EQ(trigger::calibration_bin(0.0, 15), 0);
  EXPECT_EQ(trigger::calibration_bin(0.5, 4), 2);  // floor(2.0)
  EXPECT_EQ(trigger::calibration_bin(0.999, 15), 14);
  EXPECT_EQ(trigger::calibration_bin(1.0, 15), 14);
}

// The batch objective evaluated on logits agrees with the public per-term helpers on p = σ(z).
TEST(BatchLoss, AgreesWithThePublicHelpers) {
  const std::vector<double> z_values = {-1.2, 0.3, 2.0, 0.9, -0.4, 1.6};
  const std::vector<double> lu_values = {0.5, -1.0, 0.2, 1.4, -0.3, 0.0};
  const std::vector<int> y = {0, 1, 0, 1, 1, 0};
  Eigen::RowVectorXd z(6), lu(6);
  std::vector<double> p, u;
  for (int i = 0; i < 6; ++i) {
    z[i] = z_values[i];
    lu[i] = lu_values[i];
    p.push_back(trigger::sigmoid(z[i]));
    u.push_back(trigger::sigmoid(lu[i]));
  }
  auto value = [&](const char* spec) {
    return trigger::batch_loss(parse_loss_spec(spec, kDefaults).value(), kDefaults, z, lu, y).value;
  };
  const double af = focal_loss(p, y, kDefaults);
  const double cp = confidence_penalty(p, u, y, kDefaults);
  const double ece = expected_calibration_error(p, y, kDefaults.bins);
  EXPECT_GT(cp, 0.0);
  EXPECT_NEAR(value("af"), af, 1e-12);
  EXPECT_NEAR(value("cp"), 6.0 * cp, 1e-12);                         // default weight λ
  EXPECT_NEAR(value("ece"), 5.0 * ece, 1e-12);                       // default weight μ
  EXPECT_NEAR(value("focuscal"), af + 6.0 * cp + 5.0 * ece, 1e-12);  // eq. (5)
  double bce = 0.0, mse = 0.0;
  for (int i = 0; i < 6; ++i) {
    bce -= y[i] == 1 ? std::log(p[i]) : std::log(1.0 - p[i]);
    mse += (p[i] - y[i]) * (p[i] - y[i]);
  }
  EXPECT_NEAR(value("bce"), bce / 6.0, 1e-12);
  EXPECT_NEAR(value("mse"), mse / 6.0, 1e-12);
  EXPECT_NEAR(value("af+cp+bce"), af + 6.0 * cp + 5.0 * bce / 6.0, 1e-12);  // bce in ece's slot: μ
}

TEST(BatchLoss, BceAtZeroLogitIsLogTwo) {
  Eigen::RowVectorXd z = Eigen::RowVectorXd::Zero(2), lu = Eigen::RowVectorXd::Zero(2);
  const trigger::BatchLoss l =
      trigger::batch_loss(parse_loss_spec("bce", kDefaults).value(), kDefaults, z, lu, {1, 0});
  EXPECT_NEAR(l.value, std::log(2.0), 1e-15);  // −ln .5 for both
  EXPECT_NEAR(l.dz[0], -0.25, 1e-15);          // (p − y)/N = (.5 − 1)/2
  EXPECT_NEAR(l.dz[1], 0.25, 1e-15);
}

TEST(BatchLoss, SaturatedLogitsStayFinite) {
  Eigen::RowVectorXd z(2), lu = Eigen::RowVectorXd::Zero(2);
  z << -800.0, 800.0;  // p underflows to 0 and 1
  const trigger::BatchLoss l =
      trigger::batch_loss(parse_loss_spec("af+bce", kDefaults).value(), kDefaults, z, lu, {1, 0});
  EXPECT_TRUE(std::isfinite(l.value));
  // z −800, y 1: af 1·1·800, bce 800; z 800, y 0: af 2·1·800, bce 800 → 4000 / 2 = 2000.
  EXPECT_NEAR(l.value, 2000.0, 1e-9);
  EXPECT_TRUE(std::isfinite(l.dz[0]) && std::isfinite(l.dz[1]));
}

TEST(ParseLossSpec, CanonicalFormsAndDefaultWeights) {
  auto text = [](const char* s) { return parse_loss_spec(s, kDefaults)->text; };
  EXPECT_EQ(text("focuscal"), "af+6*cp+5*ece");
  EXPECT_EQ(text(" FocusCal "), "af+6*cp+5*ece");
  EXPECT_EQ(text("af+cp+ece"), "af+6*cp+5*ece");
  EXPECT_EQ(text("ece + cp + af"), "af+6*cp+5*ece");  // canonical order
  EXPECT_EQ(text("bce"), "bce");
  EXPECT_EQ(text("mse"), "mse");
  EXPECT_EQ(text("af"), "af");
  EXPECT_EQ(text("af+cp"), "af+6*cp");
  EXPECT_EQ(text("af+cp+bce"), "af+6*cp+5*bce");  // App. C.2 (iii): replaces ece, keeps μ
  EXPECT_EQ(text("af+cp+mse"), "af+6*cp+5*mse");
  EXPECT_EQ(text("af+bce"), "af+bce");  // not in ece's slot: weight 1
  EXPECT_EQ(text("af+cp+ece+bce"), "af+6*cp+5*ece+bce");
  EXPECT_EQ(text("af+6*cp+5*ece"), "af+6*cp+5*ece");
  EXPECT_EQ(text("2.5*af+cp"), "2.5*af+6*cp");
  EXPECT_EQ(text("1*cp"), "cp");
  EXPECT_EQ(text("0*ece+af"), "af+0*ece");

  const LossSpec s = parse_loss_spec("af+0.5*cp+ece", kDefaults).value();
  ASSERT_EQ(s.terms.size(), 3u);
  EXPECT_EQ(s.terms[0].term, LossTerm::kAsymmetricFocal);
  EXPECT_EQ(s.terms[0].weight, 1.0);
  EXPECT_EQ(s.terms[1].term, LossTerm::kConfidencePenalty);
  EXPECT_EQ(s.terms[1].weight, 0.5);
  EXPECT_EQ(s.terms[2].term, LossTerm::kCalibration);
  EXPECT_EQ(s.terms[2].weight, 5.0);
  // The canonical text is a fixed point.
  EXPECT_EQ(text(s.text.c_str()), s.text);

  FocusCalParams other;
  other.lambda = 2.0;
  other.mu = 0.25;
  EXPECT_EQ(parse_loss_spec("focuscal", other)->text, "af+2*cp+0.25*ece");
}

TEST(ParseLossSpec, RejectsBadSpecsWithAClearMessage) {
  auto error = [](const char* s) {
    const Result<LossSpec> r = parse_loss_spec(s, kDefaults);
    EXPECT_FALSE(r.ok()) << s;
    return r.ok() ? std::string() : r.error().message;
  };
  EXPECT_NE(error("foo").find("unknown term 'foo'"), std::string::npos);
  EXPECT_NE(error("af+focal").find("unknown term 'focal'"), std::string::npos);
  EXPECT_NE(error("").find("empty"), std::string::npos);
  EXPECT_NE(error("af+").find("empty term"), std::string::npos);
  EXPECT_NE(error("af++cp").find("empty term"), std::string::npos);
  EXPECT_NE(error("af+af").find("twice"), std::string::npos);
  EXPECT_NE(error("x*af").find("bad weight 'x'"), std::string::npos);
  EXPECT_NE(error("*af").find("bad weight"), std::string::npos);
  EXPECT_NE(error("2x*af").find("bad weight"), std::string::npos);
  EXPECT_NE(error("1e999*af").find("bad weight"), std::string::npos);
  EXPECT_NE(error("-1*af").find("non-negative"), std::string::npos);
  EXPECT_NE(error("inf*af").find("non-negative"), std::string::npos);
  EXPECT_NE(error("nan*af").find("non-negative"), std::string::npos);
  EXPECT_NE(error("focuscal+bce").find("stands alone"), std::string::npos);
  EXPECT_NE(error("2*").find("unknown term ''"), std::string::npos);
  EXPECT_EQ(error("bogus").rfind("loss spec 'bogus': ", 0), 0u);
}

// FocusCal's terms and gradients on one batch of five, pinned from the equations. Logits chosen
// so that p = σ(z) is exact: z = (ln 3, −ln 3, ln 9, 0, ln 3.5) → p = (3/4, 1/4, 9/10, 1/2, 7/9),
// y = (0, 1, 1, 0, 1); ℓ_u = (ln 3/7, ln 1/4, 0, ln 4, ln 1/9) → u = (0.3, 0.2, 0.5, 0.8, 0.1).
// The values come from eqs. (5)–(8) written out below; the gradients from dp/dz = p(1 − p)
// (closed forms in the comments), re-checked by central differences of the same equations in
// python3 (indicators of eq. 7 and bins of eq. 8 held fixed).
struct PinnedBatch {
  Eigen::RowVectorXd z, l_u;
  std::vector<int> y = {0, 1, 1, 0, 1};
  PinnedBatch() : z(5), l_u(5) {
    z << std::log(3.0), -std::log(3.0), std::log(9.0), 0.0, std::log(3.5);
    l_u << std::log(3.0 / 7.0), std::log(0.25), 0.0, std::log(4.0), std::log(1.0 / 9.0);
  }
  trigger::BatchLoss loss(const char* spec) const {
    return trigger::batch_loss(parse_loss_spec(spec, kDefaults).value(), kDefaults, z, l_u, y);
  }
};

void expect_row(const Eigen::RowVectorXd& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), static_cast<Eigen::Index>(want.size())) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[static_cast<Eigen::Index>(i)], want[i], 1e-9) << what << " [" << i << "]";
}

TEST(BatchLossPinned, AsymmetricFocal) {
  // eq. (6): y = 0: −2 p² ln(1 − p); y = 1: −(1 − p)² ln p.
  //   −2·(9/16)·ln(1/4) = 1.559581156; −(9/16)·ln(1/4) = 0.779790578; −(1/100)·ln(9/10) = 0.001053605;
  //   −2·(1/4)·ln(1/2) = 0.346573590; −(4/81)·ln(7/9) = 0.012410509; mean 0.539881904
  // dL/dz·N: y = 0: α0[p³ − γ p² (1−p) ln(1−p)], y = 1: α1[γ p (1−p)² ln p − (1−p)³]:
  //   2[27/64 + 2·(9/16)(1/4)·ln 4] = 1.623540578 → /5 = 0.324708116, …
  const trigger::BatchLoss l = PinnedBatch().loss("af");
  EXPECT_NEAR(l.value, 0.5398819037754551, 1e-12);
  expect_row(l.dz, {0.3247081156732001, -0.1623540578088445, -0.000579297887437491, 0.1193147181055565,
                    -0.00605585953605825},
             "af dz");
  expect_row(l.dl_u, {0, 0, 0, 0, 0}, "af dl_u");
}

TEST(BatchLossPinned, ConfidencePenalty) {
  // eq. (7), τ = 0.7: example 0 (y 0, p .75 > τ): u² = .09; example 1 (y 1, p .25 < τ):
  // (1 − .2)² = .64; example 2 (y 1, p .9) and 4 (y 1, p .78) are above τ, example 3 (y 0, p .5)
  // below it: 0. Mean .73/5 = .146; weight λ = 6.
  // dL/dℓ_u = 2u·u(1 − u)/N = 2·.3·.21/5 = .0252 and −2(1 − u)·u(1 − u)/N = −2·.8·.16/5 = −.0512;
  // nothing flows into z.
  const trigger::BatchLoss l = PinnedBatch().loss("1*cp");
  EXPECT_NEAR(l.value, 0.146, 1e-12);
  expect_row(l.dl_u, {0.0252, -0.0512, 0, 0, 0}, "cp dl_u");
  expect_row(l.dz, {0, 0, 0, 0, 0}, "cp dz");
  EXPECT_NEAR(PinnedBatch().loss("cp").value, 6.0 * 0.146, 1e-12);
}

TEST(BatchLossPinned, CalibrationError) {
  // eq. (8), 15 bins: p .75 and 7/9 share bin 11 (gap .75 + .7778 − 1 = +.5278), .25 bin 3
  // (gap −.75), .9 bin 13 (−.1), .5 bin 7 (+.5). ECE = (.527778 + .75 + .1 + .5)/5 = .375556.
  // dECE/dz_i = sign(gap of i's bin)·p(1 − p)/N: (+.1875, −.1875, −.09, +.25, +14/81)/5.
  const trigger::BatchLoss l = PinnedBatch().loss("1*ece");
  EXPECT_NEAR(l.value, 0.3755555555555556, 1e-12);
  expect_row(l.dz, {0.0375, -0.0375, -0.018, 0.05, 14.0 / 81.0 / 5.0}, "ece dz");
  expect_row(l.dl_u, {0, 0, 0, 0, 0}, "ece dl_u");
}

TEST(BatchLossPinned, CrossEntropyAndSquaredError) {
  // BCE: −(ln 1/4 + ln 1/4 + ln .9 + ln .5 + ln 7/9)/5 = .764482169; dL/dz = (p − y)/N.
  const trigger::BatchLoss bce = PinnedBatch().loss("bce");
  EXPECT_NEAR(bce.value, 0.7644821693476918, 1e-12);
  expect_row(bce.dz, {0.15, -0.15, -0.02, 0.1, (7.0 / 9.0 - 1.0) / 5.0}, "bce dz");
  // MSE: (.5625 + .5625 + .01 + .25 + 4/81)/5 = .286876543; dL/dz = 2(p − y)p(1 − p)/N.
  const trigger::BatchLoss mse = PinnedBatch().loss("mse");
  EXPECT_NEAR(mse.value, 0.28687654320987654, 1e-12);
  expect_row(mse.dz, {0.05625, -0.05625, -0.0036, 0.05, 2.0 * (-2.0 / 9.0) * (14.0 / 81.0) / 5.0}, "mse dz");
}

TEST(BatchLossPinned, FocusCalIsTheWeightedSum) {
  // eq. (5): L_AF + λ L_CP + μ ECE = .539882 + 6·.146 + 5·.375556 = 3.293659682; the gradients add
  // with the same weights.
  const PinnedBatch b;
  const trigger::BatchLoss l = b.loss("focuscal");
  EXPECT_NEAR(l.value, 3.2936596815532333, 1e-12);
  const trigger::BatchLoss af = b.loss("af"), cp = b.loss("1*cp"), ece = b.loss("1*ece");
  for (Eigen::Index i = 0; i < 5; ++i) {
    EXPECT_NEAR(l.dz[i], af.dz[i] + 5.0 * ece.dz[i], 1e-15) << i;
    EXPECT_NEAR(l.dl_u[i], 6.0 * cp.dl_u[i], 1e-15) << i;
  }
}

}  // namespace
}  // namespace parley
