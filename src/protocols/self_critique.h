#pragma once
// iMAD's self-critique stage (Fan et al. 2026, §4.1 (i), App. A.1 "Self-Critique Single Agent"):
// one agent answers, justifies step by step, argues against its own answer and commits to a
// final answer. The paper asks for confidences of the initial belief and the forced
// disagreement; a third, of the final answer, is parley's addition (Table 5 has a
// FinalConfidence feature). Used by the `self_critique` protocol (the stage alone,
// which produces trigger training data) and by `imad`.

#include <string>

#include "parley/protocol.h"
#include "parley/self_critique.h"

namespace parley {

// The prompt: the question, its options and the labelled sections to write.
std::string self_critique_prompt(const Task& task);

struct SelfCritiqueTurn {
  std::string text;     // the last reply
  SelfCritique parsed;  // its sections
};

// Asks `agent` for a self-critique (turn "self_critique", round 0). A reply missing sections is
// re-asked once with the missing sections named (turn "self_critique_reask"); a reply still
// incomplete is kept as it is. A "self_critique" event records the question, the answer, whether
// it is correct and, for an incomplete reply, what it lacks ("malformed").
Async<SelfCritiqueTurn> ask_self_critique(Debate& debate, const Agent& agent);

}  // namespace parley
