#pragma once
// DIR/report.html for GET /report (internal to src/view): the one file of DIR the viewer serves
// besides the store. Read only when it is a regular file inside DIR (a symlink out of it is
// refused), and served with the Content-Security-Policy its own <meta> declares, so the header is
// no weaker than the page's, plus frame-ancestors 'self' (which a <meta> cannot carry).

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

// The policy sent with the report: its own with frame-ancestors 'self' added, or, for a page that
// declares none, one that lets its inline scripts and styles run but fetches nothing.
std::string report_policy(const std::optional<std::string>& declared);

}  // namespace parley::view
