// Debate (the per-debate context every protocol runs on) and run_debate (the one place a
// DebateHalt is caught). The budget rule, the re-ask rule, transcript recording, the debate's
// cancel signal and deadline, and the progress hook live here so that no protocol can forget them.
#include <algorithm>
#include <chrono>
#include <coroutine>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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
std::int64_t reserved_text_tokens(std::string_view text) { return static_cast<std::int64_t>((text.size() + 2) / 3); }

std::int64_t reserved_prompt_tokens(const std::vector<ChatMessage>& messages) {
  std::int64_t total = 0;
  for (const auto& m : messages) total += 4 + reserved_text_tokens(m.content);
  return total;
}

// Whether `prefix` is where `prompt` starts: the same messages, the same text (the same shared
// text, usually, which is compared by its address first).
bool is_prefix(const std::vector<ChatMessage>& prefix, const std::vector<ChatMessage>& prompt) {
  if (prefix.size() > prompt.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const ChatMessage& a = prefix[i];
    const ChatMessage& b = prompt[i];
    if (a.role != b.role) return false;
    if (&a.content.str() != &b.content.str() && a.content.str() != b.content.str()) return false;
  }
  return true;
}

// Why a deadline `left` after the debate's start stopped it.
std::string deadline_reason(EventLoop::Clock::duration left) {
  return fmt::format("deadline of {:.1f} s reached", std::chrono::duration<double>(left).count());
}

// The loop a debate's replies are handed over on; a setup without one is a programming error.
EventLoop& loop_of(const DebateSetup& setup) {
  if (setup.loop == nullptr) throw std::invalid_argument("DebateSetup::loop is required");
  return *setup.loop;
}

}  // namespace

struct Debate::Call {
  ChatResponse response;
  std::size_t slot = 0;  // its record in transcript_.messages
  Answer answer;         // the reply read once, when the call parses (empty otherwise)
};

struct Debate::Draft {
  Turn turn;
  std::vector<std::size_t> slots;  // the records of its call and re-asks
};

// Calls of one turn whose requests are identical but for their sample indices, sent to the
// client together as LlmClient::chat_n, so that a server supporting "n" reads the prompt once.
// Each call is issued as any other (its record, budget reservation and place in issue order)
// and joins with its request; one that halts before its request (budget) withdraws. Once all
// `expected` calls have done one or the other, the first to join sends the requests: each run
// of consecutive samples with equal sampling (a budget may cap the last one's max_tokens) as
// one chat_n, a run of one as chat().
class Debate::Batch {
 public:
  Batch(EventLoop& loop, int expected) : loop_(loop), expected_(static_cast<std::size_t>(expected)) {}

  Async<ChatResult> join(LlmClient& client, ChatRequest request) {
    const std::size_t index = requests_.size();
    requests_.push_back(std::move(request));
    if (index == 0) {
      if (!all_in()) co_await Park{&sender_};
      try {
        co_await send(client);
      } catch (...) {
        failure_ = std::current_exception();  // a backend's bug: every call of the batch sees it
      }
      for (std::coroutine_handle<> waiter : std::exchange(waiters_, {})) loop_.post(waiter);
    } else {
      wake_sender_when_all_in();
      co_await Park{nullptr, &waiters_};
    }
    if (failure_) std::rethrow_exception(failure_);
    co_return std::move(*results_[index]);
  }

  void withdraw() {
    ++withdrawn_;
    wake_sender_when_all_in();
  }

