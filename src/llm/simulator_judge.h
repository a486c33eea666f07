#pragma once
// The simulator's judges (docs/simulator.md, "Judges"): a judge of finite ability perceives
// each shown response as right or wrong — correctly with probability
// σ(judge_slope · (a − d) + judge_bias) — and writes its verdict as the JSON the judge prompt
// asked for (score, rubric, compare, rank, and MAD's per-round and final verdicts). Called by
// simulate_reply for turns whose kind starts with "judge". Pure given the Rng.

#include <string>
#include <string_view>

#include "core/hash.h"
#include "llm/simulator_model.h"

namespace parley::sim {

bool is_judge_turn(std::string_view turn);

// The judge kind a turn models: "judge_score_reask" is a "judge_score" turn.
std::string_view judge_kind(std::string_view turn);

// The verdict text; `format_error` gives prose without the JSON object (exercises re-asks).
std::string write_judge_reply(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                              const TaskLatents& task, bool format_error, Rng& rng);

}  // namespace parley::sim
