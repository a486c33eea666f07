#pragma once
// What every request and response of the viewer is checked and given (internal to src/view):
// the security headers, the methods answered, and the Host check against DNS rebinding — a page
// of another site whose name was made to resolve to 127.0.0.1 reaches the viewer's port with its
// own name in Host, and is refused.

#include <optional>
#include <string>

namespace parley::view {

// The viewer's Content-Security-Policy: its own scripts, styles and API only; no inline script,
// no outside request, framed only by itself; it frames only its own pages (the summary shows
// /report, which runs sandboxed in an origin of its own: report_page.h).
inline constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

// GET and HEAD only: the viewer changes nothing.
bool allowed_method(const std::string& method);

// Whether a request with this Host header (nullopt: none) may be answered by a server bound to
// `bound_host`:`port`. Bound to a loopback address, Host must name that address, 127.0.0.1,
// [::1] or localhost, with the port (without it only on port 80). Bound elsewhere, anything is.
bool allowed_host(const std::optional<std::string>& host_header, const std::string& bound_host, int port);

}  // namespace parley::view
