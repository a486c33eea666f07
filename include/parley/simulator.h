#pragma once
// The built-in simulator: a seeded, deterministic generative model of LLM agents (see
// docs/simulator.md). It answers ChatRequests by reading their annotations (task, agent, turn
// kind, peers shown) and writes text that carries the answer, a confidence, hedges and peer
// references; token counts come from the actual prompt and reply text. Every draw is derived
// from a hash of (seed, task, agent, round, turn, sample), so results never depend on the order
// in which the event loop runs requests. Lives on the EventLoop thread.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "parley/async.h"
#include "parley/llm_client.h"
#include "parley/result.h"

namespace parley {

struct SimulatorParams;  // defined in src/llm/simulator_params.h; loaded from a versioned JSON file

// Parameters from a JSON file (see docs/simulator.md for every field). Unknown or missing
// fields are errors naming the field.
Result<std::shared_ptr<const SimulatorParams>> load_simulator_params(const std::filesystem::path& path);

// The parameters shipped with parley (data/simulator/params-v1.json, compiled in).
std::shared_ptr<const SimulatorParams> default_simulator_params();

// `profile` selects a model profile from the parameters ("default" if empty); it sets the
// agent ability and calibration. Unknown profile is an Error. `delay_ms` > 0 delays every
// reply by that much real time on the loop (benchmarks, tests); it does not change the reply.
// `policy_file`: trained revision policies per agent (docs/simulator.md, "Revision policies";
// `parley train-udpo` writes them); an unreadable or malformed file is an Error, and so is one
// naming an agent that is not among `served_agents`, the agents this client serves (a policy
// trained for other agents would otherwise be silently unused).
Result<std::unique_ptr<LlmClient>> make_simulator_client(EventLoop& loop,
                                                         std::shared_ptr<const SimulatorParams> params,
                                                         std::string profile, double delay_ms = 0.0,
                                                         double lean = 0.0,
                                                         const std::filesystem::path& policy_file = {},
                                                         const std::vector<std::string>& served_agents = {});

}  // namespace parley
