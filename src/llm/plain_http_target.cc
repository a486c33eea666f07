#include "plain_http_target.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace parley::http {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

sockaddr_in6 ipv4_address(const in_addr& address, std::uint16_t port) {
  sockaddr_in6 storage{};
  sockaddr_in ipv4{};
  ipv4.sin_family = AF_INET;
  ipv4.sin_port = htons(port);
  ipv4.sin_addr = address;
  std::memcpy(&storage, &ipv4, sizeof ipv4);
  return storage;
}

sockaddr_in6 ipv6_address(const in6_addr& address, std::uint16_t port) {
  sockaddr_in6 ipv6{};
  ipv6.sin6_family = AF_INET6;
  ipv6.sin6_port = htons(port);
  ipv6.sin6_addr = address;
  return ipv6;
}

// "8000" -> 8000; nullopt for anything but 1-5 digits naming a port in 1..65535.
std::optional<std::uint16_t> parse_port(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

}  // namespace

std::optional<PlainHttpTarget> plain_http_target(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.size() < kScheme.size() || !equals_ignoring_case(url.substr(0, kScheme.size()), kScheme)) return std::nullopt;
  // Bytes a request line cannot carry as they are: libcurl decides what to do with them.
  if (std::any_of(url.begin(), url.end(), [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }))
    return std::nullopt;
  std::string_view rest = url.substr(kScheme.size());
  rest = rest.substr(0, rest.find('#'));
  const std::size_t authority_end = rest.find_first_of("/?");
  const std::string_view authority = rest.substr(0, authority_end);
  std::string_view path = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) return std::nullopt;  // credentials

  std::string_view host = authority;
  std::string_view port_text;
  if (host.starts_with('[')) {
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view after = host.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return std::nullopt;
    if (!after.empty()) port_text = after.substr(1);
    host = host.substr(1, close - 1);
    if (!after.empty() && port_text.empty()) return std::nullopt;
  } else if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    port_text = host.substr(colon + 1);
    host = host.substr(0, colon);
    if (port_text.empty()) return std::nullopt;
  }
  std::uint16_t port = 80;
  if (!port_text.empty()) {
    const auto parsed = parse_port(port_text);
    if (!parsed) return std::nullopt;
    port = *parsed;
  }

  PlainHttpTarget target;
  const std::string host_text(host);
  in_addr ipv4{};
  in6_addr ipv6{};
  const bool bracketed = authority.starts_with('[');
  if (!bracketed && inet_pton(AF_INET, host_text.c_str(), &ipv4) == 1) {
    target.addresses.push_back(ipv4_address(ipv4, port));
  } else if (bracketed && inet_pton(AF_INET6, host_text.c_str(), &ipv6) == 1) {
    target.addresses.push_back(ipv6_address(ipv6, port));
  } else if (!bracketed && equals_ignoring_case(host, "localhost")) {
    // Both loopbacks, as libcurl tries them: a server may listen on either.
    in_addr loopback4{};
    loopback4.s_addr = htonl(INADDR_LOOPBACK);
    target.addresses.push_back(ipv4_address(loopback4, port));
    target.addresses.push_back(ipv6_address(in6addr_loopback, port));
  } else {
    return std::nullopt;  // a name to look up
  }
  target.origin = std::string(authority);
  target.path = path.empty() ? "/" : path.starts_with('?') ? "/" + std::string(path) : std::string(path);
  return target;
}

}  // namespace parley::http
