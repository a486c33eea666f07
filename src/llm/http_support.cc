#include "http_support.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <mutex>

namespace parley::http {

std::optional<double> retry_after_seconds(std::string_view value) {
  const std::string text(value);
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(seconds) || seconds < 0) return std::nullopt;
  for (; *end != '\0'; ++end) {
    if (!std::isspace(static_cast<unsigned char>(*end))) return std::nullopt;
  }
  return seconds;
}

bool header_named(std::string_view line, std::string_view lowercase_name) {
  if (line.size() <= lowercase_name.size() || line[lowercase_name.size()] != ':') return false;
  for (std::size_t i = 0; i < lowercase_name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != lowercase_name[i]) return false;
  }
  return true;
}

std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) out.push_back(static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string cancelled_message(const CancelSignal& signal) {
  std::string reason = one_line(signal.reason());
  return reason.empty() ? std::string("cancelled") : reason;
}

namespace {

// Thousands of concurrent connections need thousands of descriptors; the default soft limit
// (often 1024) is far below the hard limit.
rlim_t raise_open_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    // RLIM_INFINITY is refused for NOFILE (the kernel caps it at nr_open); try a large value.
    if (raised.rlim_cur == RLIM_INFINITY) raised.rlim_cur = 1 << 20;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur;
}

}  // namespace

std::chrono::milliseconds wait_before(std::chrono::milliseconds max_wait,
                                      std::optional<std::chrono::steady_clock::time_point> deadline) {
  const auto wait = std::max(max_wait, std::chrono::milliseconds(0));
  if (!deadline) return wait;
  const auto until = std::chrono::ceil<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
  return std::clamp(until, std::chrono::milliseconds(0), wait);
}

rlim_t raise_open_file_limit_once() {
  static std::once_flag once;
  static rlim_t open_file_limit = 1024;
  std::call_once(once, [] { open_file_limit = raise_open_file_limit(); });
  return open_file_limit;
}

}  // namespace parley::http
