// Divergences of MACI's signals. Pinned values were computed independently, with a few lines of
// Python (math.log2 over the same distributions), or taken from the reading guide's vectors
// (../shared/specs/maci.md, A.8), which were derived by hand from the paper's case studies.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/hash.h"
#include "parley/maci.h"

namespace parley::maci {
namespace {

Distribution random_distribution(Rng& rng, std::size_t size) {
  Distribution p(size);
  double total = 0.0;
  for (double& x : p) {
    x = -std::log(1.0 - rng.uniform());  // Dirichlet(1, ..., 1) via normalised exponentials
    total += x;
  }
  for (double& x : p) x /= total;
  return p;
}

TEST(MaciDivergence, HepatitisRoundOneMatchesTheGuide) {
  // Labels: HCV, HBV, cirrhosis, obstructive jaundice, acute liver failure, alcoholic, HAV.
  const Distribution gpt{.40, .30, .15, .10, .05, 0, 0};
  const Distribution claude{.25, .35, 0, .20, 0, .15, .05};
  EXPECT_NEAR(js_divergence(gpt, claude), 0.226242306, 1e-8);  // the paper's table: 0.22
}

TEST(MaciDivergence, DengueRoundTwoAndDisjointSupports) {
  // Dengue, Chikungunya, Zika, viral infection.
  EXPECT_NEAR(js_divergence(Distribution{.6, .25, .15, 0}, Distribution{.5, .3, 0, .2}), 0.179925076, 1e-8);
  EXPECT_DOUBLE_EQ(js_divergence(Distribution{.6, .4, 0, 0}, Distribution{0, 0, .5, .5}), 1.0);
  EXPECT_DOUBLE_EQ(js_divergence(Distribution{.3, .7}, Distribution{.3, .7}), 0.0);
}

TEST(MaciDivergence, JensenShannonPropertiesOnRandomTriples) {
  Rng rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    const std::size_t size = 2 + rng.below(9);
    const Distribution p = random_distribution(rng, size), q = random_distribution(rng, size),
                       r = random_distribution(rng, size);
    const double pq = js_divergence(p, q);
    EXPECT_DOUBLE_EQ(pq, js_divergence(q, p));
    EXPECT_GE(pq, 0.0);
    EXPECT_LE(pq, 1.0);
    // sqrt(JSD) is a metric (Endres & Schindelin 2003).
    EXPECT_LE(std::sqrt(pq), std::sqrt(js_divergence(p, r)) + std::sqrt(js_divergence(r, q)) + 1e-12);
    // Eq. (2) is the generalised JSD with weights (½, ½), and the theory's mean KL to the centroid.
    const std::vector<Distribution> two{p, q};
    const std::vector<double> halves{0.5, 0.5};
    EXPECT_NEAR(generalized_js_divergence(two, halves), pq, 1e-12);
    EXPECT_NEAR(mean_kl_to_centroid(two), pq, 1e-12);
  }
}

TEST(MaciDivergence, ThreeAgents) {
  const std::vector<Distribution> beliefs{{.7, .2, .1}, {.1, .8, .1}, {.3, .3, .4}};
  const std::vector<double> thirds(3, 1.0 / 3.0);
  EXPECT_NEAR(generalized_js_divergence(beliefs, thirds), 0.301363178, 1e-8);
  EXPECT_NEAR(mean_kl_to_centroid(beliefs), 0.301363178, 1e-8);
}

TEST(MaciDivergence, KullbackLeiblerIsInfiniteOffTheSupport) {
  EXPECT_EQ(kl_divergence_bits(Distribution{.5, .5}, Distribution{1, 0}), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(kl_divergence_bits(Distribution{1, 0}, Distribution{.5, .5}), 1.0);
  EXPECT_THROW(kl_divergence_bits(Distribution{1, 0}, Distribution{1}), std::invalid_argument);
}

TEST(MaciDivergence, EntropyNormalisedByTheOutcomeCount) {
  EXPECT_DOUBLE_EQ(normalized_entropy(Distribution{.25, .25, .25, .25}), 1.0);
  EXPECT_DOUBLE_EQ(normalized_entropy(Distribution{1, 0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(normalized_entropy(Distribution{1}), 0.0);
  EXPECT_NEAR(normalized_entropy(Distribution{.4, .4, .2}), 0.960229718, 1e-8);
  EXPECT_NEAR(entropy(Distribution{.5, .5}), std::log(2.0), 1e-15);
}

TEST(MaciDivergence, WassersteinOnTheFivePointScale) {
  // CDFs (.1, .3, .7, .9) and (0, 0, .2, .7): gaps .1 + .3 + .5 + .2 = 1.1, over K − 1 = 4.
  EXPECT_NEAR(normalized_wasserstein_ordinal(Distribution{.1, .2, .4, .2, .1}, Distribution{0, 0, .2, .5, .3}),
              0.275, 1e-12);
  EXPECT_DOUBLE_EQ(normalized_wasserstein_ordinal(Distribution{1, 0, 0, 0, 0}, Distribution{0, 0, 0, 0, 1}), 1.0);
  // One step apart: 1/4 whatever the position.
  EXPECT_DOUBLE_EQ(normalized_wasserstein_ordinal(Distribution{0, 1, 0, 0, 0}, Distribution{0, 0, 1, 0, 0}), 0.25);
}

TEST(MaciDivergence, TotalVariationAndCrossEntropy) {
  EXPECT_DOUBLE_EQ(total_variation(Distribution{.5, .5, 0}, Distribution{.9, 0, .1}), 0.5);
  // Smoothed by δ = 1e-6 so that log q is finite where q = 0 < p.
  EXPECT_NEAR(normalized_cross_entropy(Distribution{.5, .5, 0}, Distribution{.9, 0, .1}), 6.835660167, 1e-6);
  const Distribution s = smoothed(Distribution{1, 0}, 0.5);
  EXPECT_DOUBLE_EQ(s[0], 0.75);
  EXPECT_DOUBLE_EQ(s[1], 0.25);
}

// Lemma 1 (App. M.2): the noiseless gated-averaging update p_i ← (1 − β) p_i + β p̄ keeps p̄
// and contracts the dispersion D_KL by at least (1 − β).
TEST(MaciDivergence, LemmaOneGatedAveragingNeverRaisesDispersion) {
  Rng rng(11);
  for (std::size_t agents : {2u, 3u, 5u}) {
    for (std::size_t outcomes : {3u, 10u}) {
      for (int trial = 0; trial < 100; ++trial) {
        std::vector<Distribution> beliefs;
        for (std::size_t i = 0; i < agents; ++i) beliefs.push_back(random_distribution(rng, outcomes));
        const double beta = 1e-3 + (1.0 - 1e-3) * rng.uniform();
        const std::vector<double> uniform(agents, 1.0 / static_cast<double>(agents));
        const Distribution centroid = mixture(beliefs, uniform);
        std::vector<Distribution> updated = beliefs;
        for (Distribution& p : updated) {
          for (std::size_t y = 0; y < outcomes; ++y) p[y] = (1.0 - beta) * p[y] + beta * centroid[y];
        }
        const Distribution new_centroid = mixture(updated, uniform);
        for (std::size_t y = 0; y < outcomes; ++y) EXPECT_NEAR(new_centroid[y], centroid[y], 1e-15);
        EXPECT_LE(mean_kl_to_centroid(updated), (1.0 - beta) * mean_kl_to_centroid(beliefs) + 1e-12);
      }
    }
  }
}

}  // namespace
}  // namespace parley::maci

namespace parley::maci {
namespace {

TEST(MaciDivergenceEdges, DegenerateInputsFoundByTheMutationRun) {
  EXPECT_EQ(normalized_wasserstein_ordinal(std::vector<double>{1.0}, std::vector<double>{1.0}), 0.0);  // |Y| = 1
  // Views of the first two entries: what lies past them is never read.
  const std::vector<double> a{0.5, 0.5, 1.0}, b{0.5, 0.5, 0.0};
  EXPECT_EQ(total_variation(std::span(a).first(2), std::span(b).first(2)), 0.0);
  EXPECT_THROW(generalized_js_divergence(std::vector<Distribution>{}, std::vector<double>{1.0}), std::invalid_argument);
  EXPECT_EQ(normalized_cross_entropy(std::vector<double>{1.0, 0.0}, std::vector<double>{1.0, 0.0}, 0.0), 0.0);
}

}  // namespace
}  // namespace parley::maci
