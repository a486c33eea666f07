#include "runner/protocol_plan.h"

#include <string>
#include <utility>

namespace parley {
namespace {

// The model name a backend is sent: the server's name for an endpoint, the config name otherwise.
std::string backend_model_name(const ModelConfig& model) {
  return model.backend == Backend::kOpenAi ? model.endpoint.model : model.name;
}

std::vector<Agent> make_agents(const ExperimentConfig& config, const std::vector<std::string>& names,
                               Backends& backends) {
  std::vector<Agent> agents;
  for (const auto& name : names) {
    const AgentConfig& a = *config.agent(name);
    agents.push_back(Agent{a.name, backends.clients.at(a.model).get(), backend_model_name(*config.model(a.model)),
                           a.sampling, a.system_prompt});
  }
  return agents;
}

std::optional<Embedder> make_embedder(const ExperimentConfig& config, const ProtocolConfig& protocol,
                                      Backends& backends) {
  if (protocol.embedding_model.empty()) return std::nullopt;
  const ModelConfig& model = *config.model(protocol.embedding_model);
  return Embedder{model.name, backends.clients.at(model.name).get(), backend_model_name(model)};
}

std::vector<Agent> agent_pool(const ExperimentConfig& config, const ProtocolConfig& protocol, Backends& backends) {
  if (!protocol.agents.empty()) return make_agents(config, protocol.agents, backends);
  std::vector<std::string> everyone;
  for (const auto& a : config.agents) everyone.push_back(a.name);
  return make_agents(config, everyone, backends);
}

}  // namespace

std::vector<PlannedProtocol> plan_protocols(const ExperimentConfig& config, Backends& backends) {
  std::vector<PlannedProtocol> protocols;
  for (const auto& p : config.protocols) {
    protocols.push_back({&p, find_protocol(p.name)->make(p.params), agent_pool(config, p, backends),
                         make_agents(config, p.judges, backends), make_embedder(config, p, backends)});
  }
  return protocols;
}

DebateSetup debate_setup(const PlannedProtocol& planned, const ExperimentConfig& config, EventLoop& loop,
                         std::shared_ptr<const Task> task, std::uint64_t seed) {
  DebateSetup setup;
  setup.loop = &loop;
  setup.task = std::move(task);
  setup.protocol_label = planned.config->label;
  setup.seed = seed;
  setup.params = &planned.config->params;
  setup.agent_pool = planned.pool;
  setup.budget_tokens = config.budget_tokens_per_task;
  setup.reask_unparsed = config.reask_unparsed;
  setup.judge_panel = planned.judges;
  setup.judging = planned.config->judging;
  setup.best_of = planned.config->best_of;
  setup.best_of_jitter = planned.config->best_of_jitter;
  setup.embedder = planned.embedder;
  setup.attack = planned.config->attack;
  return setup;
}

}  // namespace parley
