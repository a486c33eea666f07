// RoutingHttpTransport: the transport a run uses. Plain http:// to an IP address or localhost
// goes to the native transport; everything else (https, names to look up, credentials in the
// URL) and everything when a proxy is configured goes to libcurl, made the first time it is
// needed so that a plain-http run does not pay for it. Both are driven from one wait: each keeps
// its sockets in its own epoll set, and the router's own epoll set holds the two sets (its
// wait_fd, for a loop that waits on it beside other drivers).

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "curl_library.h"
#include "http_support.h"
#include "parley/llm_client.h"
#include "plain_http_target.h"
#include "waitable_transport.h"

namespace parley {
namespace {

// libcurl honours these (and would send plain http:// through the proxy); so must we.
bool proxy_configured() {
  for (const char* name : {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

// Whether `url` is sent by the native transport under the routing rule.
bool routed_natively(std::string_view url, bool proxied) {
  return !proxied && http::plain_http_target(url).has_value();
}

class RoutingHttpTransport final : public HttpTransport {
 public:
  explicit RoutingHttpTransport(EventLoop& loop)
      : loop_(loop), native_(make_waitable_native_transport(loop)), proxied_(proxy_configured()) {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
    watch(*native_);
  }
  ~RoutingHttpTransport() override { close(epoll_fd_); }
  RoutingHttpTransport(const RoutingHttpTransport&) = delete;
  RoutingHttpTransport& operator=(const RoutingHttpTransport&) = delete;

  Async<HttpResponse> post(HttpRequest request) override {
    if (served_natively(request.url)) return native_->post(request);
    if (!curl_) {
      curl_ = make_waitable_curl_transport(loop_);
      watch(*curl_);
    }
    return curl_->post(request);
  }

  std::size_t in_flight() const override { return native_->in_flight() + (curl_ ? curl_->in_flight() : 0); }
  bool busy() const override { return native_->busy() || (curl_ && curl_->busy()); }
  int wait_fd() const override { return epoll_fd_; }
  std::optional<std::chrono::steady_clock::time_point> next_deadline() const override {
    auto deadline = native_->next_deadline();
    if (curl_) {
      const auto curl_deadline = curl_->next_deadline();
      if (curl_deadline && (!deadline || *curl_deadline < *deadline)) deadline = curl_deadline;
    }
    return deadline;
  }

  // A wait (max_wait > 0) goes to the one busy transport alone, as before there was a router;
  // poll(0), what a loop sharing its wait calls, handles both sets, so that an idle transport's
  // news (a pooled connection the server closed) cannot keep wait_fd() readable.
  void poll(std::chrono::milliseconds max_wait) override {
    if (max_wait.count() > 0) {
      const bool curl_busy = curl_ && curl_->busy();
      if (!curl_busy) return native_->poll(max_wait);
      if (!native_->busy()) return curl_->poll(max_wait);
      const auto wait = http::wait_before(max_wait, next_deadline());
      std::array<epoll_event, 2> ready{};
      epoll_wait(epoll_fd_, ready.data(), static_cast<int>(ready.size()), static_cast<int>(wait.count()));
    }
    native_->poll(std::chrono::milliseconds(0));
    if (curl_) curl_->poll(std::chrono::milliseconds(0));
  }

  void cancel() override {
    native_->cancel();
    if (curl_) curl_->cancel();
  }

 private:
  // Decided once per URL: clients send the same few URLs with every request.
  bool served_natively(std::string_view url) {
    for (const auto& [known, native] : decisions_) {
      if (known == url) return native;
    }
    const bool native = routed_natively(url, proxied_);
    decisions_.emplace_back(std::string(url), native);
    return native;
  }

  // Adds a transport's epoll set to the router's (level-triggered: readable while it has news).
  void watch(const WaitableTransport& transport) {
    epoll_event event{};
    event.events = EPOLLIN;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, transport.wait_fd(), &event) != 0) {
      throw std::system_error(errno, std::generic_category(), "epoll_ctl");
    }
  }

  EventLoop& loop_;
  int epoll_fd_ = -1;  // holds the transports' epoll sets
  std::unique_ptr<WaitableTransport> native_;
  std::unique_ptr<WaitableTransport> curl_;  // made on first use
  bool proxied_;
  std::vector<std::pair<std::string, bool>> decisions_;
};

}  // namespace

namespace {

enum class TransportChoice { kRoute, kCurl };

TransportChoice transport_choice() {
  const char* choice = std::getenv("PARLEY_HTTP_TRANSPORT");
  const std::string_view name = choice == nullptr ? "" : choice;
  if (name.empty() || name == "auto") return TransportChoice::kRoute;
  if (name == "curl") return TransportChoice::kCurl;
  throw std::invalid_argument("PARLEY_HTTP_TRANSPORT is \"" + std::string(name) +
                              "\"; it must be \"auto\" (or unset) or \"curl\"");
}

}  // namespace

std::unique_ptr<HttpTransport> make_http_transport(EventLoop& loop) {
  if (transport_choice() == TransportChoice::kCurl) return make_curl_transport(loop);
  return std::make_unique<RoutingHttpTransport>(loop);
}

Result<Ok> check_http_transport_for(std::string_view url) {
  if (transport_choice() == TransportChoice::kRoute && routed_natively(url, proxy_configured())) return Ok{};
  try {
    (void)curl_library();
  } catch (const std::runtime_error& error) {
    return Error{error.what()};
  }
  return Ok{};
}

}  // namespace parley
