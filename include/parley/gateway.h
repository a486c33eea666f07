#pragma once
// Gateway: `parley serve` — every protocol of a serve file behind an OpenAI-compatible endpoint.
// POST /v1/chat/completions runs one debate per request (the last user message is the question)
// and answers with a chat completion whose usage sums every call the debate made; with
// "stream": true, each call and event goes out as a chunk as it happens. GET /v1/models lists
// the served models; GET /health says how busy the gateway is. Every served debate is stored in
// the serve file's store (a run directory), so `parley report`, `view` and `compare` read it.
// The HTTP server and the debates share one thread and one event loop. Formats and limits:
// docs/formats.md, "parley serve".

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "parley/config.h"
#include "parley/result.h"

namespace parley {

struct GatewayOptions {
  // Overrides of the serve file's settings (the command line's --host, --port, --store,
  // --api-key-env).
  std::optional<std::string> host;
  std::optional<int> port;
  std::optional<std::filesystem::path> store;
  std::optional<std::string> api_key_env;
  // Called once the gateway listens, with its address ("127.0.0.1:8080", the port chosen when 0).
  std::function<void(const std::string& address)> on_listening;
  // One line per answered request (method, path, status, model, tokens, seconds), for a log.
  std::function<void(std::string_view line)> log;
};

struct GatewayOutcome {
  std::int64_t requests = 0;   // HTTP requests answered
  std::int64_t debates = 0;    // debates stored
  std::int64_t failed = 0;     // of which failed (a backend call failed, or the client left)
  std::int64_t rejected = 0;   // answered 429: every slot and queue place taken
  std::optional<Error> failure;  // the store could not be written: the gateway stopped
};

// Serves until request_gateway_stop(). An Error means it could not start (no `serve:` section,
// backends, the store, the address).
Result<GatewayOutcome> run_gateway(const ExperimentConfig& config, const GatewayOptions& options);

// The first call stops accepting requests and lets the debates in flight finish; a second one
// also cancels them (they are not stored). Async-signal-safe, for SIGINT/SIGTERM handlers.
void request_gateway_stop();

}  // namespace parley
