// MACI's signals and dial rules, one equation at a time. Pinned values: the reading guide's
// (../shared/specs/maci.md, A.8) and Python computations of the same formulas.

#include <gtest/gtest.h>

#include <cmath>

#include "core/hash.h"
#include "parley/maci.h"

namespace parley::maci {
namespace {

TEST(MaciSignals, EvidenceQualityIsTheCosineOfTheMeanUnitSpan) {
  const std::vector<std::vector<double>> spans{{3, 4, 0}, {0, 0, 2}, {1, 1, 1}};
  const std::vector<double> prototype{1, 2, 2};
  ASSERT_TRUE(evidence_quality(spans, prototype));
  EXPECT_NEAR(*evidence_quality(spans, prototype), 0.983308558, 1e-8);
  // Invariant to rescaling any span (each is normalised before the mean) and θ.
  const std::vector<std::vector<double>> rescaled{{30, 40, 0}, {0, 0, 0.5}, {7, 7, 7}};
  const std::vector<double> longer{2, 4, 4};
  EXPECT_NEAR(*evidence_quality(rescaled, longer), 0.983308558, 1e-8);
}

TEST(MaciSignals, EvidenceQualityUndefinedWithoutUsableSpans) {
  const std::vector<double> prototype{1, 0};
  EXPECT_FALSE(evidence_quality(std::vector<std::vector<double>>{}, prototype));
  EXPECT_FALSE(evidence_quality(std::vector<std::vector<double>>{{0, 0}}, prototype));
  EXPECT_FALSE(evidence_quality(std::vector<std::vector<double>>{{1, 0, 0}}, prototype));  // dimension
  EXPECT_FALSE(evidence_quality(std::vector<std::vector<double>>{{1, 0}, {-1, 0}}, prototype));  // cancel
  EXPECT_FALSE(evidence_quality(std::vector<std::vector<double>>{{1, 0}}, std::vector<double>{0, 0}));
  // A zero span is skipped, not averaged in.
  EXPECT_DOUBLE_EQ(*evidence_quality(std::vector<std::vector<double>>{{0, 0}, {2, 0}}, prototype), 1.0);
  EXPECT_DOUBLE_EQ(*evidence_quality(std::vector<std::vector<double>>{{-1, 0}}, prototype), -1.0);
}

// P-Q2 (guide A.8): when every admitted argument has q_i ≥ τ ≥ 0 and the spans are pooled as a
// multiset, the pooled Q is at least τ.
TEST(MaciSignals, PooledQualityOfAdmittedArgumentsIsAtLeastTheGate) {
  Rng rng(3);
  const std::vector<double> prototype{1, 0.5, 0.25, 0};
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::vector<double>> pooled;
    double lowest = 1.0;
    for (int argument = 0; argument < 3; ++argument) {
      std::vector<std::vector<double>> spans;
      for (int span = 0; span < 2; ++span) {
        std::vector<double> v(4);
        for (double& x : v) x = rng.uniform();  // non-negative: q ≥ 0
        spans.push_back(v);
      }
      lowest = std::min(lowest, *evidence_quality(spans, prototype));
      pooled.insert(pooled.end(), spans.begin(), spans.end());
    }
    EXPECT_GE(*evidence_quality(pooled, prototype), lowest - 1e-12);
  }
}

TEST(MaciSignals, SupportOverlapIsJaccard) {
  const std::vector<std::string> a{"d1", "d2", "d3"}, b{"d2", "d3", "d4", "d5"}, none{};
  EXPECT_DOUBLE_EQ(support_overlap(a, b), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(support_overlap(b, a), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(support_overlap(a, a), 1.0);
  EXPECT_DOUBLE_EQ(support_overlap(none, none), 0.0);
  EXPECT_DOUBLE_EQ(support_overlap(a, none), 0.0);
  // Citing a span twice does not count twice.
  EXPECT_DOUBLE_EQ(support_overlap(std::vector<std::string>{"d1", "d1"}, std::vector<std::string>{"d1", "d2"}), 0.5);
}

TEST(MaciSignals, CritCompositeOfAppendixE5) {
  EXPECT_NEAR(crit_composite({0.90, 0.85, 1.00}), 0.916666667, 1e-9);
}

TEST(MaciSignals, ReliabilityAndWeights) {
  EXPECT_DOUBLE_EQ(updated_reliability(0.5, 1.0, 0.8), 0.6);  // guide P-W
  EXPECT_NEAR(updated_reliability(0.5, 0.8, 0.8), 0.56, 1e-15);
  const std::vector<double> weights = reliability_weights(std::vector<double>{0.56, 0.52}, 1e-6);
  EXPECT_NEAR(weights[0], 0.518518484, 1e-9);
  EXPECT_NEAR(weights[0] + weights[1], 1.0, 1e-15);
  const std::vector<double> equal = reliability_weights(std::vector<double>{0.3, 0.3, 0.3}, 1e-6);
  EXPECT_DOUBLE_EQ(equal[0], equal[2]);
  // ϵ keeps weights defined when every Γ is 0.
  EXPECT_DOUBLE_EQ(reliability_weights(std::vector<double>{0, 0}, 1e-6)[1], 0.5);
}

TEST(MaciSignals, MixtureAndInformationGain) {
  const std::vector<Distribution> beliefs{{.6, .3, .1}, {.2, .5, .3}};
  const Distribution p = mixture(beliefs, std::vector<double>{.5, .5});
  EXPECT_NEAR(p[0], .4, 1e-15);
  EXPECT_NEAR(p[2], .2, 1e-15);
  // Eq. (5) clips at 0 when the mixture's entropy rises.
  EXPECT_DOUBLE_EQ(information_gain(Distribution{.9, .05, .05}, Distribution{1. / 3, 1. / 3, 1. / 3}), 0.0);
  EXPECT_DOUBLE_EQ(information_gain(Distribution{.5, .5}, Distribution{1, 0}), 1.0);
  EXPECT_THROW(information_gain(Distribution{1}, Distribution{1, 0}), std::invalid_argument);
}

TEST(MaciSignals, MovingAverageUsesWhatThereIsAtStartUp) {
  const std::vector<double> history{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(moving_average(history, 3), 4.0);
  EXPECT_DOUBLE_EQ(moving_average(std::span<const double>(history).first(2), 3), 1.5);
  EXPECT_DOUBLE_EQ(moving_average(std::vector<double>{}, 3), 0.0);
  EXPECT_DOUBLE_EQ(moving_average(history, 1), 5.0);
}

TEST(MaciSignals, ProgressRatios) {
  // Round 1 of the guide's trace.
  EXPECT_NEAR(information_progress(std::vector<double>{0.053941677}, std::vector<double>{0.960229718}, 3, 1e-3),
              0.056117363, 1e-8);
  EXPECT_NEAR(dispersion_progress(std::vector<double>{0.131459524, 0.031950480}, 3, 1e-3), 0.751241141, 1e-8);
  // A rise in dispersion is no progress: [D^(t−1) − D^(t)]_+ = 0.
  EXPECT_DOUBLE_EQ(dispersion_progress(std::vector<double>{0.1, 0.3}, 3, 1e-3), 0.0);
  // Window 2 over D = (.4, .2, .1, .1): drops (.2, .1, 0) → MA .05; previous D (.4, .2, .1) → MA .15.
  EXPECT_NEAR(dispersion_progress(std::vector<double>{.4, .2, .1, .1}, 2, 0.0), 0.05 / 0.15, 1e-12);
}

TEST(MaciSignals, DialRules) {
  EXPECT_NEAR(next_contentiousness(0.9, true, false, 0.2, 0.2), 0.7, 1e-15);
  EXPECT_NEAR(next_contentiousness(0.9, true, true, 0.2, 0.2), 0.5, 1e-15);
  EXPECT_DOUBLE_EQ(next_contentiousness(0.9, false, false, 0.2, 0.2), 0.9);
  EXPECT_DOUBLE_EQ(next_contentiousness(0.3, true, true, 0.2, 0.2), 0.0);  // [.]_+
  EXPECT_NEAR(next_gate(0.5, true, 0.1, 0.8), 0.6, 1e-15);
  EXPECT_DOUBLE_EQ(next_gate(0.5, false, 0.1, 0.8), 0.5);
  EXPECT_DOUBLE_EQ(next_gate(0.75, true, 0.1, 0.8), 0.8);
}

TEST(MaciSignals, InitialContentiousnessBins) {
  const InitialBins absolute;  // App. B.1: Q ≥ .7 and D ≤ .3 → .7; Q ≤ .5 and D ≥ .5 → .9
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.7, 0.3, absolute), 0.7);
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.5, 0.5, absolute), 0.9);
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.8, 0.6, absolute), 0.8);  // high Q, high D
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.6, 0.2, absolute), 0.8);
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.69, 0.1, absolute), 0.8);
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.4, 0.49, absolute), 0.8);
  InitialBins percentiles{0.4, 0.6, 0.2, 0.45, true};  // App. F: strict > P70, < P30
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.6, 0.1, percentiles), 0.8);
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.61, 0.19, percentiles), 0.7);
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.4, 0.5, percentiles), 0.8);
  EXPECT_DOUBLE_EQ(initial_contentiousness(0.39, 0.46, percentiles), 0.9);
}

}  // namespace
}  // namespace parley::maci

namespace parley::maci {
namespace {

TEST(MaciSignalsEdges, AMixtureOfBeliefsOverDifferentSpacesIsRefused) {
  EXPECT_THROW(mixture(std::vector<Distribution>{{.5, .5}, {1, 0, 0}}, std::vector<double>{.5, .5}),
               std::invalid_argument);
}

}  // namespace
}  // namespace parley::maci
