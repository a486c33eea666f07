#pragma once
// The latent quality of a simulated debate argument (MACI; docs/simulator.md, "CRIT judges"):
// the one derivation shared by the agent that writes an argument and the CRIT judges that score
// it, so that both see the same quality from the request annotations alone. Pure.

#include <cstdint>
#include <string_view>

#include "llm/simulator_model.h"

namespace parley::sim {

// An argument of a simulated debate: the debate (experiment seed, task), its author and its
// place among the author's arguments of a round (parley::ArgumentRef).
struct ArgumentKey {
  std::uint64_t seed = 0;
  std::string_view task_id;
  std::string_view agent;
  int round = 0;
  int index = 0;
  // The author's position when it made the argument: +1 when its favoured answer was the gold,
  // −1 when another, 0 when not known (PeerView::answer empty).
  int stance = 0;
};

// q in (0, 1), eq. (18): σ(q₀ − q_d·(d − ½) + q_t·stance + s_u·z_u + s_i·z_i), z_u ~ N(0, 1) per
// (seed, task, agent) — an author's standing on the task — and z_i ~ N(0, 1) per argument: the
// truth is easier to argue well for.
double argument_quality(const ArgumentKey& argument, const TaskLatents& task);

// r in (0, 1), eq. (20): how relevant an evidence text is to the task,
// σ(−0.5 − 2·(d − ½) + 1.5·g + z_e), g = 1 when the text names the gold (text_names), z_e ~ N(0, 1)
// per (task, text): the description of the true answer fits the case. The embedding of the text
// (simulate_evidence_embedding) has cosine ≈ r with the task's question, and the simulated
// agents cite by it.
double evidence_relevance(const Task& task, const TaskLatents& latents, std::string_view text);

// Whether `text` names the answer `answer` (canonical): a label task's label or a synonym as
// whole words (LabelSet::named_in); a choice task's option text (3 characters or more), in any
// case; otherwise never.
bool text_names(const Task& task, std::string_view text, std::string_view answer);

}  // namespace parley::sim
