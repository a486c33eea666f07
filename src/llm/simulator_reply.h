#pragma once
// One simulated reply, computed synchronously: decision, text, usage and log-probabilities
// (docs/simulator.md). The simulator client (simulator.cc) wraps it in an asynchronous call;
// tests and benchmarks call it directly. Pure: the same request always gives the same reply.

#include "llm/simulator_params.h"
#include "parley/chat.h"

namespace parley::sim {

ChatResponse simulate_reply(const SimulatorParams& params, const SimulatorProfile& profile,
                            const ChatRequest& request);

}  // namespace parley::sim
