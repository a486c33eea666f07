// Debate (the per-debate context every protocol runs on) and run_debate (the one place a
// DebateHalt is caught). The budget rule, the re-ask rule and transcript recording live here
// so that no protocol can forget them.
#include <chrono>

#include <fmt/format.h>

#include "core/hash.h"
#include "parley/protocol.h"
#include "protocols/prompts.h"
#include "protocols/vote.h"

namespace parley {
namespace {

// The smallest completion worth asking for; below it the budget is treated as spent.
constexpr std::int64_t kMinCompletionTokens = 32;

// Upper estimate of a prompt's tokens used to reserve budget before a call: one token per
// three bytes (English BPE vocabularies average about four) plus message framing. The
// reservation is replaced by the reported usage when the reply arrives.
std::int64_t reserved_prompt_tokens(const std::vector<ChatMessage>& messages) {
  std::int64_t total = 0;
  for (const auto& m : messages) total += 4 + static_cast<std::int64_t>((m.content.size() + 2) / 3);
  return total;
}

}  // namespace

Debate::Debate(DebateSetup setup)
    : setup_(std::move(setup)),
      rng_(std::make_unique<Rng>(
          HashBuilder().add("debate").add(setup_.seed).add(setup_.task->id).add(setup_.protocol_label).value())),
      budget_remaining_(setup_.budget_tokens) {
  transcript_.task_id = setup_.task->id;
  transcript_.protocol = setup_.protocol_label;
  transcript_.seed = setup_.seed;
  transcript_.gold = setup_.task->answer;
}

Debate::~Debate() = default;

std::vector<Agent> Debate::agents(std::size_t count) const {
  std::vector<Agent> out;
  out.reserve(count);
  const bool reuse = setup_.agent_pool.size() < count;
  for (std::size_t i = 0; i < count; ++i) {
    Agent a = setup_.agent_pool.at(i % setup_.agent_pool.size());
    if (reuse) a.name += "#" + std::to_string(i + 1);
    out.push_back(std::move(a));
  }
  return out;
}

void Debate::event(int round, std::string kind, std::string detail) {
  transcript_.events.push_back(EventRecord{round, std::move(kind), std::move(detail)});
}

void Debate::remember(const std::string& agent_name, const Answer& answer) {
  if (!answer.parsed()) return;
  for (auto& [name, latest] : latest_) {
    if (name == agent_name) {
      latest = answer;
      return;
    }
  }
  latest_.emplace_back(agent_name, answer);
}

Async<ChatResponse> Debate::call(const Agent& agent, const std::vector<ChatMessage>& messages,
                                 const TurnInfo& info, const std::string& turn) {
  ChatRequest request;
  request.model = agent.model;
  if (!agent.system_prompt.empty()) request.messages.push_back(ChatMessage{"system", agent.system_prompt});
  request.messages.insert(request.messages.end(), messages.begin(), messages.end());
  request.sampling = agent.sampling;
  if (info.temperature) request.sampling.temperature = *info.temperature;
  request.note.task = setup_.task;
  request.note.protocol = setup_.protocol_label;
  request.note.seed = setup_.seed;
  request.note.agent = agent.name;
  request.note.round = info.round;
  request.note.turn = turn;
  request.note.sample = info.sample;
  request.note.shown = info.shown;
  for (const auto& [name, latest] : latest_) {
    if (name == agent.name) request.note.own_previous = latest.value;
  }

  // Budget: reserve the prompt and the completion cap before the call, so that concurrent
  // calls of one debate can never overrun it together.
  std::int64_t reservation = 0;
  if (budget_remaining_) {
    const std::int64_t prompt = reserved_prompt_tokens(request.messages);
    const std::int64_t room = *budget_remaining_ - prompt;
    if (room < kMinCompletionTokens) {
      throw DebateHalt{DebateStatus::kBudget,
                       fmt::format("token budget of {} spent before {}'s {} turn in round {}",
                                   *setup_.budget_tokens, agent.name, turn, info.round)};
    }
    request.sampling.max_tokens =
        static_cast<int>(std::min<std::int64_t>(request.sampling.max_tokens, room));
    reservation = prompt + request.sampling.max_tokens;
    *budget_remaining_ -= reservation;
  }

  // The record takes its place in the transcript when the call is issued, so transcripts list
  // calls in issue order whatever order the replies arrive in (a replayed run is identical).
  const std::size_t slot = transcript_.messages.size();
  transcript_.messages.push_back(MessageRecord{});
  ChatResult result = co_await agent.client->chat(std::move(request));

  MessageRecord record;
  record.round = info.round;
  record.agent = agent.name;
  record.role = turn;
  for (const auto& peer : info.shown) record.shown.push_back(peer.agent);
  if (auto* error = std::get_if<CallError>(&result)) {
    if (budget_remaining_) *budget_remaining_ += reservation;
    record.attempts = error->attempts;
    record.error = fmt::format("{}: {}", call_error_kind_name(error->kind), error->message);
    transcript_.messages[slot] = record;
    throw DebateHalt{DebateStatus::kFailed,
                     fmt::format("{}'s {} call in round {} failed after {} attempt(s): {}", agent.name, turn,
                                 info.round, error->attempts, *record.error)};
  }
  auto& response = std::get<ChatResponse>(result);
  if (budget_remaining_) {
    *budget_remaining_ += reservation - response.usage.prompt_tokens - response.usage.completion_tokens;
  }
  const Answer answer = parse_answer(response.text, *setup_.task);
  record.prompt_tokens = response.usage.prompt_tokens;
  record.completion_tokens = response.usage.completion_tokens;
  record.cached_tokens = response.usage.cached_tokens;
  record.tokens_estimated = response.usage.estimated;
  record.text = response.text;
  record.reasoning = response.reasoning;
  record.answer = answer.value;
  record.confidence = answer.confidence;
  record.latency_ms = response.latency_ms;
  record.attempts = response.attempts;
  if (response.logprobs) {
    record.min_token_logprob = response.logprobs->min_token_logprob;
    record.perplexity = response.logprobs->perplexity;
  }
  transcript_.messages[slot] = std::move(record);
  if (budget_remaining_ && *budget_remaining_ < 0) {
    // Only possible when a server's tokenizer counts more than the reservation assumed.
    event(info.round, "budget_overrun", fmt::format("{} tokens over budget", -*budget_remaining_));
  }
  co_return std::move(response);
}

Async<Turn> Debate::ask(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info) {
  ChatResponse response = co_await call(agent, messages, info, info.turn);
  Answer answer = parse_answer(response.text, *setup_.task);
  for (int reask = 0; reask < setup_.reask_unparsed && !answer.parsed(); ++reask) {
    messages.push_back(ChatMessage{"assistant", response.text});
    messages.push_back(ChatMessage{"user", reask_prompt(*setup_.task)});
    response = co_await call(agent, messages, info, "reask");
    answer = parse_answer(response.text, *setup_.task);
  }
  remember(agent.name, answer);
  co_return Turn{agent.name, info.round, std::move(response.text), std::move(answer)};
}

Async<Transcript> run_debate(const Protocol& protocol, DebateSetup setup) {
  const auto started = std::chrono::steady_clock::now();
  Debate debate(std::move(setup));
  std::optional<DebateHalt> halt;
  std::optional<std::string> final_answer;
  try {
    final_answer = co_await protocol.run(debate);
  } catch (DebateHalt& h) {
    halt = std::move(h);
  }
  Transcript transcript = std::move(debate.transcript());
  if (halt) {
    transcript.status = halt->status;
    transcript.status_reason = halt->reason;
    if (halt->status == DebateStatus::kBudget) {
      // A debate stopped by its budget answers with the vote over what it has so far.
      std::vector<Answer> latest;
      for (const auto& [name, answer] : debate.latest_answers()) latest.push_back(answer);
      final_answer = majority_vote(latest, debate.task().answer_type).winner;
      transcript.events.push_back({0, "budget", halt->reason});
    }
  }
  transcript.final_answer = final_answer;
  transcript.correct = final_answer && answers_match(debate.task(), *final_answer);
  transcript.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  co_return transcript;
}

}  // namespace parley
