#pragma once
// WaitableTransport: an HttpTransport whose waiting can be shared with another one, so that the
// routing transport (make_http_transport) drives libcurl and the native transport from one wait.
// Every transport of parley's has a wait_fd (IoDriver's); these must. Internal to src/llm; used
// on the EventLoop thread like any transport.

#include <chrono>
#include <memory>
#include <optional>

#include "parley/llm_client.h"

namespace parley {

class WaitableTransport : public HttpTransport {
 public:
  // A descriptor that is readable when poll(0) has I/O to handle (an epoll set).
  int wait_fd() const override = 0;
  // When poll(0) must next run even if wait_fd() stays quiet (a timeout); nullopt when none.
  std::optional<std::chrono::steady_clock::time_point> next_deadline() const override = 0;
};

std::unique_ptr<WaitableTransport> make_waitable_curl_transport(EventLoop& loop);
std::unique_ptr<WaitableTransport> make_waitable_native_transport(EventLoop& loop);

}  // namespace parley