 private:
  struct Park {
    std::coroutine_handle<>* one = nullptr;
    std::vector<std::coroutine_handle<>>* many = nullptr;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> waiter) {
      if (one != nullptr) *one = waiter;
      if (many != nullptr) many->push_back(waiter);
    }
    void await_resume() const noexcept {}
  };

  bool all_in() const { return requests_.size() + withdrawn_ == expected_; }
  void wake_sender_when_all_in() {
    if (all_in() && sender_) loop_.post(std::exchange(sender_, {}));
  }

  static Async<std::vector<ChatResult>> chat_one(LlmClient& client, ChatRequest request) {
    std::vector<ChatResult> results;
    results.push_back(co_await client.chat(std::move(request)));
    co_return results;
  }

  Async<void> send(LlmClient& client) {
    std::vector<std::pair<std::size_t, std::size_t>> runs;  // first request, requests
    std::vector<Async<std::vector<ChatResult>>> calls;
    for (std::size_t first = 0, end = 1; first < requests_.size(); first = end, end = first + 1) {
      while (end < requests_.size() && requests_[end].sampling == requests_[first].sampling &&
             requests_[end].note.sample == requests_[end - 1].note.sample + 1)
        ++end;
      const auto count = static_cast<int>(end - first);
      calls.push_back(count == 1 ? chat_one(client, requests_[first])
                                 : client.chat_n(requests_[first], count));
      runs.emplace_back(first, end - first);
    }
    std::vector<std::vector<ChatResult>> answers = co_await when_all(std::move(calls));
    results_.resize(requests_.size());
    for (std::size_t r = 0; r < runs.size(); ++r) {
      for (std::size_t k = 0; k < runs[r].second; ++k) {
        results_[runs[r].first + k] =
            k < answers[r].size() ? std::move(answers[r][k])
                                  : ChatResult(CallError{CallErrorKind::kBadResponse, 0,
                                                         "the backend answered fewer samples than asked"});
      }
    }
  }

  EventLoop& loop_;
  std::size_t expected_;
  std::size_t withdrawn_ = 0;
  std::vector<ChatRequest> requests_;
  std::vector<std::optional<ChatResult>> results_;
  std::coroutine_handle<> sender_;  // the first to join, parked until all are in
  std::vector<std::coroutine_handle<>> waiters_;
  std::exception_ptr failure_;
};

// What stops a debate before its protocol ends: DebateSetup::cancel or the deadline. `signal`
// is what every request carries; `halt` is what the debate then throws. Shared with the
// deadline's watcher, which may resume after the Debate is gone and then only reads `ended`.
struct Debate::Stop {
  CancelSignal signal;
  std::optional<DebateHalt> halt;  // set once, when `signal` fires
  CancelSignal ended;              // fired when the debate ends: the watcher stops waiting
  CancelSignal::Subscription on_cancel;  // to DebateSetup::cancel, reset when the debate ends

  void fire(DebateHalt why) {
    if (halt) return;
    halt = std::move(why);
    signal.fire(halt->reason);
  }

  // Sleeps until `deadline` unless the debate ends first (then it neither keeps the loop
  // waiting nor touches the debate), and stops the debate when the deadline is reached. A
  // cancelled loop releases every timer at once: the run was stopped, not the deadline reached.
  static Async<void> watch(EventLoop& loop, std::shared_ptr<Stop> stop, EventLoop::Clock::time_point deadline,
                           std::string reason) {
    co_await loop.sleep_until(deadline, &stop->ended);
    if (stop->ended.fired() || loop.cancelled()) co_return;
    stop->fire(DebateHalt{DebateStatus::kBudget, std::move(reason), std::nullopt});
  }
};

Debate::Debate(DebateSetup setup)
    : setup_(std::move(setup)),
      issue_order_(loop_of(setup_)),
      rng_(std::make_unique<Rng>(
          HashBuilder().add("debate").add(setup_.seed).add(setup_.task->id).add(setup_.protocol_label).value())),
      budget_remaining_(setup_.budget_tokens) {
  transcript_.task_id = setup_.task->id;
  transcript_.protocol = setup_.protocol_label;
  transcript_.seed = setup_.seed;
  transcript_.question = setup_.task->question;
  transcript_.options = setup_.task->options;
  transcript_.gold = setup_.task->answer;
  transcript_.answer_type = setup_.task->answer_type;
  transcript_.tolerance = setup_.task->tolerance;
  if (setup_.cancel == nullptr && !setup_.deadline) return;
  stop_ = std::make_shared<Stop>();
  if (CancelSignal* cancel = setup_.cancel; cancel != nullptr) {
    // Runs at once when the signal has fired already: the debate then issues no call.
    stop_->on_cancel = cancel->subscribe([stop = stop_.get(), cancel] {
      stop->fire(DebateHalt{DebateStatus::kCancelled, cancel->reason(), std::nullopt});
    });
  }
  if (setup_.deadline) {
    EventLoop& loop = *setup_.loop;
    const EventLoop::Clock::time_point deadline = *setup_.deadline;
    const EventLoop::Clock::duration left = deadline - EventLoop::Clock::now();
    if (left <= EventLoop::Clock::duration::zero()) {
      stop_->fire(DebateHalt{DebateStatus::kBudget, "deadline passed before the debate started", std::nullopt});
    } else {
      std::string reason = deadline_reason(left);
      loop.spawn(Stop::watch(loop, stop_, deadline, std::move(reason)));
    }
  }
}

