// `parley view`: opens the run, listens, prints the address, serves until SIGINT or SIGTERM.
// Those signals are blocked in every thread and taken by one thread with sigwait, which stops the
// server: no handler runs inside httplib's threads.
#include "cli/view_command.h"

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <thread>

#include <fmt/format.h>

#include "cli/output.h"

namespace parley::cli {
namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

// Told by the main thread that serve() returned on its own, so the signal thread ends.
constexpr int kWakeSignal = SIGUSR2;

std::string url_host(const std::string& host) { return host.find(':') != std::string::npos ? "[" + host + "]" : host; }

}  // namespace

void add_view_command(CLI::App& app, ViewCommand& view) {
  view.command = app.add_subcommand(
      "view", "Browse a run in a web browser: its debates, filterable and sortable, and each debate's calls "
              "(read-only, on 127.0.0.1 unless --host says otherwise)");
  view.command->add_option("dir", view.run_dir, "Run directory (holds results.sqlite)")->required();
  view.command->add_option("--port", view.port, "Port to listen on; 0 picks a free one")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  view.command->add_option("--host", view.host,
                           "Address to listen on; another than a loopback one makes the run readable from the network")
      ->capture_default_str();
}

int command_view(const ViewCommand& view) {
  // Blocked before any thread starts (the server's, the store's), so that they all inherit it.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, kWakeSignal}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto viewer = Viewer::open(view.run_dir, [](std::int64_t done, std::int64_t total) {
    if (done == 0) fmt::print(stderr, "parley view: indexing {} debates (once; a store written by an older parley)\n", total);
  });
  if (!viewer) {
    fmt::print(stderr, "parley view: {}\n", viewer.error().message);
    return kExitUsage;
  }
  auto port = (*viewer)->listen(view.host, view.port);
  if (!port) {
    fmt::print(stderr, "parley view: cannot listen: {}\n", port.error().message);
    return kExitRuntime;
  }
  if (!is_loopback_host(view.host)) {
    fmt::print(stderr, "parley view: listening on {}: anyone who can reach this machine can read the run\n", view.host);
  }
  print_out("parley view: serving {} at http://{}:{}/\n", view.run_dir, url_host(view.host), *port);
  std::fflush(stdout);

  std::atomic<bool> stopped_by_signal{false};
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    if (signal == kWakeSignal) return;
    stopped_by_signal = true;
    (*viewer)->stop();
  });
  (*viewer)->serve();
  if (!stopped_by_signal) pthread_kill(waiter.native_handle(), kWakeSignal);
  waiter.join();
  if (stopped_by_signal) fmt::print(stderr, "parley view: stopped\n");
  return 0;
}

}  // namespace parley::cli
