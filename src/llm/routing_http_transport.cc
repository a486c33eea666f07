// RoutingHttpTransport: the transport a run uses. Plain http:// to an IP address or localhost
// goes to the native transport; everything else (https, names to look up, credentials in the
// URL) and everything when a proxy is configured goes to libcurl, made the first time it is
// needed so that a plain-http run does not pay for it. Both are driven from one wait: each keeps
// its sockets in its own epoll set, and the router waits on the two sets together.

#include <poll.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
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
      : loop_(loop), native_(make_waitable_native_transport(loop)), proxied_(proxy_configured()) {}

  Async<HttpResponse> post(HttpRequest request) override {
    if (served_natively(request.url)) return native_->post(request);
    if (!curl_) curl_ = make_waitable_curl_transport(loop_);
    return curl_->post(request);
  }

  std::size_t in_flight() const override { return native_->in_flight() + (curl_ ? curl_->in_flight() : 0); }
  bool busy() const override { return native_->busy() || (curl_ && curl_->busy()); }

  void poll(std::chrono::milliseconds max_wait) override {
    const bool curl_busy = curl_ && curl_->busy();
    if (!curl_busy) return native_->poll(max_wait);
    if (!native_->busy()) return curl_->poll(max_wait);
    const auto wait = http::wait_before(http::wait_before(max_wait, native_->next_deadline()), curl_->next_deadline());
    std::array<pollfd, 2> sets{pollfd{native_->wait_fd(), POLLIN, 0}, pollfd{curl_->wait_fd(), POLLIN, 0}};
    ::poll(sets.data(), sets.size(), static_cast<int>(wait.count()));
    native_->poll(std::chrono::milliseconds(0));
    curl_->poll(std::chrono::milliseconds(0));
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

  EventLoop& loop_;
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
