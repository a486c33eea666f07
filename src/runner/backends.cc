#include "runner/backends.h"

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "parley/simulator.h"

namespace parley {

Result<Backends> make_backends(EventLoop& loop, const ExperimentConfig& config,
                               const std::optional<std::filesystem::path>& cache_dir) {
  Backends backends;
  for (const auto& model : config.models) {
    std::unique_ptr<LlmClient> client;
    if (model.backend == Backend::kSimulator) {
      auto params = model.simulator_params.empty() ? Result<std::shared_ptr<const SimulatorParams>>(default_simulator_params())
                                                   : load_simulator_params(model.simulator_params);
      if (!params) return Error{fmt::format("model {}: {}", model.name, params.error().message)};
      std::vector<std::string> served;
      for (const AgentConfig& agent : config.agents)
        if (agent.model == model.name) served.push_back(agent.name);
      auto made = make_simulator_client(loop, *params, model.simulator_profile, model.simulator_delay_ms,
                                        model.simulator_lean, model.simulator_policy, served);
      if (!made) return Error{fmt::format("model {}: {}", model.name, made.error().message)};
      client = std::move(*made);
      backends.simulated = true;
    } else {
      const std::string& key_variable = model.endpoint.api_key_env;
      if (!key_variable.empty()) {
        const char* key = std::getenv(key_variable.c_str());
        if (key == nullptr || *key == '\0') {
          return Error{fmt::format("model {}: api_key_env names {}, which is not set in the environment", model.name,
                                   key_variable)};
        }
        if (!is_sendable_api_key(key)) {
          return Error{fmt::format("model {}: the API key in {} holds a control character (a line break?); "
                                   "a key is one line of printable characters",
                                   model.name, key_variable)};
        }
      }
      if (!backends.transport) {
        try {
          backends.transport = make_http_transport(loop);
        } catch (const std::invalid_argument& error) {
          return Error{error.what()};
        }
        loop.add_io(backends.transport.get());
      }
      if (auto ok = check_http_transport_for(model.endpoint.base_url); !ok) {
        return Error{fmt::format("model {}: {}", model.name, ok.error().message)};
      }
      client = make_openai_client(loop, *backends.transport, model.endpoint);
    }
    if (cache_dir) client = make_caching_client(loop, std::move(client), *cache_dir);
    backends.clients.emplace(model.name, std::move(client));
  }
  return backends;
}

}  // namespace parley
