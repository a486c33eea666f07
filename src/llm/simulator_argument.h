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
};

// q in (0, 1), eq. (18): σ(q₀ − q_d·(d − ½) + s_u·z_u + s_i·z_i), z_u ~ N(0, 1) per (seed, task,
// agent) — an author's standing on the task — and z_i ~ N(0, 1) per argument.
double argument_quality(const ArgumentKey& argument, const TaskLatents& task);

}  // namespace parley::sim
