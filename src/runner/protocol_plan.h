#pragma once
// What a run and a gateway both make of an experiment's protocol entries: each entry's Protocol
// with its agents, judges and embedder bound to the backends (PlannedProtocol), and the
// DebateSetup of one debate of it. Internal to the runner and the gateway; on the loop thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "parley/config.h"
#include "parley/protocol.h"
#include "runner/backends.h"

namespace parley {

struct PlannedProtocol {
  const ProtocolConfig* config;  // an entry of the experiment's `protocols:` (or `serve.models:`)
  std::unique_ptr<Protocol> protocol;
  std::vector<Agent> pool;
  std::vector<Agent> judges;
  std::optional<Embedder> embedder;
};

// One PlannedProtocol per entry of config.protocols, in order. The entries must outlive them.
std::vector<PlannedProtocol> plan_protocols(const ExperimentConfig& config, Backends& backends);

// The setup of one debate of `planned` on `task`: the entry's agents, judges and settings, and
// the experiment's budget and re-ask rule. Cancellation, deadline and observer are left unset.
DebateSetup debate_setup(const PlannedProtocol& planned, const ExperimentConfig& config, EventLoop& loop,
                         std::shared_ptr<const Task> task, std::uint64_t seed);

}  // namespace parley
