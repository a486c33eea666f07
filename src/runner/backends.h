#pragma once
// Backends: one LLM client per configured model (simulator or OpenAI-compatible endpoint,
// optionally behind the record/replay cache), and the shared HTTP transport when any model
// needs it. Built by the runner for one run; lives on the loop thread.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "parley/config.h"
#include "parley/llm_client.h"
#include "parley/result.h"

namespace parley {

struct Backends {
  std::unique_ptr<HttpTransport> transport;  // null when no model uses HTTP
  std::map<std::string, std::unique_ptr<LlmClient>> clients;  // by model name
  bool simulated = false;                    // any model is the simulator
};

Result<Backends> make_backends(EventLoop& loop, const ExperimentConfig& config,
                               const std::optional<std::filesystem::path>& cache_dir);

}  // namespace parley