Debate::~Debate() {
  if (!stop_) return;
  stop_->on_cancel.reset();           // DebateSetup::cancel may be gone once the debate is
  stop_->ended.fire("debate ended");  // the watcher, if any, resumes on a later turn and ends
}

CancelSignal* Debate::stop_signal() const { return stop_ ? &stop_->signal : nullptr; }

void Debate::halt_if_stopped(Batch* batch) {
  if (!stop_ || !stop_->halt) return;
  if (batch != nullptr) batch->withdraw();
  throw *stop_->halt;
}

void Debate::report(DebateProgress::Kind kind, std::size_t index) const noexcept {
  if (setup_.on_progress) setup_.on_progress(transcript_, DebateProgress{kind, index});
}

std::vector<Agent> Debate::agents(std::size_t count) {
  std::vector<Agent> out;
  out.reserve(count);
  const bool reuse = setup_.agent_pool.size() < count;
  const AttackSetup& attack = setup_.attack;
  for (std::size_t i = 0; i < count; ++i) {
    Agent a = setup_.agent_pool.at(i % setup_.agent_pool.size());
    a.compromised = std::find(attack.agents.begin(), attack.agents.end(), a.name) != attack.agents.end() ||
                    i + static_cast<std::size_t>(attack.count) >= count;
    if (reuse) a.name += "#" + std::to_string(i + 1);
    if (std::find(seated_.begin(), seated_.end(), a.name) == seated_.end()) seated_.push_back(a.name);
    if (a.compromised) {
      const std::string& instruction = attack.instruction.empty() ? kDefaultAttackInstruction : attack.instruction;
      a.system_prompt += (a.system_prompt.empty() ? "" : "\n\n") + instruction;
    }
    out.push_back(std::move(a));
  }
  pool_seated_ = std::max(pool_seated_, std::min(count, setup_.agent_pool.size()));
  note_compromised(out);
  note_shared_roles();
  return out;
}

void Debate::note_compromised(const std::vector<Agent>& seats) {
  nlohmann::json names = nlohmann::json::array();
  for (const Agent& seat : seats) {
    const bool noted = std::find(compromised_noted_.begin(), compromised_noted_.end(), seat.name) !=
                       compromised_noted_.end();
    if (!seat.compromised || noted) continue;
    compromised_noted_.push_back(seat.name);
    names.push_back(seat.name);
  }
  if (names.empty()) return;
  const AttackSetup& attack = setup_.attack;
  nlohmann::json detail = {{"compromised", names},
                           {"instruction", attack.instruction.empty() ? kDefaultAttackInstruction : attack.instruction}};
  if (attack.count > 0) detail["count"] = attack.count;
  event(0, "attack", detail.dump());
}

const std::vector<Agent>& Debate::judge_panel() {
  if (!judge_panel_) {
    judge_panel_ = setup_.judge_panel;
    if (judge_panel_->empty() && !setup_.agent_pool.empty()) {
      // iMAD's MAD and the protocols paper's judge are roles of their own: a debater does not
      // also judge unless the experiment says so.
      if (pool_seated_ < setup_.agent_pool.size()) {
        judge_panel_->push_back(setup_.agent_pool[pool_seated_]);
      } else {
        Agent judge = setup_.agent_pool.front();
        judge.name += "#judge";
        judge_panel_->push_back(std::move(judge));
      }
    }
  }
  note_shared_roles();
  return *judge_panel_;
}

void Debate::note_shared_roles() {
  if (!judge_panel_) return;
  for (const Agent& judge : *judge_panel_) {
    const bool debates = std::find(seated_.begin(), seated_.end(), judge.name) != seated_.end();
    const bool noted =
        std::find(shared_roles_noted_.begin(), shared_roles_noted_.end(), judge.name) != shared_roles_noted_.end();
    if (!debates || noted) continue;
    shared_roles_noted_.push_back(judge.name);
    event(0, "shared_role", fmt::format(R"({{"agent":"{}","roles":["debater","judge"]}})", judge.name));
  }
}

