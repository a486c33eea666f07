// The viewer's HTTP server on cpp-httplib: a fixed set of routes, every response with the security
// headers, requests checked for their method and Host before any route runs. Routes read the store
// through a borrowed RunBrowser (browser_pool.h); none reads a file but DIR/report.html.
#include "view/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "view/api_json.h"
#include "view/browser_pool.h"
#include "view/query_params.h"
#include "view/report_page.h"
#include "view/request_guard.h"

namespace parley::view {
namespace {

constexpr const char* kJson = "application/json; charset=utf-8";
constexpr time_t kKeepAliveSeconds = 2;      // an idle kept-alive connection holds a thread this long
constexpr std::size_t kMaxRequestBody = 4096;  // the API takes no bodies

void send_error(httplib::Response& res, int status, const std::string& message, const std::string& parameter = "") {
  res.status = status;
  res.set_content(error_json(message, parameter), kJson);
}

// The run's name as /api/run gives it: its directory's, as the path resolves ("out" for "out/").
std::string display_name(const std::filesystem::path& run_dir) {
  std::error_code ec;
  const auto real = std::filesystem::canonical(run_dir, ec);
  return (ec ? run_dir.lexically_normal() : real).filename().string();
}

void send_json(httplib::Response& res, const std::string& body) {
  res.status = 200;
  res.set_content(body, kJson);
}

class HttpViewer final : public Viewer {
 public:
  HttpViewer(std::filesystem::path run_dir, std::unique_ptr<RunBrowser> first, AssetLookup assets)
      : run_dir_(std::move(run_dir)),
        name_(display_name(run_dir_)),
        pool_(run_dir_, std::move(first), kConnections),
        assets_(std::move(assets)) {
    configure();
  }

  Result<int> listen(const std::string& host, int port) override {
    if (port < 0 || port > 65535) return Error{fmt::format("port {} is not from 0 to 65535", port)};
    errno = 0;
    int bound = port;
    if (port == 0) {
      bound = server_.bind_to_any_port(host);
    } else if (!server_.bind_to_port(host, port)) {
      bound = -1;
    }
    if (bound < 0) {
      const int error = errno;
      const std::string address = host.find(':') != std::string::npos ? "[" + host + "]" : host;
      if (error == EADDRINUSE) return Error{fmt::format("{}:{}: the port is in use (try another with --port)", address, port)};
      if (error == EADDRNOTAVAIL) return Error{fmt::format("{}: not an address of this machine", address)};
      if (error == EACCES) return Error{fmt::format("{}:{}: permission denied", address, port)};
      return Error{fmt::format("{}:{}: cannot listen{}", address, port, error ? std::string(": ") + std::strerror(error) : "")};
    }
    host_ = host;
    port_ = bound;
    return bound;
  }

  void serve() override {
    if (port_ < 0) return;
    serving_ = true;
    if (!stop_requested_) server_.listen_after_bind();
    serving_ = false;
  }

  void stop() override {
    stop_requested_ = true;
    // serve() may be between its check and the server's start: that start takes microseconds.
    while (serving_ && !server_.is_running()) std::this_thread::yield();
    server_.stop();
  }

 private:
  void configure() {
    server_.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
    server_.set_keep_alive_timeout(kKeepAliveSeconds);
    // httplib's default also sets SO_REUSEPORT, with which a second viewer on the same port would
    // share its connections instead of being refused. SO_REUSEADDR alone lets a restarted viewer
    // have its port back while the last one's connections wait out TIME_WAIT.
    server_.set_socket_options([](int sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    server_.set_payload_max_length(kMaxRequestBody);
    server_.set_default_headers({{"Content-Security-Policy", kContentSecurityPolicy},
                                 {"X-Content-Type-Options", "nosniff"},
                                 {"Referrer-Policy", "no-referrer"},
                                 {"Cache-Control", "no-store"}});
    server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!allowed_method(req.method)) {
        res.set_header("Allow", "GET, HEAD");
        send_error(res, 405, fmt::format("{} is not allowed: the viewer answers GET and HEAD", req.method));
        return httplib::Server::HandlerResponse::Handled;
      }
      const auto host = req.has_header("Host") ? std::optional(req.get_header_value("Host")) : std::nullopt;
      if (!allowed_host(host, host_, port_)) {
        send_error(res, 403,
                   fmt::format("Host \"{}\" is not this viewer's address: open http://127.0.0.1:{}/",
                               host.value_or(""), port_));
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    // httplib's own errors (no route: 404; a malformed request: 400) get a JSON body too.
    server_.set_error_handler(httplib::Server::HandlerWithResponse(
        [](const httplib::Request& req, httplib::Response& res) {
          if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          send_error(res, res.status,
                     res.status == 404 ? fmt::format("not found: {}", req.path)
                                       : fmt::format("the request could not be read (HTTP {})", res.status));
          return httplib::Server::HandlerResponse::Handled;
        }));
    server_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
      std::string what = "unknown";
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      send_error(res, 500, fmt::format("internal error: {}", what));
    });

    server_.Get("/", [this](const httplib::Request&, httplib::Response& res) { send_asset(res, "viewer.html"); });
    server_.Get(R"(/assets/([A-Za-z0-9_.-]+))", [this](const httplib::Request& req, httplib::Response& res) {
      send_asset(res, req.matches[1].str());
    });
    server_.Get("/api/run", [this](const httplib::Request&, httplib::Response& res) { api_run(res); });
    server_.Get("/api/debates", [this](const httplib::Request& req, httplib::Response& res) { api_debates(req, res); });
    server_.Get("/api/debate", [this](const httplib::Request& req, httplib::Response& res) { api_debate(req, res); });
    server_.Get("/report", [this](const httplib::Request&, httplib::Response& res) { report(res); });
  }

