#include "parley/transcript.h"

namespace parley {

const char* debate_status_name(DebateStatus status) {
  switch (status) {
    case DebateStatus::kCompleted: return "completed";
    case DebateStatus::kBudget: return "budget";
    case DebateStatus::kFailed: return "failed";
  }
  return "failed";
}

std::optional<DebateStatus> parse_debate_status(std::string_view name) {
  if (name == "completed") return DebateStatus::kCompleted;
  if (name == "budget") return DebateStatus::kBudget;
  if (name == "failed") return DebateStatus::kFailed;
  return std::nullopt;
}

std::int64_t Transcript::prompt_tokens() const {
  std::int64_t total = 0;
  for (const auto& m : messages) total += m.prompt_tokens;
  return total;
}

std::int64_t Transcript::completion_tokens() const {
  std::int64_t total = 0;
  for (const auto& m : messages) total += m.completion_tokens;
  return total;
}

double Transcript::latency_ms() const { return wall_ms; }

}  // namespace parley
