#include "gateway/request_checks.h"

#include <algorithm>

#include "core/text.h"

namespace parley::gateway {
namespace {

bool all_digits(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// An address of this machine written as a literal (127.x.x.x, [::1]) or "localhost" (lower
// case): no web page's own name can resolve to it by a DNS answer.
bool names_loopback(std::string_view name) {
  if (name.starts_with("127.")) {
    return std::all_of(name.begin(), name.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
  }
  return name == "localhost" || name == "[::1]";
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text;
}

}  // namespace

bool is_loopback_name(std::string_view host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

bool host_allowed(const serve::IncomingRequest& request) {
  const auto host = request.header("host");
  if (!host || request.header_count("host") != 1) return false;
  std::string_view name = *host;
  if (const auto colon = name.rfind(':'); colon != std::string_view::npos && name.find(']', colon) == std::string_view::npos) {
    if (!all_digits(name.substr(colon + 1))) return false;
    name = name.substr(0, colon);  // an empty port is the default one (RFC 3986)
  }
  if (name.ends_with('.')) name.remove_suffix(1);  // the fully qualified form: "localhost."
  return names_loopback(ascii_lower(name));
}

bool is_json_media_type(std::string_view content_type) {
  return ascii_lower(trimmed(content_type.substr(0, content_type.find(';')))) == "application/json";
}

bool bearer_key_matches(std::string_view authorization, std::string_view key) {
  constexpr std::string_view kBearer = "bearer ";
  if (key.empty() || authorization.size() < kBearer.size() ||
      ascii_lower(authorization.substr(0, kBearer.size())) != kBearer) {
    return false;
  }
  const std::string_view given = authorization.substr(kBearer.size());
  unsigned difference = given.size() == key.size() ? 0U : 1U;
  for (std::size_t i = 0; i < given.size(); ++i) {
    difference |= static_cast<unsigned char>(given[i]) ^ static_cast<unsigned char>(key[i % key.size()]);
  }
  return difference == 0;
}

}  // namespace parley::gateway