void Debate::event(int round, std::string kind, std::string detail) {
  transcript_.events.push_back(EventRecord{round, std::move(kind), std::move(detail)});
  report(DebateProgress::Kind::kEvent, transcript_.events.size() - 1);
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

void Debate::fail_call(std::size_t slot, const CallError& error, std::int64_t reservation, const std::string& what) {
  if (budget_remaining_) *budget_remaining_ += reservation;
  MessageRecord& record = transcript_.messages[slot];
  record.attempts = error.attempts;
  record.error = fmt::format("{}: {}", call_error_kind_name(error.kind), error.message);
  report(DebateProgress::Kind::kCall, slot);
  // A call the debate's own stop cut short ends the debate as the stop says.
  if (stop_ && stop_->halt) throw *stop_->halt;
  const std::string reason = fmt::format("{} failed after {} attempt(s): {}", what, error.attempts, *record.error);
  throw DebateHalt{error.kind == CallErrorKind::kCancelled ? DebateStatus::kCancelled : DebateStatus::kFailed, reason};
}

// call() is split in two plain functions around its one suspension, issue() and complete():
// a coroutine keeps every local in its frame, and a frame per call in flight is what ten
// thousand debates in flight hold, so the request, the record and the parsed answer are built
// on the stack instead.
Debate::Issued Debate::issue(const Agent& agent, const std::vector<ChatMessage>& messages, const TurnInfo& info,
                             const std::string& turn, std::optional<std::size_t> repeats, Batch* batch) {
  halt_if_stopped(batch);
  ChatRequest request;
  request.model = agent.model;
  request.messages.reserve(messages.size() + 1);
  if (!agent.system_prompt.empty()) request.messages.push_back(ChatMessage{"system", agent.system_prompt});
  request.messages.insert(request.messages.end(), messages.begin(), messages.end());
  request.sampling = agent.sampling;
  if (info.temperature) request.sampling.temperature = *info.temperature;
  if (info.logprobs) request.sampling.logprobs = true;
  request.note.task = setup_.task;
  request.note.protocol = setup_.protocol_label;
  request.note.seed = setup_.seed;
  request.note.agent = agent.name;
  request.note.round = info.round;
  request.note.turn = turn;
  if (turn != info.turn) request.note.repeats = info.turn;  // a re-ask states the turn it repeats
  request.note.sample = info.sample;
  request.note.shown = info.shown;
  request.note.contentiousness = info.contentiousness;
  request.note.evidence = info.evidence;
  request.note.compromised = agent.compromised;
  request.cancel = stop_signal();
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
      if (batch != nullptr) batch->withdraw();
      throw DebateHalt{DebateStatus::kBudget,
                       fmt::format("token budget of {} spent or reserved before {}'s {} turn in round {}",
                                   *setup_.budget_tokens, agent.name, turn, info.round)};
    }
    request.sampling.max_tokens =
        static_cast<int>(std::min<std::int64_t>(request.sampling.max_tokens, room));
    reservation = prompt + request.sampling.max_tokens;
    *budget_remaining_ -= reservation;
  }

  // The record takes its place in the transcript when the call is issued, with its identity,
  // so transcripts list calls in issue order whatever order the replies arrive in (a replayed
  // run is identical) and a re-ask names its turn's call whichever calls finish in between.
  const std::size_t slot = transcript_.messages.size();
  MessageRecord record;
  record.id = static_cast<int>(slot);
  if (repeats) record.repeats = static_cast<int>(*repeats);
  record.round = info.round;
  record.agent = agent.name;
  record.role = turn;
  record.shown.reserve(info.shown.size());
  for (const auto& peer : info.shown) record.shown.push_back(peer.agent);
  record_prompt(record, request.messages);
  transcript_.messages.push_back(std::move(record));
  return Issued{batch != nullptr ? batch->join(*agent.client, std::move(request)) : agent.client->chat(std::move(request)),
                slot, reservation};
}

