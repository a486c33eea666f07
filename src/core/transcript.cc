#include "parley/transcript.h"

#include <algorithm>

namespace parley {

const char* debate_status_name(DebateStatus status) {
  switch (status) {
    case DebateStatus::kCompleted: return "completed";
    case DebateStatus::kBudget: return "budget";
    case DebateStatus::kFailed: return "failed";
    case DebateStatus::kCancelled: return "cancelled";
  }
  return "failed";
}

std::optional<DebateStatus> parse_debate_status(std::string_view name) {
  if (name == "completed") return DebateStatus::kCompleted;
  if (name == "budget") return DebateStatus::kBudget;
  if (name == "failed") return DebateStatus::kFailed;
  return std::nullopt;
}

bool is_agent_answer_role(std::string_view role) {
  for (std::string_view not_an_answer : {"judge", "moderator", "summary", "embedding"}) {
    if (role.starts_with(not_an_answer)) return false;
  }
  return true;
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

double Transcript::latency_ms() const {
  // Critical path: an agent's calls within a round run one after another (answer, re-ask);
  // the agents of a round run in parallel; rounds run one after another.
  std::map<int, std::map<std::string, double>> per_round;
  for (const auto& m : messages) per_round[m.round][m.agent] += m.latency_ms;
  double total = 0.0;
  for (const auto& [round, agents] : per_round) {
    double slowest = 0.0;
    for (const auto& [agent, ms] : agents) slowest = std::max(slowest, ms);
    total += slowest;
  }
  return total;
}

}  // namespace parley
