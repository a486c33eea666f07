// allowed_method, allowed_host, is_loopback_host.
#include "view/request_guard.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "parley/viewer.h"

namespace parley {

bool is_loopback_host(const std::string& host) {
  std::string lower(host);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

namespace view {

bool allowed_method(const std::string& method) { return method == "GET" || method == "HEAD"; }

bool allowed_host(const std::optional<std::string>& host_header, const std::string& bound_host, int port) {
  if (!is_loopback_host(bound_host)) return true;
  if (!host_header) return false;
  std::string host = *host_header;
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  // Split off ":PORT" (an IPv6 literal is bracketed, so its colons are inside the brackets).
  std::string name = host;
  std::optional<std::string> port_text;
  const auto colon = host.rfind(':');
  if (colon != std::string::npos && host.find(']', colon) == std::string::npos) {
    name = host.substr(0, colon);
    port_text = host.substr(colon + 1);
  }
  if (port_text ? *port_text != std::to_string(port) : port != 80) return false;
  std::string bound = bound_host;
  std::transform(bound.begin(), bound.end(), bound.begin(), [](unsigned char c) { return std::tolower(c); });
  if (bound.find(':') != std::string::npos) bound = "[" + bound + "]";
  return name == "localhost" || name == "127.0.0.1" || name == "[::1]" || name == bound;
}

}  // namespace view
}  // namespace parley