  void send_asset(httplib::Response& res, const std::string& name) {
    const Asset* asset = assets_ ? assets_(name) : nullptr;
    if (!asset) return send_error(res, 404, fmt::format("not found: no asset {}", name));
    res.status = 200;
    res.set_content(asset->content.data(), asset->content.size(), std::string(asset->mime));
  }

  // Runs `answer` with a borrowed browser; a store failure is a 500 naming it.
  template <class Answer>
  void with_browser(httplib::Response& res, Answer answer) {
    auto browser = pool_.borrow();
    if (!browser) return send_error(res, 500, browser.error().message);
    answer(**browser);
  }

  void api_run(httplib::Response& res) {
    with_browser(res, [&](RunBrowser& browser) {
      auto facts = browser.facts();
      if (!facts) return send_error(res, 500, facts.error().message);
      send_json(res, run_json(*facts, name_, has_report(run_dir_)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    });
  }

  void api_debates(const httplib::Request& req, httplib::Response& res) {
    auto parsed = parse_debate_query(req.params);
    if (auto* bad = std::get_if<BadParameter>(&parsed)) return send_error(res, 400, bad->message, bad->parameter);
    const DebateQuery& query = std::get<DebateQuery>(parsed);
    with_browser(res, [&](RunBrowser& browser) {
      // A metric the run does not have is the caller's mistake, not an empty list.
      std::vector<std::pair<std::string, std::string>> named;
      if (query.sort == DebateSort::kMetric) named.emplace_back("sort", query.sort_metric);
      for (const MetricRange& range : query.ranges) named.emplace_back("range", range.name);
      for (const auto& [parameter, metric] : named) {
        auto known = browser.has_metric(metric);
        if (!known) return send_error(res, 500, known.error().message);
        if (!*known) {
          return send_error(res, 400, fmt::format("{}: no metric named \"{}\" in this run", parameter, metric), parameter);
        }
      }
      auto page = browser.list(query);
      if (!page) return send_error(res, 500, page.error().message);
      send_json(res, page_json(*page).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    });
  }

  void api_debate(const httplib::Request& req, httplib::Response& res) {
    auto parsed = parse_unit(req.params);
    if (auto* bad = std::get_if<BadParameter>(&parsed)) return send_error(res, 400, bad->message, bad->parameter);
    const UnitKey& unit = std::get<UnitKey>(parsed);
    with_browser(res, [&](RunBrowser& browser) {
      auto transcript = browser.transcript_json(unit);
      if (!transcript) return send_error(res, 500, transcript.error().message);
      if (!transcript->has_value()) {
        return send_error(res, 404,
                          fmt::format("no debate of task \"{}\" under protocol \"{}\" with seed {} in this run",
                                      unit.task_id, unit.protocol, unit.seed));
      }
      // Spliced in as stored: checked to be JSON, so a damaged row cannot break the page's.
      if (!nlohmann::json::accept(**transcript)) {
        return send_error(res, 500,
                          fmt::format("the stored transcript of task \"{}\", protocol \"{}\", seed {} is not valid JSON",
                                      unit.task_id, unit.protocol, unit.seed));
      }
      auto others = browser.others(unit);
      if (!others) return send_error(res, 500, others.error().message);
      send_json(res, debate_json(**transcript, *others));
    });
  }

  void report(httplib::Response& res) {
    auto page = read_report(run_dir_);
    if (auto* none = std::get_if<NoReport>(&page)) return send_error(res, 404, none->message);
    auto& report = std::get<ReportPage>(page);
    res.status = 200;
    // Its own policy replaces the viewer's (two headers would both apply, and the viewer's forbids
    // the report's inline scripts).
    res.headers.erase("Content-Security-Policy");
    res.set_header("Content-Security-Policy", report.content_security_policy);
    res.set_content(std::move(report.html), "text/html; charset=utf-8");
  }

  const std::filesystem::path run_dir_;
  const std::string name_;
  BrowserPool pool_;
  AssetLookup assets_;
  httplib::Server server_;
  std::string host_;
  int port_ = -1;
  std::atomic<bool> serving_{false};
  std::atomic<bool> stop_requested_{false};
};

}  // namespace

Result<std::unique_ptr<Viewer>> open_viewer(const std::filesystem::path& run_dir, const IndexProgress& progress,
                                            AssetLookup assets) {
  auto browser = RunBrowser::open(run_dir, progress);
  if (!browser) return browser.error();
  return std::unique_ptr<Viewer>(new HttpViewer(run_dir, std::move(*browser), std::move(assets)));
}

}  // namespace parley::view
