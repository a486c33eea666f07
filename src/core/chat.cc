#include "parley/chat.h"

namespace parley {

const char* call_error_kind_name(CallErrorKind kind) {
  switch (kind) {
    case CallErrorKind::kTimeout: return "timeout";
    case CallErrorKind::kHttpStatus: return "http_status";
    case CallErrorKind::kConnection: return "connection";
    case CallErrorKind::kBadResponse: return "bad_response";
    case CallErrorKind::kCancelled: return "cancelled";
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

}  // namespace parley
