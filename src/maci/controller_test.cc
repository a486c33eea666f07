// Algorithm 1's moderator step on scripted rounds: the guide's three-round trace
// (../shared/specs/maci.md, A.8, worked by hand; re-derived in Python), admission at each gate,
// the dials, and every stop rule.

#include <gtest/gtest.h>

#include <cmath>

#include "parley/maci.h"

namespace parley::maci {
namespace {

const std::vector<double> kPrototype{1.0, 0.0};

// An argument citing spans that all point along θ (q = 1) unless `off_topic`.
CandidateArgument argument(std::size_t agent, std::vector<std::string> ids, std::vector<std::optional<double>> judges,
                           bool off_topic = false) {
  CandidateArgument a;
  a.agent = agent;
  for (std::string& id : ids) {
    a.spans.push_back({std::move(id), off_topic ? std::vector<double>{0.0, 1.0} : std::vector<double>{1.0, 0.2}});
  }
  a.judge_scores = std::move(judges);
  return a;
}

// Both agents hold `belief`, cite the given ids and make one argument each with judge score `crit`.
RoundInput round_of(const Distribution& first, const Distribution& second, std::vector<std::string> cited_first,
                    std::vector<std::string> cited_second, double crit = 0.9) {
  RoundInput input;
  input.agents.push_back({first, cited_first});
  input.agents.push_back({second, cited_second});
  input.arguments.push_back(argument(0, cited_first, {crit}));
  input.arguments.push_back(argument(1, cited_second, {crit}));
  return input;
}

Controller controller_with(ControllerSettings settings, std::vector<Distribution> initial,
                           std::optional<double> quality = 0.6) {
  return Controller(settings, InitialState{std::move(initial), quality, kPrototype}, InitialBins{});
}

TEST(MaciController, GuideTraceOfThreeRounds) {
  Controller controller = controller_with({}, {{.6, .3, .1}, {.2, .5, .3}});
  EXPECT_NEAR(controller.initial_disagreement(), 0.131459524, 1e-8);
  EXPECT_DOUBLE_EQ(controller.contentiousness(), 0.8);  // Q_0 = .6 is neither high nor low
  struct Expected {
    Distribution second;
    double crit_first, crit_second;
    double reliability_first, reliability_second, gain, disagreement, information_ratio, dispersion_ratio;
  };
  const std::vector<Expected> rounds{
      {{.4, .4, .2}, .8, .6, 0.56, 0.52, 0.053941677, 0.031950480, 0.056117363, 0.751241141},
      {{.5, .35, .15}, .85, .7, 0.618, 0.556, 0.040330942, 0.008303137, 0.050453157, 0.744552225},
      {{.58, .31, .11}, .9, .8, 0.6744, 0.6048, 0.038119792, 0.000353212, 0.048398329, 0.750408990},
  };
  // The fixed schedule, down to App. B.1's last rung 0.3 (the guide's trace, without a floor,
  // reads 0.2 for the third).
  const std::vector<double> next_cl{0.6, 0.4, 0.3};
  for (std::size_t t = 0; t < rounds.size(); ++t) {
    const Expected& e = rounds[t];
    RoundInput input;
    input.agents = {{{.6, .3, .1}, {"d1"}}, {e.second, {"d1"}}};
    input.arguments = {argument(0, {"d1"}, {e.crit_first}), argument(1, {"d1"}, {e.crit_second})};
    const RoundRecord r = controller.observe(input);
    SCOPED_TRACE(t + 1);
    EXPECT_EQ(r.round, static_cast<int>(t + 1));
    EXPECT_NEAR(r.reliability[0], e.reliability_first, 1e-12);
    EXPECT_NEAR(r.reliability[1], e.reliability_second, 1e-12);
    EXPECT_NEAR(r.information_gain, e.gain, 1e-8);
    EXPECT_NEAR(r.disagreement, e.disagreement, 1e-8);
    EXPECT_NEAR(r.information_ratio, e.information_ratio, 1e-8);
    EXPECT_NEAR(r.dispersion_ratio, e.dispersion_ratio, 1e-8);
    EXPECT_FALSE(r.information_plateau);
    EXPECT_FALSE(r.dispersion_plateau);
    EXPECT_NEAR(r.next_contentiousness, next_cl[t], 1e-12);  // the fixed schedule
    EXPECT_DOUBLE_EQ(r.next_quality_gate, 0.5);
    EXPECT_DOUBLE_EQ(r.next_crit_gate, 0.3);
    EXPECT_EQ(r.stop, StopReason::kNone);
  }
  EXPECT_NEAR(controller.history()[0].weights[0], 0.518518484, 1e-9);
  EXPECT_NEAR(controller.history()[0].mixture[0], 0.503703697, 1e-9);
  EXPECT_NEAR(controller.history()[1].mixture[1], 0.323679730, 1e-9);
}

TEST(MaciController, TheFixedScheduleWalksTheLadderToItsLastRungInExactSteps) {
  Controller controller = controller_with({}, {{.5, .5}, {.5, .5}});
  controller.set_dials(0.9, 0.5, 0.3);
  std::vector<double> seen;
  for (int t = 0; t < 4; ++t) {
    RoundInput input;
    input.agents = {{{.5, .5}, {"d1"}}, {{.5, .5}, {"d1"}}};
    seen.push_back(controller.observe(input).next_contentiousness);
  }
  // Exactly 0.7, 0.5, 0.3 (rounded to 1e-9, not 0.7000000000000001), then held at the floor.
  EXPECT_EQ(seen, (std::vector<double>{0.7, 0.5, 0.3, 0.3}));
  Controller low = controller_with({}, {{.5, .5}, {.5, .5}});
  low.set_dials(0.2, 0.5, 0.3);  // below the floor: not raised to it
  RoundInput input;
  input.agents = {{{.5, .5}, {}}, {{.5, .5}, {}}};
  EXPECT_EQ(low.observe(input).next_contentiousness, 0.2);
}

TEST(MaciController, DualGateAdmission) {
  Controller controller = controller_with({}, {{.5, .5}, {.5, .5}});
  RoundInput input;
  input.agents = {{{.5, .5}, {"d1", "d2"}}, {{.5, .5}, {"d1"}}};
  input.arguments = {
      argument(0, {"d1"}, {0.9, 0.7}),          // q high, CRIT .8: admitted
      argument(0, {"d2"}, {0.9}, true),         // q = 0 < .5: rejected by the Q gate
      argument(1, {"d1"}, {0.2, 0.3}),          // CRIT .25 < .3: rejected by the CRIT gate
      argument(1, {}, {0.9}),                   // nothing cited resolves: no q, rejected
      argument(1, {"d1"}, {std::nullopt, std::nullopt}),  // no valid verdict: rejected
      argument(1, {"d1"}, {0.3}),               // exactly at the gate: admitted
  };
  const RoundRecord r = controller.observe(input);
  ASSERT_EQ(r.arguments.size(), 6u);
  EXPECT_TRUE(r.arguments[0].admitted);
  EXPECT_NEAR(*r.arguments[0].crit, 0.8, 1e-15);
  EXPECT_FALSE(r.arguments[1].admitted);
  EXPECT_DOUBLE_EQ(*r.arguments[1].evidence_score, 0.0);
  EXPECT_FALSE(r.arguments[2].admitted);
  EXPECT_FALSE(r.arguments[3].admitted);
  EXPECT_FALSE(r.arguments[3].evidence_score);
  EXPECT_FALSE(r.arguments[4].admitted);
  EXPECT_FALSE(r.arguments[4].crit);
  EXPECT_TRUE(r.arguments[5].admitted);
  // Q over the admitted spans only (d1), not the off-topic d2.
  EXPECT_NEAR(*r.evidence_quality, 1.0 / std::sqrt(1.04), 1e-12);
  EXPECT_DOUBLE_EQ(r.overlap, 0.5);
  // Γ from every candidate's scores (M-14): agent 0 (.9, .7, .9) → .8333; agent 1 (.2, .3, .9, .3) → .425.
  EXPECT_NEAR(r.reliability[0], 0.8 * 0.5 + 0.2 * (2.5 / 3.0), 1e-12);
  EXPECT_NEAR(r.reliability[1], 0.8 * 0.5 + 0.2 * 0.425, 1e-12);
  // CRIT^(t) over the 7 valid scores; judge 0's mean (.9+.9+.2+.9+.3)/5 = .64, judge 1's .5.
  EXPECT_NEAR(*r.crit_mean, 4.2 / 7.0, 1e-12);
  EXPECT_NEAR(*r.crit_variance, 0.0049, 1e-12);

  ControllerSettings no_quality_gate;
  no_quality_gate.quality_gate = false;
  Controller ablated = controller_with(no_quality_gate, {{.5, .5}, {.5, .5}});
  const RoundRecord a = ablated.observe(input);
  EXPECT_TRUE(a.arguments[1].admitted);
  EXPECT_TRUE(a.arguments[3].admitted);  // τ_Q ≡ −∞ needs no evidence at all
  EXPECT_FALSE(a.arguments[2].admitted);
}

TEST(MaciController, PlateauStopsAtTheSecondRoundWithEnoughOverlap) {
  // Identical beliefs every round: Î = 0 and D stays 0, so both flags are up from round 1.
  Controller controller = controller_with({}, {{.7, .3}, {.7, .3}});
  const RoundRecord first = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_TRUE(first.information_plateau);
  EXPECT_TRUE(first.dispersion_plateau);
  EXPECT_EQ(first.stop, StopReason::kNone);  // eq. (10) needs τ_stop = 2 rounds of flags
  EXPECT_NEAR(first.next_quality_gate, 0.6, 1e-15);  // eq. (9): π_I raises both gates
  EXPECT_NEAR(first.next_crit_gate, 0.4, 1e-15);
  const RoundRecord second = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_EQ(second.stop, StopReason::kPlateau);
  EXPECT_DOUBLE_EQ(second.quality_gate, 0.6);
}

TEST(MaciController, NoStopWhileOverlapIsBelowTheFloor) {
  Controller controller = controller_with({}, {{.7, .3}, {.7, .3}});
  // Jaccard 1/4 < τ_O = .3 every round: only the round cap (6) ends it.
  for (int t = 1; t <= 6; ++t) {
    const RoundRecord r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1", "d2", "d3", "d4"}));
    EXPECT_NEAR(r.overlap, 0.25, 1e-15);
    EXPECT_EQ(r.stop, t < 6 ? StopReason::kNone : StopReason::kRoundCap) << t;
  }
  // The gates rose by γ each round with π_I and stopped at τ_max = .8.
  EXPECT_DOUBLE_EQ(controller.quality_gate(), 0.8);
  EXPECT_NEAR(controller.crit_gate(), 0.8, 1e-12);
}

TEST(MaciController, StopNeedsConsecutiveFlags) {
  // Window 1 so that each round's flag reflects that round alone: (1,1), (0,1), (1,1), (1,1).
  ControllerSettings settings;
  settings.window = 1;
  Controller controller = controller_with(settings, {{.5, .5}, {.5, .5}});
  const std::vector<Distribution> beliefs{{.5, .5}, {.9, .1}, {.9, .1}, {.9, .1}};
  const std::vector<bool> information{true, false, true, true};
  const std::vector<StopReason> stops{StopReason::kNone, StopReason::kNone, StopReason::kNone, StopReason::kPlateau};
  for (std::size_t t = 0; t < beliefs.size(); ++t) {
    const RoundRecord r = controller.observe(round_of(beliefs[t], beliefs[t], {"d1"}, {"d1"}));
    EXPECT_EQ(r.information_plateau, information[t]) << t;
    EXPECT_TRUE(r.dispersion_plateau) << t;
    EXPECT_EQ(r.stop, stops[t]) << t;
  }
}

TEST(MaciController, StopNeedsEvidenceQualityAtTheGate) {
  // Both plateaus hold, but every argument is off-topic: nothing is admitted, Q is undefined.
  Controller controller = controller_with({}, {{.7, .3}, {.7, .3}});
  for (int t = 1; t <= 2; ++t) {
    RoundInput input = round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"});
    input.arguments = {argument(0, {"d1"}, {0.9}, true), argument(1, {"d1"}, {0.9}, true)};
    const RoundRecord r = controller.observe(input);
    EXPECT_FALSE(r.evidence_quality);
    EXPECT_EQ(r.stop, StopReason::kNone);
  }
}

TEST(MaciController, ValidatorStalemate) {
  ControllerSettings settings;
  settings.stalemate_rounds = 2;
  Controller controller = controller_with(settings, {{.7, .3}, {.2, .8}});
  EXPECT_EQ(controller.observe(round_of({.6, .4}, {.3, .7}, {"d1"}, {"d2"}, 0.1)).stop, StopReason::kNone);
  EXPECT_EQ(controller.observe(round_of({.6, .4}, {.3, .7}, {"d1"}, {"d2"}, 0.1)).stop, StopReason::kStalemate);
}

TEST(MaciController, PlateauScheduleLowersContentiousnessOnFlags) {
  ControllerSettings settings;
  settings.schedule = ContentiousnessSchedule::kPlateau;
  Controller controller = controller_with(settings, {{.7, .3}, {.2, .8}}, 0.2);
  EXPECT_DOUBLE_EQ(controller.contentiousness(), 0.8);  // D_JS,0 ≈ .19 < .5: not the 0.9 bin
  // The agents move together and the mixture sharpens: no plateau, CL stays.
  RoundRecord r = controller.observe(round_of({.9, .1}, {.85, .15}, {"d1"}, {"d1"}));
  EXPECT_FALSE(r.information_plateau);
  EXPECT_FALSE(r.dispersion_plateau);
  EXPECT_DOUBLE_EQ(r.next_contentiousness, 0.8);
  // Window 1, agents identical from the start, mixture sharpening: π_D alone lowers CL by α_D.
  settings.window = 1;
  Controller agreeing = controller_with(settings, {{.5, .5}, {.5, .5}});
  r = agreeing.observe(round_of({.9, .1}, {.9, .1}, {"d1"}, {"d1"}));
  EXPECT_FALSE(r.information_plateau);
  EXPECT_TRUE(r.dispersion_plateau);
  EXPECT_NEAR(r.next_contentiousness, 0.6, 1e-12);
  EXPECT_DOUBLE_EQ(r.next_quality_gate, 0.5);  // the gates move on π_I only (eq. 9)
  // The ablation "no schedule": CL stays where it started whatever the flags.
  settings.hold_contentiousness = true;
  Controller holding = controller_with(settings, {{.7, .3}, {.7, .3}});
  EXPECT_DOUBLE_EQ(holding.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"})).next_contentiousness, 0.8);
}

TEST(MaciController, PlateauScheduleSubtractsBothSteps) {
  ControllerSettings settings;
  settings.schedule = ContentiousnessSchedule::kPlateau;
  Controller controller = controller_with(settings, {{.7, .3}, {.7, .3}});
  const RoundRecord r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_NEAR(r.next_contentiousness, 0.4, 1e-12);  // eq. (8): 0.8 − α_I − α_D
}

TEST(MaciController, AbsolutePlateauRuleOfAppendixD5) {
  ControllerSettings settings;
  settings.schedule = ContentiousnessSchedule::kPlateau;
  settings.plateau = PlateauRule::kAbsolute;
  Controller controller = controller_with(settings, {{.7, .3}, {.7, .3}});
  // Round 1: ΔÎ undefined (no plateau); |ΔD| = 0 < ε_D.
  RoundRecord r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_FALSE(r.information_plateau);
  EXPECT_TRUE(r.dispersion_plateau);
  EXPECT_DOUBLE_EQ(r.next_contentiousness, 0.8);  // one round of π_D is not τ_stop rounds
  r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_TRUE(r.information_plateau);  // ΔÎ = 0 − 0
  EXPECT_NEAR(r.next_contentiousness, 0.6, 1e-12);  // eq. (12) after two rounds; eq. (11) after one
  EXPECT_EQ(r.stop, StopReason::kNone);
  r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_NEAR(r.next_contentiousness, 0.2, 1e-12);
  EXPECT_EQ(r.stop, StopReason::kPlateau);
}

TEST(MaciController, UniformWeightsAblation) {
  ControllerSettings settings;
  settings.uniform_weights = true;
  Controller controller = controller_with(settings, {{.5, .5}, {.5, .5}});
  RoundInput input = round_of({1, 0}, {0, 1}, {"d1"}, {"d1"});
  input.arguments[1].judge_scores = {0.1};
  const RoundRecord r = controller.observe(input);
  EXPECT_DOUBLE_EQ(r.weights[0], 0.5);
  EXPECT_DOUBLE_EQ(r.mixture[0], 0.5);
  EXPECT_GT(r.reliability[0], r.reliability[1]);  // still tracked and logged
}

TEST(MaciController, MonotoneModeDiscardsRoundsThatRaiseDispersion) {
  ControllerSettings settings;
  settings.monotone = true;
  Controller controller = controller_with(settings, {{.6, .4}, {.5, .5}});
  const RoundRecord apart = controller.observe(round_of({.9, .1}, {.1, .9}, {"d1"}, {"d1"}));
  EXPECT_TRUE(apart.update_rejected);
  EXPECT_EQ(controller.beliefs()[0], (Distribution{.6, .4}));
  const RoundRecord closer = controller.observe(round_of({.55, .45}, {.55, .45}, {"d1"}, {"d1"}));
  EXPECT_FALSE(closer.update_rejected);
  EXPECT_DOUBLE_EQ(closer.disagreement, 0.0);
}

TEST(MaciController, CritCompoundRuleMustAlsoHold) {
  ControllerSettings settings;
  settings.crit_compound = true;
  Controller controller = controller_with(settings, {{.7, .3}, {.7, .3}});
  // Eq. (10) holds from round 2, the CRIT rule (two rounds of steady CRIT, judges agreeing) from round 3.
  EXPECT_EQ(controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}, 0.9)).stop, StopReason::kNone);
  EXPECT_EQ(controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}, 0.9)).stop, StopReason::kNone);
  EXPECT_EQ(controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}, 0.9)).stop, StopReason::kPlateau);
}

