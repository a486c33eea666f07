// render_html_report: the report's data, Chart.js and report.js in one page. Nothing from the
// run is written as HTML: the data goes into a JSON <script> block with every '<', '>' and '&'
// escaped (so no text can close the element), and report.js sets all text as textContent. The
// Content-Security-Policy admits exactly the two inlined scripts and the style by SHA-256.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "parley/html_report.h"
#include "web/assets.h"

namespace parley {
namespace {

const web::Asset& asset(std::string_view name) {
  const web::Asset* found = web::find_asset(name);
  if (found == nullptr) throw std::logic_error(fmt::format("front-end file {} is not built in", name));
  return *found;
}

// A CSP source expression ('sha256-<base64>') from a lower-case hex digest.
std::string csp_hash(std::string_view sha256_hex) {
  static constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (std::size_t i = 0; i + 1 < sha256_hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(std::string(sha256_hex.substr(i, 2)), nullptr, 16)));
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t group = static_cast<std::uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) group |= static_cast<std::uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) group |= static_cast<std::uint8_t>(bytes[i + 2]);
    out.push_back(kBase64[(group >> 18) & 63]);
    out.push_back(kBase64[(group >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kBase64[(group >> 6) & 63] : '=');
    out.push_back(i + 2 < bytes.size() ? kBase64[group & 63] : '=');
  }
  return "'sha256-" + out + "'";
}

// JSON made safe inside <script type="application/json">: '<', '>' and '&' occur in JSON only
// inside strings, where their \u escapes mean the same characters to JSON.parse.
std::string script_safe(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (char c : json) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string html_report_csp() {
  return fmt::format(
      "default-src 'none'; script-src {} {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
      csp_hash(asset("chart.js").sha256_hex), csp_hash(asset("report.js").sha256_hex),
      csp_hash(asset("report.css").sha256_hex));
}

Result<std::string> render_html_report(const std::vector<Transcript>& transcripts,
                                       const std::vector<std::string>& protocol_order, bool simulated,
                                       const HtmlReportOptions& options) {
  auto data = report_data_json(transcripts, protocol_order, simulated, options);
  if (!data) return data.error();
  std::string html;
  html.reserve(data->size() + 256 * 1024);
  html += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + html_report_csp() + "\">\n";
  html += "<meta name=\"referrer\" content=\"no-referrer\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<meta name=\"generator\" content=\"parley\">\n<title>parley report</title>\n";
  html += "<style>";
  html += asset("report.css").content;
  html += "</style>\n</head>\n";
  html += fmt::format("<body data-simulated=\"{}\">\n", simulated ? "true" : "false");
  html += "<main id=\"report\"><noscript>This report draws its tables and plots with JavaScript.</noscript></main>\n";
  html += "<script type=\"application/json\" id=\"report-data\">" + script_safe(*data) + "</script>\n";
  html += "<script>";
  html += asset("chart.js").content;
  html += "</script>\n<script>";
  html += asset("report.js").content;
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace parley
