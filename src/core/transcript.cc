#include "parley/transcript.h"

#include <algorithm>

#include <fmt/format.h>
#include <string_view>
#include <tuple>
#include <vector>

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
  // Sorted by (round, agent), each run of one agent's calls sums and each round keeps its slowest.
  struct Call {
    int round;
    std::string_view agent;
    double ms;
  };
  std::vector<Call> calls;
  calls.reserve(messages.size());
  for (const auto& m : messages) calls.push_back({m.round, m.agent, m.latency_ms});
  // Stable: one agent's calls of a round are added in the order they were made, to the bit.
  std::stable_sort(calls.begin(), calls.end(),
            [](const Call& a, const Call& b) { return std::tie(a.round, a.agent) < std::tie(b.round, b.agent); });
  double total = 0.0;
  for (std::size_t i = 0; i < calls.size();) {
    double slowest = 0.0;
    const int round = calls[i].round;
    while (i < calls.size() && calls[i].round == round) {
      double agent_ms = 0.0;
      const std::string_view agent = calls[i].agent;
      for (; i < calls.size() && calls[i].round == round && calls[i].agent == agent; ++i) agent_ms += calls[i].ms;
      slowest = std::max(slowest, agent_ms);
    }
    total += slowest;
  }
  return total;
}

Result<std::vector<ChatMessage>> rebuild_prompt(const Transcript& transcript, int id) {
  const auto& calls = transcript.messages;
  auto call_at = [&](int at) -> const MessageRecord* {
    if (at < 0 || static_cast<std::size_t>(at) >= calls.size() || calls[static_cast<std::size_t>(at)].id != at)
      return nullptr;
    return &calls[static_cast<std::size_t>(at)];
  };
  const MessageRecord* call = call_at(id);
  if (call == nullptr) return Error{fmt::format("no call {} in the transcript", id)};
  // The chain from `id` back to a call that extends none; each link strictly earlier, so it ends.
  std::vector<const MessageRecord*> chain;
  for (;;) {
    if (!call->prompt) return Error{fmt::format("call {} has no stored prompt", call->id)};
    chain.push_back(call);
    if (!call->prompt_extends) break;
    const int extended = *call->prompt_extends;
    const MessageRecord* earlier = call_at(extended);
    if (earlier == nullptr) {
      return Error{fmt::format("call {}'s prompt_extends names call {}, which is not in the transcript", call->id,
                               extended)};
    }
    if (extended >= call->id) {
      return Error{fmt::format("call {}'s prompt_extends names call {}, which is not an earlier call (a cycle)",
                               call->id, extended)};
    }
    if (earlier->agent != call->agent) {
      return Error{fmt::format("call {}'s prompt_extends names call {}, which is {}'s, not {}'s", call->id, extended,
                               earlier->agent, call->agent)};
    }
    call = earlier;
  }
  std::vector<ChatMessage> prompt;
  std::size_t size = 0;
  for (const MessageRecord* link : chain) size += link->prompt->size();
  prompt.reserve(size);
  for (auto link = chain.rbegin(); link != chain.rend(); ++link)
    prompt.insert(prompt.end(), (*link)->prompt->begin(), (*link)->prompt->end());
  return prompt;
}

bool has_prompts(const Transcript& transcript) {
  return std::all_of(transcript.messages.begin(), transcript.messages.end(),
                     [](const MessageRecord& m) { return m.role == "embedding" || m.prompt.has_value(); });
}

}  // namespace parley
