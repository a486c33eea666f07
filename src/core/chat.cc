#include "parley/chat.h"

#include <cmath>
#include <ostream>
#include <stdexcept>

namespace parley {

const std::string& SharedText::empty_text() {
  static const std::string kEmpty;
  return kEmpty;
}

std::ostream& operator<<(std::ostream& out, const SharedText& text) { return out << text.str(); }

const char* call_error_kind_name(CallErrorKind kind) {
  switch (kind) {
    case CallErrorKind::kTimeout: return "timeout";
    case CallErrorKind::kHttpStatus: return "http_status";
    case CallErrorKind::kConnection: return "connection";
    case CallErrorKind::kBadResponse: return "bad_response";
    case CallErrorKind::kCancelled: return "cancelled";
    case CallErrorKind::kUnsupported: return "unsupported";
    case CallErrorKind::kTooLarge: return "too_large";
  }
  return "connection";
}

// About four bytes per token is the usual figure for English BPE vocabularies; it is only
// used where a server reports no usage (marked estimated) and inside the simulator.
std::int64_t estimate_tokens(std::string_view text) {
  return static_cast<std::int64_t>((text.size() + 3) / 4);
}

std::int64_t estimate_prompt_tokens(const std::vector<ChatMessage>& messages) {
  constexpr std::int64_t kFramingPerMessage = 4;  // role markers and separators
  std::int64_t total = 0;
  for (const auto& m : messages) total += kFramingPerMessage + estimate_tokens(m.content);
  return total;
}

double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("cosine_similarity: vectors of lengths " + std::to_string(a.size()) + " and " +
                                std::to_string(b.size()));
  }
  double dot = 0.0, norm_a = 0.0, norm_b = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    norm_a += a[i] * a[i];
    norm_b += b[i] * b[i];
  }
  if (norm_a == 0.0 || norm_b == 0.0) return 0.0;
  return dot / (std::sqrt(norm_a) * std::sqrt(norm_b));
}

}  // namespace parley
