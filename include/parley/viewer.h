#pragma once
// Viewer: the local web viewer of a run directory (`parley view DIR`). An HTTP server
// (cpp-httplib) that serves the viewer's page and assets, DIR/report.html, and a read-only JSON
// API over the run's store (parley/run_browser.h; the routes are in docs/formats.md, "parley
// view"). It reads no other file and writes nothing (but the one-time index of an older store).
// open() checks the run, listen() binds, serve() answers on a small pool of threads until stop(),
// which any thread (or a signal-handling one) may call. Bound to a loopback address, it answers
// only requests whose Host names that address or localhost (DNS rebinding).

#include <filesystem>
#include <memory>
#include <string>

#include "parley/result.h"
#include "parley/store.h"

namespace parley {

class Viewer {
 public:
  static constexpr int kDefaultPort = 8740;
  static constexpr int kThreads = 8;     // the server's threads (kept-alive connections hold one)
  static constexpr int kConnections = 4;  // read-only store connections, shared by the threads

  // Opens `run_dir`'s store (RunBrowser::open: an Error when it is not a run parley can show).
  static Result<std::unique_ptr<Viewer>> open(const std::filesystem::path& run_dir,
                                              const IndexProgress& progress = nullptr);
  virtual ~Viewer() = default;

  // Binds `host`:`port` (0: a free port) and listens; returns the port. An Error names the address
  // and why (in use, not an address of this machine).
  virtual Result<int> listen(const std::string& host, int port) = 0;
  // Answers requests until stop(); returns at once when not listening.
  virtual void serve() = 0;
  // Stops serve(): no new connection is accepted; requests in progress finish.
  virtual void stop() = 0;
};

// Whether `host` is a loopback address (127.0.0.0/8, ::1) or "localhost".
bool is_loopback_host(const std::string& host);

}  // namespace parley
