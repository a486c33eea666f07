#pragma once
// DIR/report.html for GET /report (internal to src/view): the one file of DIR the viewer serves
// besides the store. Read only when it is a regular file inside DIR (a symlink out of it is
// refused), and served sandboxed under the policy its own <meta> declares only when that policy is
// as strict as the one parley writes (report_policy).

#include <filesystem>
#include <optional>
#include <string>
#include <variant>

namespace parley::view {

struct ReportPage {
  std::string html;
  std::string content_security_policy;
};

struct NoReport {
  std::string message;  // why there is none to serve, and how to make one
};

std::variant<ReportPage, NoReport> read_report(const std::filesystem::path& run_dir);

// Whether DIR has a report the viewer would serve.
bool has_report(const std::filesystem::path& run_dir);

// The policy of the page's <meta http-equiv="Content-Security-Policy" content="...">, looked for
// in its first 64 KiB; nullopt when it has none (or one that cannot be a header value).
std::optional<std::string> meta_content_security_policy(const std::string& html);

// The policy sent with the report: when the page declares one of the shape parley writes
// (default-src, base-uri and form-action 'none'; scripts and styles by SHA-256 only; data:
// images), that one; otherwise one that runs no script and loads nothing. Always with
// `sandbox` (scripts, when admitted, run in an opaque origin: no access to the viewer's API or
// pages) and frame-ancestors 'self' (which a <meta> cannot carry).
std::string report_policy(const std::optional<std::string>& declared);

}  // namespace parley::view
