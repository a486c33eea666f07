#pragma once
// One simulated reply, computed synchronously: decision, text, usage and log-probabilities
// (docs/simulator.md). The simulator client (simulator.cc) wraps it in an asynchronous call;
// tests and benchmarks call it directly. Pure: the same request always gives the same reply.

#include "llm/simulator_model.h"
#include "llm/simulator_params.h"
#include "llm/simulator_policy.h"
#include "parley/chat.h"

namespace parley::sim {

ChatResponse simulate_reply(const SimulatorParams& params, const SimulatorProfile& profile,
                            const ChatRequest& request);
// The same reply, given task_latents(params, *request.note.task) already computed: a client
// keeps them per task instead of drawing them again on every call. `policies`: the agents'
// revision-policy weights (simulator_policy.h), null for the simulator's own behaviour.
ChatResponse simulate_reply(const SimulatorParams& params, const SimulatorProfile& profile,
                            const ChatRequest& request, const TaskLatents& task_latents, double lean = 0.0,
                            const RevisionPolicies* policies = nullptr);

}  // namespace parley::sim
