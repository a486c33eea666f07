#pragma once
// Which URLs the native HTTP transport serves, and what it needs to send to one: plain http://
// to an IPv4 or IPv6 literal or "localhost", without user information (credentials, name
// lookups, TLS and proxies are libcurl's). Internal to src/llm.

#include <netinet/in.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parley::http {

struct PlainHttpTarget {
  std::string origin;                  // "127.0.0.1:8000", "[::1]:80": the Host header and pool key
  std::string path;                    // "/v1/chat/completions?x=1"; "/" when the URL has none
  std::vector<sockaddr_in6> addresses;  // to try in order (sockaddr_in fits in sockaddr_in6)
};

// The target of `url`, or nullopt when the native transport does not serve it.
std::optional<PlainHttpTarget> plain_http_target(std::string_view url);

}  // namespace parley::http
