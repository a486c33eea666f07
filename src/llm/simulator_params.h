#pragma once
// SimulatorParams: every number of the simulator's generative model, read from a versioned JSON
// file (data/simulator/params-v1.json is compiled in). docs/simulator.md gives the equation each
// field enters. Immutable after loading and shared by every simulator client.

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "parley/result.h"

namespace parley {

inline constexpr std::string_view kSimulatorParamsVersion = "parley-simulator-1";

// One kind of model ("default", "strong", "weak", ...).
struct SimulatorProfile {
  double ability = 0.6;                  // a in P(correct) = σ(k·(a − d) + ...)
  double confidence_correct_mean = 0.85; // mean reported confidence of a correct answer
  double confidence_wrong_mean = 0.75;   // ... of a wrong one (over-confidence)
  double self_trust = 1.0;               // weight of the agent's own answer in revision support
  double stubbornness = 1.5;             // utility bonus for keeping the own answer
  double verbosity = 1.0;                // multiplies the reasoning length
};

struct SimulatorParams {
  std::string version;

  // Task latents.
  double difficulty_alpha = 2.0;      // d ~ Beta(alpha, beta) when the task gives none
  double difficulty_beta = 2.0;
  double shared_difficulty_sd = 0.8;  // s_t ~ N(0, sd), shared by all agents on a task

  // Initial answers.
  double correctness_slope = 6.0;     // k
  double sample_noise_weight = 0.5;   // w at temperature >= 1 (share of per-sample noise)
  double attractor_probability = 0.6; // ρ

  // Confidence.
  double confidence_concentration = 12.0;    // κ of the Beta draw
  double confidence_difficulty_slope = 0.15; // mean falls by this × d

  // Revision.
  double persuasion = 2.0;            // β: utility per unit of confidence-weighted support
  double verify_slope = 5.0;
  double verify_bias = 0.0;
  double recognize_slope = 4.0;
  double recognize_bias = 1.0;
  double reflect_bias = -3.0;
  double missing_peer_confidence = 0.5;
  double agreement_pull = 0.3;        // η

  // Text.
  double format_error_rate = 0.025;
  double hedge_base = 0.1;
  double hedge_slope = 0.8;
  double contrast_rate = 0.25;
  double reasoning_tokens_base = 90.0;
  double reasoning_tokens_difficulty = 0.8;
  double reasoning_tokens_min = 60.0;
  double reasoning_tokens_max = 250.0;

  // Log-probabilities.
  double logprob_mean_base = 0.12;
  double logprob_mean_slope = 0.6;
  double logprob_min_scale = 3.0;
  double logprob_min_offset = 0.7;
  double logprob_noise_sd = 0.3;

  // Judges (docs/simulator.md, "Judges"): P(the judge sees a response's correctness as it is)
  // = σ(judge_slope · (a − d) + judge_bias).
  double judge_slope = 4.0;
  double judge_bias = 1.5;
  // MAD's negative debater (docs/simulator.md, "MAD"): probability that, when its own view is
  // the affirmative's answer, it still argues another answer as it is told to.
  double negative_dissent = 0.5;
  // A compromised agent (docs/simulator.md, "Compromised agents"; UDPO §3.1): the mean of its
  // stated confidence in the wrong answer it argues.
  double adversary_confidence_mean = 0.92;
  // Its chance per revision of yielding to the plurality it was shown, times that plurality's
  // share of the shown peers (eq. 26b); once yielded, it holds the yielded answer.
  double adversary_yield = 0.0;
  // iMAD's self-critique (docs/simulator.md, "Self-critique", eqs. 13–16).
  double critique_hesitation_width = 2.0;   // w: hesitation h = exp(−z²/2w²) + noise, eq. (13)
  double critique_hesitation_noise = 0.15;  // sd of that noise
  double critique_confidence_base = 0.1;    // confidence in the forced disagreement, eq. (14)
  double critique_confidence_slope = 0.5;
  double critique_switch = 0.6;             // P(final answer = a gold alternative) = this × h, eq. (15)
  double critique_switch_wrong = 0.15;      // ... × this when the alternative is wrong
  double critique_alternative_gold = 0.4;   // P(the alternative is the gold | initial answer wrong)
  double critique_confidence_drop = 0.3;    // final confidence = initial × (1 − this × h), eq. (16)

  std::map<std::string, SimulatorProfile> profiles;
};

// Parses a parameter file's text; `source` names it in error messages.
Result<std::shared_ptr<const SimulatorParams>> parse_simulator_params(std::string_view json_text,
                                                                      std::string_view source);

// The text of data/simulator/params-v1.json, embedded at build time.
std::string_view embedded_simulator_params_json();

}  // namespace parley
