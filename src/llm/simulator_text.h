#pragma once
// The simulator's reply text: step-by-step reasoning built from a phrase bank and the
// question's own words, hedges when confidence is low, contrast markers, peer references with
// stance on revision turns, and the final "Answer: …" / "Confidence: NN%" lines that the answer
// parser reads (docs/simulator.md, "Text"). Called by the simulator client. Pure given the Rng.

#include <string>

#include "core/hash.h"
#include "llm/simulator_model.h"

namespace parley::sim {

enum class ReplyKind {
  kNormal,       // reasoning, then the answer and confidence lines
  kFormatError,  // reasoning that never states an answer (exercises re-asking)
  kReask,        // a short reply restating the answer in the required form
};

std::string write_reply(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                        const TaskLatents& task, const Decision& decision, ReplyKind kind, Rng& rng);

// iMAD's self-critique (turn "self_critique"): the labelled sections of parley/self_critique.h.
// The critique's length, hedges and certainty words follow the hesitation h; a malformed reply
// stops after the critique (no final answer or confidences), which exercises the re-ask.
std::string write_self_critique(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                                const TaskLatents& task, const Critique& critique, bool malformed, Rng& rng);

// A group's summary (turn "summary", group_debate): each shown member's answer and
// confidence, the group's majority and a line on the reasoning. It states no answer of its own.
std::string write_summary(const Annotations& note, Rng& rng);

// For a request that carries no task (not made by a parley protocol).
std::string write_generic_reply();

}  // namespace parley::sim