void Debate::record_prompt(MessageRecord& record, const std::vector<ChatMessage>& prompt) {
  const std::size_t slot = transcript_.messages.size();
  sent_.resize(slot);
  for (std::size_t earlier = slot; earlier-- > 0;) {
    const std::vector<ChatMessage>& sent = sent_[earlier];
    if (sent.empty() || transcript_.messages[earlier].agent != record.agent || !is_prefix(sent, prompt)) continue;
    record.prompt_extends = static_cast<int>(earlier);
    record.prompt.emplace(prompt.begin() + static_cast<std::ptrdiff_t>(sent.size()), prompt.end());
    break;
  }
  if (!record.prompt) record.prompt = prompt;
  sent_.push_back(prompt);
}

Debate::Call Debate::complete(const Agent& agent, const TurnInfo& info, const std::string& turn, bool parse,
                              std::size_t slot, std::int64_t reservation, ChatResult result, bool report_reply) {
  if (auto* error = std::get_if<CallError>(&result)) {
    fail_call(slot, *error, reservation, fmt::format("{}'s {} call in round {}", agent.name, turn, info.round));
  }
  auto& response = std::get<ChatResponse>(result);
  if (budget_remaining_) {
    *budget_remaining_ += reservation - response.usage.prompt_tokens - response.usage.completion_tokens;
  }
  Answer answer = parse ? parse_answer(response.text, *setup_.task) : Answer{};
  MessageRecord& record = transcript_.messages[slot];
  record.prompt_tokens = response.usage.prompt_tokens;
  record.completion_tokens = response.usage.completion_tokens;
  record.cached_tokens = response.usage.cached_tokens;
  record.tokens_estimated = response.usage.estimated;
  record.warnings = response.warnings;
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
  if (report_reply) report(DebateProgress::Kind::kCall, slot);
  if (budget_remaining_ && *budget_remaining_ < 0) {
    // Only possible when a server's tokenizer counts more than the reservation assumed.
    event(info.round, "budget_overrun", fmt::format("{} tokens over budget", -*budget_remaining_));
  }
  return Call{std::move(response), slot, std::move(answer)};
}

Async<Debate::Call> Debate::call(const Agent& agent, const std::vector<ChatMessage>& messages,
                                 const TurnInfo& info, const std::string& turn, bool parse,
                                 std::optional<std::size_t> repeats, Batch* batch, bool report_reply) {
  Issued issued = issue(agent, messages, info, turn, repeats, batch);
  ChatResult result = co_await issue_order_.run(std::move(issued.reply));
  co_return complete(agent, info, turn, parse, issued.slot, issued.reservation, std::move(result), report_reply);
}

Async<std::vector<std::vector<double>>> Debate::embed(std::vector<std::string> texts, int round, std::string about,
                                                      std::string kind) {
  const Embedder& embedder = setup_.embedder.value();
  halt_if_stopped(nullptr);
  std::int64_t reservation = 0;
  if (budget_remaining_) {
    for (const auto& text : texts) reservation += reserved_text_tokens(text);
    if (reservation > *budget_remaining_) {
      throw DebateHalt{DebateStatus::kBudget, fmt::format("token budget of {} spent or reserved before embedding {} in round {}",
                                                          *setup_.budget_tokens, about, round)};
    }
    *budget_remaining_ -= reservation;
  }
  EmbeddingRequest request;
  request.model = embedder.model;
  request.inputs = std::move(texts);
  request.note.task = setup_.task;
  request.note.protocol = setup_.protocol_label;
  request.note.seed = setup_.seed;
  request.note.agent = embedder.name;
  request.note.round = round;
  request.note.turn = std::move(kind);
  request.cancel = stop_signal();
  const std::size_t inputs = request.inputs.size();

  const std::size_t slot = transcript_.messages.size();
  MessageRecord record;
  record.id = static_cast<int>(slot);
  record.round = round;
  record.agent = embedder.name;
  record.role = "embedding";
  record.text = fmt::format("embedded {} text(s): {}", inputs, about);
  transcript_.messages.push_back(std::move(record));
  sent_.resize(transcript_.messages.size());  // an embedding call has no prompt
  Async<EmbeddingResult> reply = embedder.client->embed(std::move(request));
  EmbeddingResult result = co_await issue_order_.run(std::move(reply));
  if (auto* error = std::get_if<CallError>(&result)) {
    fail_call(slot, *error, reservation, fmt::format("embedding call ({}) in round {}", about, round));
  }
  auto& response = std::get<EmbeddingResponse>(result);
  if (budget_remaining_) *budget_remaining_ += reservation - response.usage.prompt_tokens;
  record = std::move(transcript_.messages[slot]);
  record.prompt_tokens = response.usage.prompt_tokens;
  record.cached_tokens = response.usage.cached_tokens;
  record.tokens_estimated = response.usage.estimated;
  record.warnings = response.warnings;
  record.latency_ms = response.latency_ms;
  record.attempts = response.attempts;
  transcript_.messages[slot] = std::move(record);
  report(DebateProgress::Kind::kCall, slot);
  if (response.vectors.size() != inputs) {
    // The clients check this; a backend breaking it is a bug worth a clear halt, not a crash.
    throw DebateHalt{DebateStatus::kFailed, fmt::format("embedding call ({}) returned {} vectors for {} texts", about,
                                                        response.vectors.size(), inputs)};
  }
  co_return std::move(response.vectors);
}

