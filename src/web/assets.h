#pragma once
// The front-end files built into the binary (src/web/embed.cmake): parley's own report and
// viewer scripts and styles, and Chart.js as Debian's libjs-chart.js ships it. Served by
// `parley view` and inlined into report.html, so neither needs a network or the source tree.
#include <string_view>

namespace parley::web {

struct Asset {
  std::string_view content;
  std::string_view mime;           // "text/javascript", "text/css", "text/html" (all UTF-8)
  std::string_view sha256_hex;     // of content, lower-case hex
};

// "chart.js", "report.js", "report.css", "viewer.html", "viewer.js", "viewer.css"; nullptr for
// any other name (the caller's table of paths ends here).
const Asset* find_asset(std::string_view name);

}  // namespace parley::web
