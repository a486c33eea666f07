// read_report: DIR/report.html checked to be inside DIR, and its declared policy.
#include "view/report_page.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <system_error>
#include <vector>

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

namespace {

// Whether every directive of `policy` is one parley's report writes (html_report_csp) with
// sources it could write: nothing but 'none', hashes and data: images. A file in DIR that is not
// parley's report (or was edited) cannot widen what the viewer lets it do.
bool is_report_policy(const std::string& policy) {
  std::istringstream directives(policy);
  bool any = false;
  for (std::string directive; std::getline(directives, directive, ';');) {
    std::istringstream words(directive);
    std::string name;
    if (!(words >> name)) continue;
    std::vector<std::string> sources;
    for (std::string source; words >> source;) sources.push_back(source);
    if (sources.empty()) return false;
    const auto all = [&](auto allowed) { return std::all_of(sources.begin(), sources.end(), allowed); };
    const auto is_hash = [](const std::string& source) {
      return source.starts_with("'sha256-") && source.ends_with("'") && source.size() > 10 &&
             source.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", 8) ==
                 source.size() - 1;
    };
    const auto is_none = [](const std::string& source) { return source == "'none'"; };
    bool ok = false;
    if (name == "default-src" || name == "base-uri" || name == "form-action") ok = all(is_none);
    else if (name == "script-src" || name == "style-src") ok = all(is_hash);
    else if (name == "img-src") ok = all([&](const std::string& x) { return x == "data:" || is_none(x); });
    if (!ok) return false;
    any = true;
  }
  return any;
}

}  // namespace

std::string report_policy(const std::optional<std::string>& declared) {
  // Sandboxed either way: the page runs in an origin of its own, so even a script it admits can
  // neither call the viewer's API nor read its pages.
  if (!declared || !is_report_policy(*declared)) return "default-src 'none'; sandbox; frame-ancestors 'self'";
  std::string policy = *declared;
  while (!policy.empty() && (policy.back() == ' ' || policy.back() == ';')) policy.pop_back();
  return policy + "; sandbox allow-scripts; frame-ancestors 'self'";
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
