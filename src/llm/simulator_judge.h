#pragma once
// The simulator's judges (docs/simulator.md, "Judges"): a judge of finite ability perceives
// each shown response as right or wrong — correctly with probability
// σ(judge_slope · (a − d) + judge_bias) — and writes its verdict as the JSON the judge prompt
// asked for (score, rubric, compare, rank, and MAD's per-round and final verdicts); MACI's CRIT
// judges score arguments instead (write_crit_reply). Called by simulate_reply for turns whose
// kind starts with "judge". Pure given the Rng.

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

// MACI's CRIT judges (docs/simulator.md, "CRIT judges", eq. 19): each sub-score is
// clip(q + b_f + σ·z, 0, 1), q the shown argument's argument_quality, b_f the bias of the judge's
// family (its model, `model`) and z ~ N(0, 1) keyed on (seed, task, judge, round, argument,
// criterion). Kind "judge_crit"; the shown argument is note.shown[0] with its ArgumentRef.
std::string write_crit_reply(std::string_view model, const Annotations& note, const TaskLatents& task,
                             bool format_error);

// b_f of eq. (19): a judge family's lean, N(0, 0.05²) keyed on the model name alone.
double crit_family_bias(std::string_view model);

}  // namespace parley::sim