TEST(MaciController, RejectsInputThatDoesNotFit) {
  Controller controller = controller_with({}, {{.5, .5}, {.5, .5}});
  RoundInput one_agent;
  one_agent.agents = {{{.5, .5}, {}}};
  EXPECT_THROW(controller.observe(one_agent), std::invalid_argument);
  RoundInput wrong_size = round_of({.5, .3, .2}, {.5, .5}, {}, {});
  EXPECT_THROW(controller.observe(wrong_size), std::invalid_argument);
  RoundInput unknown_agent = round_of({.5, .5}, {.5, .5}, {}, {});
  unknown_agent.arguments[0].agent = 2;
  EXPECT_THROW(controller.observe(unknown_agent), std::invalid_argument);
  EXPECT_THROW(Controller({}, InitialState{}, InitialBins{}), std::invalid_argument);
}

TEST(MaciController, ThreeAgentsUseTheNormalisedGeneralisedDivergence) {
  Controller controller = controller_with({}, {{.7, .2, .1}, {.1, .8, .1}, {.3, .3, .4}});
  EXPECT_NEAR(controller.initial_disagreement(), 0.301363178 / std::log2(3.0), 1e-8);
}

}  // namespace
}  // namespace parley::maci

namespace parley::maci {
namespace {

// ---- Cases the mutation run found unpinned ---------------------------------------------------

TEST(MaciController, SetDialsClipsToTheUnitIntervalAndTheRoundRunsWithThem) {
  Controller controller = controller_with({}, {{.7, .3}, {.7, .3}});
  controller.set_dials(0.8, 0.8, 0.7);
  RoundRecord r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_DOUBLE_EQ(r.contentiousness, 0.8);
  EXPECT_DOUBLE_EQ(r.quality_gate, 0.8);
  EXPECT_DOUBLE_EQ(r.crit_gate, 0.7);
  controller.set_dials(1.5, -0.2, 2.0);
  EXPECT_DOUBLE_EQ(controller.contentiousness(), 1.0);
  EXPECT_DOUBLE_EQ(controller.quality_gate(), 0.0);
  EXPECT_DOUBLE_EQ(controller.crit_gate(), 1.0);
}

TEST(MaciController, TheAgentCountIsCheckedWhateverTheWeights) {
  ControllerSettings settings;
  settings.uniform_weights = true;
  Controller controller = controller_with(settings, {{.5, .5}, {.5, .5}});
  RoundInput three = round_of({.5, .5}, {.5, .5}, {}, {});
  three.agents.push_back({{.5, .5}, {}});
  EXPECT_THROW(controller.observe(three), std::invalid_argument);
}

TEST(MaciController, MonotoneModeKeepsARoundThatHoldsDispersionAndComparesWithTheLastKeptBeliefs) {
  ControllerSettings settings;
  settings.monotone = true;
  Controller same = controller_with(settings, {{.6, .4}, {.5, .5}});
  EXPECT_FALSE(same.observe(round_of({.6, .4}, {.5, .5}, {"d1"}, {"d1"})).update_rejected);  // ν = 0: equal is kept
  // Round 1 converges and is kept; round 2 spreads again to less than the start but more than
  // round 1: rejected, because the comparison is with round 1's beliefs.
  Controller controller = controller_with(settings, {{.9, .1}, {.1, .9}});
  EXPECT_FALSE(controller.observe(round_of({.6, .4}, {.4, .6}, {"d1"}, {"d1"})).update_rejected);
  EXPECT_TRUE(controller.observe(round_of({.8, .2}, {.2, .8}, {"d1"}, {"d1"})).update_rejected);
  EXPECT_EQ(controller.beliefs()[0], (Distribution{.6, .4}));
}

TEST(MaciController, EvidenceQualityIsOverTheSetOfAdmittedSpans) {
  Controller controller = controller_with({}, {{.7, .3}, {.7, .3}});
  RoundInput input = round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1", "d2"});
  input.arguments[1].spans = {{"d1", {1.0, 0.2}}, {"d2", {0.0, 1.0}}};  // agent 1: d1 on topic, d2 off
  const RoundRecord r = controller.observe(input);
  ASSERT_TRUE(r.arguments[1].admitted);  // q = 0.633989 (Python) ≥ 0.5
  // E^(t) = {d1, d2}, not {d1, d1, d2}: Q = cos(mean(unit d1, d2), θ) = 0.633989 (the multiset 0.815).
  ASSERT_TRUE(r.evidence_quality);
  EXPECT_NEAR(*r.evidence_quality, 0.6339889056055382, 1e-12);
}

TEST(MaciController, PooledEvidenceBelowTheGateBlocksTheStopThoughEachArgumentPassed) {
  // Four admitted arguments, each citing the same on-topic span and one orthogonal span of its
  // own: each q = 1/√2 ≥ 0.5, but the set of five spans gives Q = 1/√5 = 0.447 < τ_Q.
  // Over two rounds with the flags up: no plateau stop.
  std::vector<double> prototype{1.0, 0.0, 0.0, 0.0, 0.0};
  Controller five(ControllerSettings{}, InitialState{{{.7, .3}, {.7, .3}}, 0.6, prototype}, InitialBins{});
  StopReason stop = StopReason::kNone;
  for (int t = 1; t <= 2; ++t) {
    RoundInput input;
    input.agents = {{{.7, .3}, {"g"}}, {{.7, .3}, {"g"}}};
    for (std::size_t i = 0; i < 4; ++i) {
      CandidateArgument a;
      a.agent = i % 2;
      std::vector<double> own(5, 0.0);
      own[i + 1] = 1.0;
      a.spans = {{"g", prototype}, {"o" + std::to_string(i), own}};
      a.judge_scores = {0.9};
      input.arguments.push_back(std::move(a));
    }
    five.set_dials(five.contentiousness(), 0.5, 0.3);  // hold τ_Q at 0.5, which each q passes
    const RoundRecord r = five.observe(input);
    for (const auto& a : r.arguments) EXPECT_TRUE(a.admitted);
    ASSERT_TRUE(r.evidence_quality);
    EXPECT_NEAR(*r.evidence_quality, 1.0 / std::sqrt(5.0), 1e-12);
    EXPECT_TRUE(r.information_plateau && r.dispersion_plateau);
    EXPECT_DOUBLE_EQ(r.overlap, 1.0);
    stop = r.stop;
  }
  EXPECT_EQ(stop, StopReason::kNone);
}

TEST(MaciController, OverlapExactlyAtTheFloorAllowsTheStop) {
  ControllerSettings settings;
  settings.overlap_floor = 0.5;
  Controller controller = controller_with(settings, {{.7, .3}, {.7, .3}});
  controller.observe(round_of({.7, .3}, {.7, .3}, {"d1", "d2"}, {"d1"}));
  const RoundRecord r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1", "d2"}, {"d1"}));
  EXPECT_DOUBLE_EQ(r.overlap, 0.5);
  EXPECT_EQ(r.stop, StopReason::kPlateau);
}

TEST(MaciController, AZeroThresholdNeverFlagsAPlateau) {
  // r_D = 0 with unchanged beliefs, and 0 < 0 is false (eq. 7's strict comparison).
  ControllerSettings settings;
  settings.relative_dispersion_threshold = 0.0;
  settings.relative_information_threshold = 0.0;
  Controller controller = controller_with(settings, {{.7, .3}, {.7, .3}});
  const RoundRecord r = controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_DOUBLE_EQ(r.dispersion_ratio, 0.0);
  EXPECT_FALSE(r.dispersion_plateau);
  EXPECT_FALSE(r.information_plateau);
}

TEST(MaciController, TheAbsoluteRuleDiffersMovingAveragesAndDispersions) {
  ControllerSettings settings;
  settings.plateau = PlateauRule::kAbsolute;
  Controller controller = controller_with(settings, {{.5, .5}, {.5, .5}});
  // Î^(1) = 1 − H(.7, .3) = 0.118709, Î^(2) = H(.7, .3) − H(.9, .1) = 0.412295 (bits, |Y| = 2):
  // ΔÎ^(2) = MA(Î^(1), Î^(2)) − MA(Î^(1)) = 0.146793 (Python).
  controller.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  RoundRecord r = controller.observe(round_of({.9, .1}, {.9, .1}, {"d1"}, {"d1"}));
  EXPECT_NEAR(r.information_ratio, 0.1467931024360521, 1e-12);
  EXPECT_FALSE(r.information_plateau);
  // |ΔD| when the agents split: D_JS((.9, .1), (.1, .9)) = 0.531004 − 0.
  r = controller.observe(round_of({.9, .1}, {.1, .9}, {"d1"}, {"d1"}));
  EXPECT_NEAR(r.dispersion_ratio, 0.5310044064107189, 1e-12);
  EXPECT_FALSE(r.dispersion_plateau);
  // And back towards each other: |D_JS((.8, .2), (.2, .8)) − 0.531004| = 0.252933.
  r = controller.observe(round_of({.8, .2}, {.2, .8}, {"d1"}, {"d1"}));
  EXPECT_NEAR(r.dispersion_ratio, 0.25293250129808115, 1e-12);
  // Eqs. (11)–(12) compare strictly: with zero thresholds an unchanged round flags nothing.
  settings.absolute_information_threshold = 0.0;
  settings.absolute_dispersion_threshold = 0.0;
  Controller strict = controller_with(settings, {{.7, .3}, {.7, .3}});
  strict.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  r = strict.observe(round_of({.7, .3}, {.7, .3}, {"d1"}, {"d1"}));
  EXPECT_DOUBLE_EQ(r.information_ratio, 0.0);
  EXPECT_DOUBLE_EQ(r.dispersion_ratio, 0.0);
  EXPECT_FALSE(r.information_plateau);
  EXPECT_FALSE(r.dispersion_plateau);
}

}  // namespace
}  // namespace parley::maci
