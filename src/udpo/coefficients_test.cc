// UDPO's agent-tailored coefficients (App. A.2): the bases from Cohen's d (U-8), the warm-up
// profile (U-7) and eqs. (10)–(14), worked by hand; P-coeff.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "parley/udpo.h"
#include "trajectory_support.h"

namespace parley::udpo {
namespace {

using testing::trajectory_of;

constexpr double kEps = 1e-12;

AgentProfile profile_of(double u_intra, double u_inter, double loo_instability, double u_sys) {
  return AgentProfile{"a1", u_intra, u_inter, loo_instability, u_sys};
}

TEST(UdpoCoefficients, BasesAreProportionalToThePositiveCohensD) {
  const BaseCoefficients base = base_coefficients({.u_intra = 0.9, .u_inter = 0.3, .u_sys = 1.8});
  EXPECT_EQ(base.rule, BaseRule::kCohensD);
  EXPECT_NEAR(base.alpha, 0.3, kEps);
  EXPECT_NEAR(base.beta, 0.1, kEps);
  EXPECT_NEAR(base.gamma, 0.6, kEps);
  EXPECT_EQ(base.lambda, 1.0);
  EXPECT_EQ(base.eta, 0.01);
  // A negative d is clipped at 0; an undefined or non-finite one counts as 0.
  const BaseCoefficients clipped = base_coefficients({.u_intra = -0.5, .u_inter = 1.0, .u_sys = 3.0});
  EXPECT_EQ(clipped.alpha, 0.0);
  EXPECT_NEAR(clipped.beta, 0.25, kEps);
  EXPECT_NEAR(clipped.gamma, 0.75, kEps);
  const BaseCoefficients partial =
      base_coefficients({.u_intra = std::nullopt, .u_inter = std::numeric_limits<double>::quiet_NaN(), .u_sys = 0.4});
  EXPECT_EQ(partial.rule, BaseRule::kCohensD);
  EXPECT_EQ(partial.alpha, 0.0);
  EXPECT_EQ(partial.beta, 0.0);
  EXPECT_EQ(partial.gamma, 1.0);
  EXPECT_EQ(base_coefficients({.u_intra = std::numeric_limits<double>::infinity(), .u_sys = 1.0}).gamma, 1.0);
  // The other bases are passed through.
  const BaseCoefficients scaled = base_coefficients({.u_sys = 1.0}, 2.0, 0.05);
  EXPECT_EQ(scaled.lambda, 2.0);
  EXPECT_EQ(scaled.eta, 0.05);
}

TEST(UdpoCoefficients, WithoutAPositiveDTheBasesAreEqual) {
  for (const CohensD& d : {CohensD{}, CohensD{.u_intra = -1.0, .u_inter = 0.0, .u_sys = -0.2},
                           CohensD{.u_intra = std::numeric_limits<double>::quiet_NaN()}}) {
    const BaseCoefficients base = base_coefficients(d);
    EXPECT_EQ(base.rule, BaseRule::kEqual);
    EXPECT_EQ(base.alpha, 1.0 / 3.0);
    EXPECT_EQ(base.beta, 1.0 / 3.0);
    EXPECT_EQ(base.gamma, 1.0 / 3.0);
  }
  EXPECT_THROW(base_coefficients({}, -1.0), std::invalid_argument);
  EXPECT_THROW(base_coefficients({}, 1.0, -0.01), std::invalid_argument);
  EXPECT_NO_THROW(base_coefficients({}, 0.0, 0.0));
}

// P-coeff: κ = 1.5 and Ū_sys = 0.4 give λ = 1/1.6 = 0.625 and η = 0.01 · 1.6 = 0.016.
TEST(UdpoCoefficients, TheReadingGuidesSystemExample) {
  const AgentCoefficients c = agent_coefficients(profile_of(0.0, 0.0, 0.0, 0.4), BaseCoefficients{});
  EXPECT_NEAR(c.lambda, 0.625, kEps);
  EXPECT_NEAR(c.eta, 0.016, kEps);
}

TEST(UdpoCoefficients, OneAgentWorkedByHand) {
  // Bases from d = (0.9, 0.3, 1.8): (0.3, 0.1, 0.6); λ_base = 1, η_base = 0.01; κ = 1.5.
  // Profile Ū_intra = 0.2, Ū_inter = 0.4, L̄ = 0.6, Ū_sys = 0.6 (reading (a): = L̄):
  //   α = 0.3 · (1 + 0.3) = 0.39     β = 0.1 · (1 + 0.6) = 0.16    γ = 0.6 · (1 + 0.9) = 1.14
  //   λ = 1 / (1 + 0.9) = 0.526316   η = 0.01 · 1.9 = 0.019
  const BaseCoefficients base = base_coefficients({.u_intra = 0.9, .u_inter = 0.3, .u_sys = 1.8});
  const AgentCoefficients c = agent_coefficients(profile_of(0.2, 0.4, 0.6, 0.6), base);
  EXPECT_NEAR(c.alpha, 0.39, kEps);
  EXPECT_NEAR(c.beta, 0.16, kEps);
  EXPECT_NEAR(c.gamma, 1.14, kEps);
  EXPECT_NEAR(c.lambda, 1.0 / 1.9, kEps);
  EXPECT_NEAR(c.eta, 0.019, kEps);
  // κ = 0: no asymmetry, every coefficient its base.
  const AgentCoefficients flat = agent_coefficients(profile_of(0.2, 0.4, 0.6, 0.6), base, 0.0);
  EXPECT_NEAR(flat.alpha, 0.3, kEps);
  EXPECT_NEAR(flat.beta, 0.1, kEps);
  EXPECT_NEAR(flat.gamma, 0.6, kEps);
  EXPECT_EQ(flat.lambda, 1.0);
  EXPECT_EQ(flat.eta, 0.01);
  // κ = 2 on another profile: α = 0.3 · 2 = 0.6, β = 0.1 · 1.2, γ = 0.6 · 1.4, λ = 1 / 1.4.
  const AgentCoefficients steep = agent_coefficients(profile_of(0.5, 0.1, 0.2, 0.2), base, 2.0);
  EXPECT_NEAR(steep.alpha, 0.6, kEps);
  EXPECT_NEAR(steep.beta, 0.12, kEps);
  EXPECT_NEAR(steep.gamma, 0.84, kEps);
  EXPECT_NEAR(steep.lambda, 1.0 / 1.4, kEps);
  EXPECT_NEAR(steep.eta, 0.014, kEps);
}

// P-coeff: Ū = 0 gives the bases; α, β, γ and η grow with their Ū, λ falls with Ū_sys.
TEST(UdpoCoefficients, CoefficientsMoveWithTheProfile) {
  const BaseCoefficients base{.alpha = 0.2, .beta = 0.3, .gamma = 0.5, .lambda = 1.0, .eta = 0.01};
  const AgentCoefficients calm = agent_coefficients(profile_of(0.0, 0.0, 0.0, 0.0), base);
  EXPECT_EQ(calm.alpha, 0.2);
  EXPECT_EQ(calm.beta, 0.3);
  EXPECT_EQ(calm.gamma, 0.5);
  EXPECT_EQ(calm.lambda, 1.0);
  EXPECT_EQ(calm.eta, 0.01);
  AgentCoefficients previous = calm;
  for (const double u : {0.1, 0.3, 0.7, 1.0}) {
    const AgentCoefficients c = agent_coefficients(profile_of(u, u, u, u), base);
    EXPECT_GT(c.alpha, previous.alpha);
    EXPECT_GT(c.beta, previous.beta);
    EXPECT_GT(c.gamma, previous.gamma);
    EXPECT_LT(c.lambda, previous.lambda);
    EXPECT_GT(c.eta, previous.eta);
    previous = c;
  }
}

TEST(UdpoCoefficients, BadInputsAreRefused) {
  const BaseCoefficients base;
  EXPECT_THROW(agent_coefficients(profile_of(0.1, 0.1, 0.1, 0.1), base, -0.5), std::invalid_argument);
  EXPECT_THROW(agent_coefficients(profile_of(0.1, 0.1, 0.1, 0.1), base, std::numeric_limits<double>::infinity()),
               std::invalid_argument);
  EXPECT_THROW(agent_coefficients(profile_of(0.1, 0.1, 0.1, 0.1), BaseCoefficients{.alpha = -0.1}),
               std::invalid_argument);
  // An undefined mean is refused where its base is not 0, and ignored where it is.
  AgentProfile no_intra = profile_of(0.0, 0.2, 0.2, 0.2);
  no_intra.u_intra.reset();
  EXPECT_THROW(agent_coefficients(no_intra, base), std::invalid_argument);
  EXPECT_EQ(agent_coefficients(no_intra, ablated(base, Ablation::kWithoutIntra)).alpha, 0.0);
  AgentProfile no_inter = profile_of(0.2, 0.0, 0.2, 0.2);
  no_inter.u_inter.reset();
  EXPECT_THROW(agent_coefficients(no_inter, base), std::invalid_argument);
  EXPECT_EQ(agent_coefficients(no_inter, ablated(base, Ablation::kWithoutInter)).beta, 0.0);
  AgentProfile no_loo = profile_of(0.2, 0.2, 0.0, 0.2);
  no_loo.loo_instability.reset();
  EXPECT_THROW(agent_coefficients(no_loo, base), std::invalid_argument);
  EXPECT_EQ(agent_coefficients(no_loo, ablated(base, Ablation::kWithoutSys)).gamma, 0.0);
  AgentProfile no_sys = profile_of(0.2, 0.2, 0.2, 0.0);
  no_sys.u_sys.reset();
  EXPECT_THROW(agent_coefficients(no_sys, base), std::invalid_argument);
  // λ_base or η_base alone needs Ū_sys.
  EXPECT_THROW(agent_coefficients(no_sys, BaseCoefficients{.alpha = 0.5, .beta = 0.5, .gamma = 0.0, .lambda = 0.0}),
               std::invalid_argument);
  EXPECT_THROW(agent_coefficients(no_sys, BaseCoefficients{.alpha = 0.5, .beta = 0.5, .gamma = 0.0, .eta = 0.0}),
               std::invalid_argument);
  const AgentCoefficients untailored =
      agent_coefficients(no_sys, BaseCoefficients{.alpha = 0.5, .beta = 0.5, .gamma = 0.0, .lambda = 0.0, .eta = 0.0});
  EXPECT_EQ(untailored.lambda, 0.0);
  EXPECT_EQ(untailored.eta, 0.0);
}

// U-24: "w/o L_intra / L_inter / L_sys" drop one term, the others untouched.
TEST(UdpoCoefficients, AblationsDropOneTerm) {
  const BaseCoefficients base{.alpha = 0.2, .beta = 0.3, .gamma = 0.5, .lambda = 1.0, .eta = 0.01,
                              .rule = BaseRule::kCohensD};
  const BaseCoefficients none = ablated(base, Ablation::kNone);
  EXPECT_EQ(none.alpha, 0.2);
  EXPECT_EQ(none.beta, 0.3);
  EXPECT_EQ(none.gamma, 0.5);
  const BaseCoefficients no_intra = ablated(base, Ablation::kWithoutIntra);
  EXPECT_EQ(no_intra.alpha, 0.0);
  EXPECT_EQ(no_intra.beta, 0.3);
  EXPECT_EQ(no_intra.gamma, 0.5);
  const BaseCoefficients no_inter = ablated(base, Ablation::kWithoutInter);
  EXPECT_EQ(no_inter.alpha, 0.2);
  EXPECT_EQ(no_inter.beta, 0.0);
  EXPECT_EQ(no_inter.gamma, 0.5);
  const BaseCoefficients no_sys = ablated(base, Ablation::kWithoutSys);
  EXPECT_EQ(no_sys.alpha, 0.2);
  EXPECT_EQ(no_sys.beta, 0.3);
  EXPECT_EQ(no_sys.gamma, 0.0);
  EXPECT_EQ(no_sys.lambda, 1.0);
  EXPECT_EQ(no_sys.eta, 0.01);
  EXPECT_EQ(no_sys.rule, BaseRule::kCohensD);
  // Carried into every agent's coefficients.
  const AgentCoefficients c = agent_coefficients(profile_of(0.5, 0.5, 0.5, 0.5), no_sys);
  EXPECT_EQ(c.gamma, 0.0);
  EXPECT_NEAR(c.alpha, 0.2 * 1.75, kEps);
}

// Two warm-up trajectories, N = 3 (λ = 0.5):
//   τ1: a1 A A A   a2 B A A   a3 B B C      τ2: a1 A B A   a2 A A A   a3 A A A
TEST(UdpoCoefficients, TheWarmupProfileWorkedByHand) {
  const std::vector<AnswerTrajectory> warmup = {trajectory_of({{"A", "B", "B"}, {"A", "A", "B"}, {"A", "A", "C"}}),
                                                trajectory_of({{"A", "A", "A"}, {"B", "A", "A"}, {"A", "A", "A"}})};
  const std::vector<AgentProfile> profile = warmup_profile(warmup);
  ASSERT_EQ(profile.size(), 3u);
  EXPECT_EQ(profile[0].agent, "a1");
  EXPECT_EQ(profile[2].agent, "a3");
  // U_intra^(i) = ½F_i + ½M_i. τ1: a1 0, a2 ½(0) + ½(1) = ½, a3 ½(1) + ½(1) = 1.
  //                            τ2: a1 ½(1) + ½(0) = ½, a2 0, a3 0.
  EXPECT_NEAR(*profile[0].u_intra, 0.25, kEps);
  EXPECT_NEAR(*profile[1].u_intra, 0.25, kEps);
  EXPECT_NEAR(*profile[2].u_intra, 0.5, kEps);
  // Shares of differing peers per round. τ1: a1 (1, ½, ½), a2 (½, ½, ½), a3 (½, 1, 1);
  // τ2: a1 (0, 1, 0), a2 (0, ½, 0), a3 (0, ½, 0).
  EXPECT_NEAR(*profile[0].u_inter, (2.0 / 3.0 + 1.0 / 3.0) / 2.0, kEps);
  EXPECT_NEAR(*profile[1].u_inter, (1.5 / 3.0 + 0.5 / 3.0) / 2.0, kEps);
  EXPECT_NEAR(*profile[2].u_inter, (2.5 / 3.0 + 0.5 / 3.0) / 2.0, kEps);
  // Final rounds: τ1 (A, A, C), ŷ = A; without a1 or a2 the tie A–C goes to A (first), without
  // a3 A remains. τ2 unanimous. No agent moves the vote.
  for (const AgentProfile& agent : profile) {
    EXPECT_EQ(*agent.loo_instability, 0.0);
    EXPECT_EQ(*agent.u_sys, 0.0);  // reading (a): Ū_sys = L̄
  }
}

TEST(UdpoCoefficients, TheSystemProfileReadings) {
  // τ1 final (A, B, B): ŷ = B; without a2 or a3 the vote ties A–B and A (first) wins.
  //   H̃ = −(⅓ ln ⅓ + ⅔ ln ⅔)/ln 2, D = 1, L = ⅔; indicators (0, 1, 1).
  // τ2 final (C, C, C): all 0.
  const std::vector<AnswerTrajectory> warmup = {trajectory_of({{"A", "B", "B"}}), trajectory_of({{"C", "C", "C"}})};
  const double entropy = -(std::log(1.0 / 3.0) / 3.0 + 2.0 / 3.0 * std::log(2.0 / 3.0)) / std::log(2.0);
  const double u_sys = (entropy + 1.0 + 2.0 / 3.0) / 3.0;

  const std::vector<AgentProfile> loo = warmup_profile(warmup);
  EXPECT_EQ(*loo[0].loo_instability, 0.0);
  EXPECT_EQ(*loo[1].loo_instability, 0.5);
  EXPECT_EQ(*loo[1].u_sys, 0.5);

  const std::vector<AgentProfile> mean = warmup_profile(warmup, {.system = SystemProfile::kTrajectoryMean});
  for (const AgentProfile& agent : mean) EXPECT_NEAR(*agent.u_sys, u_sys / 2.0, kEps);
  EXPECT_EQ(*mean[1].loo_instability, 0.5);  // L̄ itself does not depend on the reading

  const std::vector<AgentProfile> mixed = warmup_profile(warmup, {.system = SystemProfile::kMixed});
  EXPECT_NEAR(*mixed[0].u_sys, (entropy + 1.0 + 0.0) / 3.0 / 2.0, kEps);
  EXPECT_NEAR(*mixed[1].u_sys, (entropy + 1.0 + 1.0) / 3.0 / 2.0, kEps);
}

TEST(UdpoCoefficients, TheProfileUsesTheMetricsOptions) {
  // λ = 1: Ū_intra is F alone. a1 A → B → B: F = 0, M = 1.
  const std::vector<AnswerTrajectory> warmup = {trajectory_of({{"A", "A"}, {"B", "A"}, {"B", "A"}})};
  EXPECT_EQ(*warmup_profile(warmup, {.metrics = {.u_intra_lambda = 1.0}})[0].u_intra, 0.0);
  EXPECT_EQ(*warmup_profile(warmup, {.metrics = {.u_intra_lambda = 0.0}})[0].u_intra, 1.0);
}

TEST(UdpoCoefficients, MeansSkipTrajectoriesWhereAQuantityIsUndefined) {
  // τ1: a2 unparsed in the final round; τ2 complete. a2's L̄ and M come from τ2 alone.
  const std::vector<AnswerTrajectory> warmup = {
      trajectory_of({{"A", "B", "A"}, {"A", std::nullopt, "B"}}),
      trajectory_of({{"A", "B", "B"}, {"A", "A", "B"}}),
  };
  const std::vector<AgentProfile> profile = warmup_profile(warmup);
  EXPECT_EQ(*profile[1].loo_instability, 0.0);  // τ2 final (A, A, B): without a2, A–B tie → A
  EXPECT_EQ(*profile[0].loo_instability, 0.5);  // τ1 (A, B) without a1 → B; τ2 without a1 → A
  EXPECT_FALSE(profile[0].u_intra);             // T = 1: no F
  // Undefined everywhere: nullopt.
  const std::vector<AgentProfile> lone = warmup_profile(std::vector<AnswerTrajectory>{trajectory_of({{"A"}})});
  EXPECT_FALSE(lone[0].u_inter);
  EXPECT_FALSE(lone[0].loo_instability);
  EXPECT_FALSE(lone[0].u_sys);
}

TEST(UdpoCoefficients, TheWarmupSetMustBeOneEnsemble) {
  EXPECT_THROW(warmup_profile(std::vector<AnswerTrajectory>{}), std::invalid_argument);
  const std::vector<AnswerTrajectory> different = {trajectory_of({{"A", "B"}}), trajectory_of({{"A", "B", "C"}})};
  EXPECT_THROW(warmup_profile(different), std::invalid_argument);
  const std::vector<AnswerTrajectory> renamed = {trajectory_of({{"A", "B"}}),
                                                 AnswerTrajectory({"a2", "a1"}, {{std::nullopt, std::nullopt}})};
  EXPECT_THROW(warmup_profile(renamed), std::invalid_argument);
}

}  // namespace
}  // namespace parley::udpo
