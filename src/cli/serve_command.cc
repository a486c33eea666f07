// `parley serve`: loads the serve file, starts the gateway, prints its address and one line per
// request, until SIGINT or SIGTERM: the first stops taking requests and lets the debates in
// flight finish, a second cancels them.
#include "cli/serve_command.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>

#include <fmt/format.h>

#include "cli/output.h"
#include "parley/config.h"
#include "parley/gateway.h"
#include "parley/viewer.h"

namespace parley::cli {
namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

template <std::size_t N>
void signal_safe_say(const char (&text)[N]) {
  const ssize_t written = ::write(STDERR_FILENO, text, N - 1);
  (void)written;
}

std::atomic<int> g_signals{0};  // lock-free, so safe in a signal handler

void on_stop_signal(int) {
  const int saved_errno = errno;
  if (g_signals.fetch_add(1) == 0) {
    signal_safe_say("\nparley serve: stopping: no new request; the debates in flight finish (Ctrl-C again cancels them)\n");
  } else {
    signal_safe_say("\nparley serve: cancelling the debates in flight (not stored)\n");
  }
  request_gateway_stop();
  errno = saved_errno;
}

}  // namespace

void add_serve_command(CLI::App& app, ServeCommand& serve) {
  serve.command = app.add_subcommand(
      "serve", "Serve the serve file's debate protocols behind an OpenAI-compatible endpoint "
               "(POST /v1/chat/completions, GET /v1/models, GET /health), storing every debate");
  serve.command->add_option("config", serve.config, "Serve file (YAML with models, agents and serve:)")->required();
  serve.command->add_option("--set", serve.overrides, "Override a key, e.g. --set serve.max_debates=8 (repeatable)");
  serve.command->add_option("--host", serve.host, "Address to listen on (default: serve.host, 127.0.0.1)");
  serve.command->add_option("--port", serve.port, "Port to listen on; 0 picks a free one (default: serve.port, 8080)")
      ->check(CLI::Range(0, 65535));
  serve.command->add_option("--store", serve.store, "Directory of the served debates' store (default: serve.store)");
  serve.command->add_option("--api-key-env", serve.api_key_env,
                            "Environment variable holding the key clients must send as a Bearer token");
  serve.command->add_flag("--quiet", serve.quiet, "Do not print a line per request");
}

int command_serve(const ServeCommand& serve) {
  auto config = load_experiment(serve.config, serve.overrides);
  if (!config) {
    fmt::print(stderr, "parley serve: {}\n", config.error().message);
    return kExitUsage;
  }
  if (!config->serve) {
    fmt::print(stderr, "parley serve: {} has no serve: section naming the models to serve (docs/formats.md, \"Serve files\")\n",
               serve.config);
    return kExitUsage;
  }
  GatewayOptions options;
  options.host = serve.host;
  options.port = serve.port;
  if (serve.store) options.store = *serve.store;
  options.api_key_env = serve.api_key_env;
  const std::string host = serve.host.value_or(config->serve->host);
  const bool keyed = !serve.api_key_env.value_or(config->serve->api_key_env).empty();
  options.on_listening = [&](const std::string& address) {
    if (!is_loopback_host(host)) {
      fmt::print(stderr, "parley serve: listening on {}: anyone who can reach this machine can start debates{}\n", host,
                 keyed ? " with the key" : " (no --api-key-env)");
    }
    print_out("parley serve: {} model(s) at http://{}/v1 (store: {})\n", config->serve->models.size(), address,
              (serve.store ? std::filesystem::path(*serve.store) : config->serve->store).string());
    std::fflush(stdout);
  };
  if (!serve.quiet) {
    options.log = [](std::string_view line) { fmt::print(stderr, "parley serve: {}\n", line); };
  }

  struct sigaction action{};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM}) sigaction(signal, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is the server's to notice, not a kill

  auto outcome = run_gateway(*config, options);
  if (!outcome) {
    fmt::print(stderr, "parley serve: {}\n", outcome.error().message);
    return kExitRuntime;
  }
  fmt::print(stderr, "parley serve: stopped after {} request(s): {} debate(s) stored ({} failed), {} rejected (429)\n",
             outcome->requests, outcome->debates, outcome->failed, outcome->rejected);
  if (outcome->failure) {
    fmt::print(stderr, "parley serve: {}\n", outcome->failure->message);
    return kExitRuntime;
  }
  return 0;
}

}  // namespace parley::cli