Async<Debate::Draft> Debate::ask_once(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info,
                                      Batch* batch) {
  Call reply = co_await call(agent, messages, info, info.turn, true, std::nullopt, batch);
  std::vector<std::size_t> slots{reply.slot};
  // The re-asks' messages and replies live in a frame of their own, only when needed.
  if (setup_.reask_unparsed > 0 && !reply.answer.parsed()) co_await reask(agent, std::move(messages), info, reply, slots);
  co_return draft_of(agent, info, reply, std::move(slots));
}

Async<void> Debate::reask(const Agent& agent, std::vector<ChatMessage> messages, const TurnInfo& info, Call& reply,
                          std::vector<std::size_t>& slots) {
  const std::size_t first_call = slots.front();
  for (int reask = 0; reask < setup_.reask_unparsed && !reply.answer.parsed(); ++reask) {
    messages.push_back(ChatMessage{"assistant", reply.response.text});
    messages.push_back(ChatMessage{"user", reask_prompt(*setup_.task)});
    reply = co_await call(agent, messages, info, "reask", true, first_call);
    slots.push_back(reply.slot);
  }
}

Debate::Draft Debate::draft_of(const Agent& agent, const TurnInfo& info, Call& reply, std::vector<std::size_t> slots) {
  return Draft{Turn{agent.name, info.round, std::move(reply.response.text), std::move(reply.answer),
                    std::move(reply.response.logprobs)},
               std::move(slots)};
}

// Not a coroutine: the turn's own coroutine is the one returned, with no frame of ask's between.
Async<Turn> Debate::ask(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info) {
  if (setup_.best_of > 1) return ask_best_of(agent, std::move(messages), std::move(info));
  return ask_sample(agent, std::move(messages), std::move(info), nullptr);
}

Async<Turn> Debate::ask_sample(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info,
                               Batch* batch) {
  Draft draft = co_await ask_once(agent, std::move(messages), std::move(info), batch);
  remember(agent.name, draft.turn.answer);
  co_return std::move(draft.turn);
}

Async<std::vector<Turn>> Debate::ask_samples(const Agent& agent, std::vector<ChatMessage> messages,
                                             TurnInfo info, int count) {
  // With best_of, each sample is a best-of turn, whose drafts batch among themselves.
  std::optional<Batch> batch;
  if (setup_.best_of <= 1) batch.emplace(*setup_.loop, count);
  std::vector<Async<Turn>> turns;
  for (int i = 0; i < count; ++i) {
    TurnInfo sample_info = info;
    sample_info.sample = info.sample + i;
    turns.push_back(batch ? ask_sample(agent, messages, std::move(sample_info), &*batch)
                          : ask(agent, messages, std::move(sample_info)));
  }
  co_return co_await when_all(std::move(turns));
}

