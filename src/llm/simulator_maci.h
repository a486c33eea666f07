#pragma once
// MACI's simulated debaters (docs/simulator.md, "MACI agents"): turns "maci_belief" (round 0,
// the single-pass belief) and "maci_argue" (rounds 1..), and their re-asks. The reply is the
// JSON object MACI asks for: a belief over the task's answers, arguments citing the evidence of
// the context, an acquisition plan. The belief starts from the agent's initial decision
// (simulator_model.h) and moves with the contentiousness CL and the opponents' admitted
// arguments. Pure functions of the request.

#include <string>

#include "core/hash.h"
#include "llm/simulator_model.h"
#include "parley/chat.h"

namespace parley::sim {

bool is_maci_turn(const Annotations& note);

struct MaciReply {
  std::string text;
  double confidence = 0.5;  // the top answer's probability (for log-probabilities)
};

// `malformed`: prose without the JSON object (a first reply only; exercises re-asks). `lean` in
// [−1, 1]: a partisan reading of an ordered scale (eq. 25), the simulator model's `lean`.
MaciReply write_maci_reply(const SimulatorParams& params, const SimulatorProfile& profile, const ChatRequest& request,
                           double temperature, const TaskLatents& task, bool malformed, double lean = 0.0);

// Eq. (25) for any other turn's answer on an ordered scale: with probability 0.5·|lean| the
// decision's answer moves one step towards the lean's end (its correctness re-read), drawn from
// `rng`.
void apply_lean(Decision& decision, const Task& task, double lean, Rng& rng);

}  // namespace parley::sim
