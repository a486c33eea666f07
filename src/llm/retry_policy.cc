// RetryPolicy: which failures are worth another attempt, and how long to wait before it.
#include <algorithm>
#include <cmath>

#include "parley/llm_client.h"

namespace parley {

bool RetryPolicy::should_retry(const CallError& error, int attempts_so_far) const {
  if (attempts_so_far > max_retries) return false;
  switch (error.kind) {
    case CallErrorKind::kTimeout:
    case CallErrorKind::kConnection:
      return true;
    case CallErrorKind::kHttpStatus:
      return error.http_status == 408 || error.http_status == 429 || error.http_status >= 500;
    case CallErrorKind::kBadResponse:
      // Treated as transient: overloaded servers and proxies do return truncated JSON or an
      // empty choices list under load, and the same request usually succeeds on a retry.
      return true;
    case CallErrorKind::kCancelled:
    case CallErrorKind::kUnsupported:
    case CallErrorKind::kTooLarge:
      return false;
  }
  return false;
}

std::chrono::milliseconds RetryPolicy::delay(int attempts_so_far, std::optional<double> retry_after_s,
                                             double unit_random) const {
  const int retry = std::max(attempts_so_far, 1);
  // ldexp overflows to infinity for large exponents, which the cap then absorbs.
  const double backoff = std::min(max_delay_s, std::ldexp(base_delay_s, std::min(retry - 1, 1000)));
  const double factor = 1.0 - jitter + 2.0 * jitter * std::clamp(unit_random, 0.0, 1.0);
  double seconds = std::max(0.0, backoff * factor);
  if (retry_after_s) {
    // A server may ask for a long pause; a bounded wait keeps one bad header from stalling a run.
    seconds = std::max(seconds, std::min(*retry_after_s, 10.0 * max_delay_s));
  }
  return std::chrono::milliseconds(std::llround(std::max(0.0, seconds) * 1000.0));
}

}  // namespace parley