Async<Turn> Debate::ask_best_of(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info) {
  // Protocols paper App. A.1, Alg. I: N drafts at jittered temperatures, the judge scores each
  // on its scale mapped to [0, 1], the highest-scored draft is kept (the first on a tie).
  const int n = setup_.best_of;
  const double base = info.temperature.value_or(agent.sampling.temperature);
  // Without jitter the drafts are identical requests, sent as one (docs/protocols.md).
  std::optional<Batch> batch;
  if (setup_.best_of_jitter == 0.0) batch.emplace(*setup_.loop, n);
  std::vector<Async<Draft>> calls;
  for (int i = 0; i < n; ++i) {
    TurnInfo draft_info = info;
    draft_info.temperature = std::max(0.0, base + (i - (n - 1) / 2.0) * setup_.best_of_jitter);
    draft_info.sample = info.sample * n + i;
    calls.push_back(ask_once(agent, messages, std::move(draft_info), batch ? &*batch : nullptr));
  }
  std::vector<Draft> drafts = co_await when_all(std::move(calls));

  std::vector<JudgedResponse> responses;
  for (const auto& d : drafts) responses.push_back(JudgedResponse{agent.name, d.turn.text});
  Judge judge(*this);
  const std::vector<ScoreVerdict> verdicts = co_await judge.score_each(responses, info.round);
  std::size_t kept = 0;
  double best = -2.0;
  std::string scores;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    // An unparsed draft loses to any parsed one; a draft the judges could not score ranks
    // below every scored draft.
    const double score = !drafts[i].turn.answer.parsed() ? -2.0 : verdicts[i].score.value_or(-1.0);
    if (score > best) {
      best = score;
      kept = i;
    }
    scores += fmt::format("{}{}", i ? "," : "", verdicts[i].score ? fmt::format("{:.4g}", *verdicts[i].score) : "null");
  }
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    if (i == kept) continue;
    for (std::size_t slot : drafts[i].slots) transcript_.messages[slot].role = "draft";
  }
  event(info.round, "best_of",
        fmt::format(R"({{"agent":"{}","turn":"{}","scores":[{}],"kept":{}}})", agent.name, info.turn, scores, kept));
  remember(agent.name, drafts[kept].turn.answer);
  co_return std::move(drafts[kept].turn);
}

Async<StructuredReply> Debate::ask_structured(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info,
                                              StructuredAsk ask) {
  // With an answer to read, a reply's record is complete only once it is known to be the last.
  const bool report_replies = !ask.answer;
  Call reply = co_await call(agent, messages, info, info.turn, false, std::nullopt, nullptr, report_replies);
  const std::size_t first_call = reply.slot;
  std::string problem = ask.check(reply.response.text);
  for (int reask = 0; reask < ask.reasks && !problem.empty(); ++reask) {
    if (!report_replies) report(DebateProgress::Kind::kCall, reply.slot);  // re-asked: not the last
    messages.push_back(ChatMessage{"assistant", reply.response.text});
    messages.push_back(ChatMessage{"user", "Your reply could not be used: " + problem + ". " + ask.format_reminder});
    reply = co_await call(agent, messages, info, info.turn + "_reask", false, first_call, nullptr, report_replies);
    problem = ask.check(reply.response.text);
  }
  Answer answer;
  if (ask.answer) {
    answer = ask.answer(reply.response.text);
    MessageRecord& record = transcript_.messages[reply.slot];
    record.answer = answer.value;
    record.confidence = answer.confidence;
    remember(agent.name, answer);
    report(DebateProgress::Kind::kCall, reply.slot);
  }
  co_return StructuredReply{std::move(reply.response.text), std::move(problem), std::move(answer)};
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
  if (halt && halt->status == DebateStatus::kBudget) {
    // A debate stopped by its budget (or deadline) answers with the protocol's own answer at
    // the halt, else with the vote over what it has so far.
    if (halt->answer) {
      final_answer = halt->answer;
    } else {
      std::vector<Answer> latest;
      for (const auto& [name, answer] : debate.latest_answers()) latest.push_back(answer);
      final_answer = majority_vote(latest, debate.task().answer_type).winner;
    }
    debate.event(0, "budget", halt->reason);
  }
  Transcript transcript = std::move(debate.transcript());
  if (halt) {
    transcript.status = halt->status;
    transcript.status_reason = halt->reason;
  }
  transcript.final_answer = final_answer;
  transcript.correct = final_answer && answers_match(debate.task(), *final_answer);
  transcript.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  co_return transcript;
}

}  // namespace parley
