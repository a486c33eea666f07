// read_report: DIR/report.html checked to be inside DIR, and its declared policy.
#include "view/report_page.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

namespace parley::view {
namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;

std::string no_report_message(const std::filesystem::path& run_dir) {
  return fmt::format("no report.html in {0}: run `parley report {0} --html {0}/report.html`", run_dir.string());
}

// DIR/report.html when it is a regular file whose real path is directly in DIR's real path.
std::optional<std::filesystem::path> report_path(const std::filesystem::path& run_dir) {
  std::error_code ec;
  const auto dir = std::filesystem::canonical(run_dir, ec);
  if (ec) return std::nullopt;
  const auto file = std::filesystem::canonical(dir / "report.html", ec);
  if (ec || file.parent_path() != dir || !std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  return file;
}

}  // namespace

bool has_report(const std::filesystem::path& run_dir) { return report_path(run_dir).has_value(); }

std::optional<std::string> meta_content_security_policy(const std::string& html) {
  static const std::regex kMeta(
      R"(<meta\s[^>]*http-equiv\s*=\s*["']?content-security-policy["']?[^>]*>)", std::regex::icase);
  static const std::regex kContent(R"re(\scontent\s*=\s*(?:"([^"]*)"|'([^']*)'))re", std::regex::icase);
  const std::string head = html.substr(0, kHeadBytes);
  std::smatch meta;
  if (!std::regex_search(head, meta, kMeta)) return std::nullopt;
  const std::string tag = meta.str(0);
  std::smatch content;
  if (!std::regex_search(tag, content, kContent)) return std::nullopt;
  std::string policy = content[1].matched ? content.str(1) : content.str(2);
  // A header value is one line of visible ASCII: anything else is not taken as a policy.
  for (char c : policy) {
    if (c < 0x20 || c > 0x7e) return std::nullopt;
  }
  if (policy.find_first_not_of(' ') == std::string::npos) return std::nullopt;
  // The HTML entity a quote in an attribute would be written as.
  for (std::size_t at; (at = policy.find("&#39;")) != std::string::npos;) policy.replace(at, 5, "'");
  return policy;
}

std::string report_policy(const std::optional<std::string>& declared) {
  if (!declared) {
    return "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
           "base-uri 'none'; form-action 'none'; frame-ancestors 'self'";
  }
  std::string policy = *declared;
  while (!policy.empty() && (policy.back() == ' ' || policy.back() == ';')) policy.pop_back();
  if (policy.find("frame-ancestors") == std::string::npos) policy += "; frame-ancestors 'self'";
  return policy;
}

std::variant<ReportPage, NoReport> read_report(const std::filesystem::path& run_dir) {
  const auto path = report_path(run_dir);
  if (!path) return NoReport{no_report_message(run_dir)};
  std::ifstream in(*path, std::ios::binary);
  std::ostringstream html;
  html << in.rdbuf();
  if (!in) return NoReport{fmt::format("{}: cannot be read", path->string())};
  ReportPage page{html.str(), ""};
  page.content_security_policy = report_policy(meta_content_security_policy(page.html));
  return page;
}

}  // namespace parley::view
