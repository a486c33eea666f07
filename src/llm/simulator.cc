// The simulator client (parley/simulator.h): a reply is computed from the request alone, then
// delivered through the event loop so that a caller is never resumed inline.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/hash.h"
#include "llm/simulator_embedding.h"
#include "llm/simulator_answers.h"
#include "llm/simulator_argument.h"
#include "llm/simulator_judge.h"
#include "llm/simulator_maci.h"
#include "llm/simulator_model.h"
#include "llm/simulator_params.h"
#include "llm/simulator_reply.h"
#include "llm/simulator_text.h"
#include "parley/simulator.h"

namespace parley {
namespace sim {
namespace {

// Token log-probability statistics consistent with the stated confidence (eqs. 10–11).
LogprobStats logprob_stats(const SimulatorParams& params, const Annotations& note, double temperature,
                           double confidence, std::int64_t tokens) {
  Rng rng(HashBuilder().add(stream_seed(params, note, temperature, "logprobs")).add(note.turn).value());
  const double c = std::clamp(confidence, 0.01, 0.99);
  const double mean = -(params.logprob_mean_base + params.logprob_mean_slope * (1.0 - c));
  const double lowest = -params.logprob_min_offset + params.logprob_min_scale * std::log(c) +
                        params.logprob_noise_sd * rng.normal();
  LogprobStats stats;
  stats.min_token_logprob = std::min(lowest, mean);
  stats.perplexity = std::exp(-mean);
  stats.tokens = static_cast<int>(tokens);
  return stats;
}

}  // namespace

namespace {

// `latents` are task_latents of the request's task; null exactly when it has none.
ChatResponse reply(const SimulatorParams& params, const SimulatorProfile& profile, const ChatRequest& request,
                   const TaskLatents* latents, double lean = 0.0, const RevisionPolicies* policies = nullptr) {
  const Annotations& note = request.note;
  const double temperature = std::max(0.0, request.sampling.temperature);
  ChatResponse response;
  response.finish_reason = "stop";
  double confidence = 0.1;
  if (!note.task) {
    response.text = write_generic_reply();
  } else if (note.turn.starts_with("summary")) {
    // A group's summary (or its re-ask) reports the answers it was shown; it decides nothing.
    Rng text_rng(HashBuilder().add(stream_seed(params, note, temperature, "text")).add(note.turn).value());
    response.text = write_summary(note, text_rng);
    confidence = 0.5;
  } else if (is_self_critique_turn(note)) {
    // iMAD's self-critique; a re-ask is never malformed again.
    const TaskLatents& task = *latents;
    const Critique critique = decide_self_critique(params, profile, note, temperature, task);
    Rng format_rng(HashBuilder().add(stream_seed(params, note, temperature, "format")).add(note.turn).value());
    const bool malformed = note.turn == "self_critique" && format_rng.uniform() < params.format_error_rate;
    Rng text_rng(HashBuilder().add(stream_seed(params, note, temperature, "text")).add(note.turn).value());
    response.text = write_self_critique(params, profile, note, task, critique, malformed, text_rng);
    confidence = critique.final.confidence;
  } else if (is_maci_turn(note)) {
    // MACI's debaters; a re-ask ("<kind>_reask") is never malformed again.
    Rng format_rng(HashBuilder().add(stream_seed(params, note, temperature, "format")).add(note.turn).value());
    const bool malformed = !note.turn.ends_with("_reask") && format_rng.uniform() < params.format_error_rate;
    const MaciReply maci = write_maci_reply(params, profile, request, temperature, *latents, malformed, lean);
    response.text = maci.text;
    confidence = maci.confidence;
  } else if (is_judge_turn(note.turn)) {
    // A judge's verdict; a re-ask ("<kind>_reask") is never malformed again.
    const TaskLatents& task = *latents;
    Rng format_rng(HashBuilder().add(stream_seed(params, note, temperature, "format")).add(note.turn).value());
    const bool format_error = judge_kind(note.turn) == note.turn && format_rng.uniform() < params.format_error_rate;
    // Keyed on the judge kind, so that a re-ask states the verdict the malformed reply meant.
    Rng judge_rng(HashBuilder().add(stream_seed(params, note, temperature, "judge")).add(judge_kind(note.turn)).value());
    response.text = judge_kind(note.turn) == "judge_crit"
                        ? write_crit_reply(request.model, note, task, format_error)
                        : write_judge_reply(params, profile, note, task, format_error, judge_rng);
    confidence = 0.8;
  } else {
    const TaskLatents& task = *latents;
    const PolicyWeights* weights = policies != nullptr ? policies->find(note.agent) : nullptr;
    Decision decision = decide(params, profile, note, temperature, task, weights);
    if (lean != 0.0) {
      Rng lean_rng(HashBuilder().add(stream_seed(params, note, temperature, "lean")).add(modelled_turn(note)).value());
      apply_lean(decision, *note.task, lean, lean_rng);  // eq. (25) on an ordered scale
    }
    confidence = decision.confidence;
    // The format-error roll is keyed by the turn kind itself, so a re-ask never inherits it.
    Rng format_rng(HashBuilder().add(stream_seed(params, note, temperature, "format")).add(note.turn).value());
    ReplyKind kind = ReplyKind::kNormal;
    if (note.turn == "reask") {
      kind = ReplyKind::kReask;
    } else if (format_rng.uniform() < params.format_error_rate) {
      kind = ReplyKind::kFormatError;
    }
    Rng text_rng(HashBuilder().add(stream_seed(params, note, temperature, "text")).add(note.turn).value());
    response.text = write_reply(params, profile, note, task, decision, kind, text_rng);
    if (kind == ReplyKind::kFormatError && note.task->answer_type == AnswerType::kText) {
      // Any last line of prose is a free-text answer, so for text tasks the format error is a
      // reply whose content is empty: the reasoning ran to its end without an answer.
      response.reasoning = std::move(response.text);
      response.text.clear();
    }
  }
  // A reply longer than max_tokens is cut there, as a server would (reasoning comes first).
  const auto cap = static_cast<std::int64_t>(request.sampling.max_tokens);
  const auto cut = [](std::string& s, std::int64_t tokens) {
    if (estimate_tokens(s) <= tokens) return false;
    s.resize(static_cast<std::size_t>(tokens) * 4);
    return true;
  };
  if (cap > 0) {
    const bool cut_reasoning = cut(response.reasoning, cap);
    const bool cut_text = cut(response.text, cap - estimate_tokens(response.reasoning));
    if (cut_reasoning || cut_text) response.finish_reason = "length";
  }
  // The simulator's counts are the definition of its token usage, hence not "estimated".
  response.usage.prompt_tokens = estimate_prompt_tokens(request.messages);
  response.usage.completion_tokens = estimate_tokens(response.text) + estimate_tokens(response.reasoning);
  if (request.sampling.logprobs) {
    response.logprobs = logprob_stats(params, note, temperature, confidence, response.usage.completion_tokens);
  }
  return response;
}

}  // namespace

ChatResponse simulate_reply(const SimulatorParams& params, const SimulatorProfile& profile,
                            const ChatRequest& request) {
  if (!request.note.task) return reply(params, profile, request, nullptr);
  const TaskLatents latents = task_latents(params, *request.note.task);
  return reply(params, profile, request, &latents);
}

ChatResponse simulate_reply(const SimulatorParams& params, const SimulatorProfile& profile,
                            const ChatRequest& request, const TaskLatents& task_latents, double lean,
                            const RevisionPolicies* policies) {
  return reply(params, profile, request, &task_latents, lean, policies);
}

}  // namespace sim

namespace {

class SimulatorClient final : public LlmClient {
 public:
  SimulatorClient(EventLoop& loop, std::shared_ptr<const SimulatorParams> params, const SimulatorProfile& profile,
                  double delay_ms, double lean, std::optional<sim::RevisionPolicies> policies)
      : loop_(loop),
        params_(std::move(params)),
        profile_(profile),
        delay_ms_(delay_ms),
        lean_(lean),
        policies_(std::move(policies)) {}

  // The reply is written when the call is made (it is a function of the request alone), and
  // the request let go: a call in flight holds only its reply, in a small frame (deliver).
  Async<ChatResult> chat(ChatRequest request) override {
    give_latent_answer(request.note);
    ChatResponse response = stopped(request.cancel) ? ChatResponse{} : simulate(request);
    return deliver(std::move(response), request.cancel);
  }

  // The replies chat() gives each sample index (a simulated server bills every sample its
  // prompt, so results never depend on whether a run batches), delivered together.
  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override {
    give_latent_answer(request.note);
    std::vector<ChatResponse> responses;
    const int first = request.note.sample;
    for (int i = 0; i < n && !stopped(request.cancel); ++i) {
      request.note.sample = first + i;
      responses.push_back(simulate(request));
    }
    return deliver_all(std::move(responses), n, request.cancel);
  }

  Async<EmbeddingResult> embed(EmbeddingRequest request) override {
    EmbeddingResponse response;
    for (const auto& text : request.inputs) {
      if (stopped(request.cancel)) break;
      response.vectors.push_back(embedding_of(request.note, text));
      response.usage.prompt_tokens += estimate_tokens(text);
    }
    const bool full = co_await pause(request.cancel);
    if (loop_.cancelled()) co_return cancelled();
    if (!full) co_return cancelled(*request.cancel);
    response.latency_ms = delay_ms_;
    co_return EmbeddingResult(std::move(response));
  }

  bool simulated() const override { return true; }

 private:
  // MACI's question and evidence embeddings carry the task's topic (simulator_embedding.h).
  std::vector<double> embedding_of(const Annotations& note, const std::string& text) {
    if (note.task && note.turn == "embedding_query") return sim::simulate_evidence_embedding(*note.task, 1.0, text);
    if (note.task && note.turn == "embedding_evidence") {
      const double relevance = sim::evidence_relevance(*note.task, latents_of(*note.task), text);
      return sim::simulate_evidence_embedding(*note.task, relevance, text);
    }
    return sim::simulate_embedding(note.task.get(), text);
  }

  // A task without a reference answer (a served request) is simulated as if it had its latent
  // one (sim::latent_answer), so that agents can agree on, and argue about, something.
  static void give_latent_answer(Annotations& note) {
    if (!note.task) return;
    if (auto answer = sim::latent_answer(*note.task)) {
      auto task = std::make_shared<Task>(*note.task);
      task->answer = std::move(*answer);
      note.task = std::move(task);
    }
  }

  ChatResponse simulate(const ChatRequest& request) {
    if (!request.note.task) return sim::simulate_reply(*params_, profile_, request);
    return sim::simulate_reply(*params_, profile_, request, latents_of(*request.note.task), lean_,
                               policies_ ? &*policies_ : nullptr);
  }

  // A task's latents are a function of its content (and the parameters), so they are drawn once
  // per task this client sees, not on every call. They are keyed by a hash of the whole task,
  // so a task object reused or changed in place is drawn again; the table is emptied when it
  // reaches kMaxKnownTasks, which bounds a long-lived client's memory.
  const sim::TaskLatents& latents_of(const Task& task) {
    static constexpr std::size_t kMaxKnownTasks = 1 << 16;
    HashBuilder key;
    key.add(task.id).add(task.question).add(task.answer).add(static_cast<int>(task.answer_type));
    key.add(std::uint64_t{task.options.size()});
    for (const auto& option : task.options) key.add(option);
    key.add(task.difficulty.has_value() ? 1 : 0).add(task.difficulty.value_or(0.0));
    key.add(task.tolerance.has_value() ? 1 : 0).add(task.tolerance.value_or(0.0));
    if (known_latents_.size() >= kMaxKnownTasks) known_latents_.clear();
    auto [entry, fresh] = known_latents_.try_emplace(key.value());
    if (fresh) entry->second = sim::task_latents(*params_, task);
    return entry->second;
  }
  std::unordered_map<std::uint64_t, sim::TaskLatents> known_latents_;

  Async<ChatResult> deliver(ChatResponse response, CancelSignal* cancel) {
    const bool full = co_await pause(cancel);
    if (loop_.cancelled()) co_return cancelled();
    if (!full) co_return cancelled(*cancel);
    response.latency_ms = delay_ms_;
    co_return ChatResult(std::move(response));
  }

  // `n` results: `responses` (none when the signal had fired before the call), or errors.
  Async<std::vector<ChatResult>> deliver_all(std::vector<ChatResponse> responses, int n, CancelSignal* cancel) {
    const bool full = co_await pause(cancel);
    std::vector<ChatResult> results;
    for (int i = 0; i < n; ++i) {
      if (loop_.cancelled()) {
        results.emplace_back(cancelled());
      } else if (!full) {
        results.emplace_back(cancelled(*cancel));
      } else {
        ChatResponse& response = responses[static_cast<std::size_t>(i)];
        response.latency_ms = delay_ms_;
        results.emplace_back(std::move(response));
      }
    }
    co_return results;
  }

  // A call in flight when the loop is cancelled ends as a server's call would.
  static CallError cancelled() { return CallError{CallErrorKind::kCancelled, 0, "the run was stopped"}; }
  // A call whose request's signal fired (ChatRequest::cancel).
  static CallError cancelled(const CancelSignal& cancel) {
    return CallError{CallErrorKind::kCancelled, 0, "the call was stopped: " + cancel.reason()};
  }
  static bool stopped(const CancelSignal* cancel) { return cancel != nullptr && cancel->fired(); }

  // Replies complete after the configured delay, or on a later turn of the loop: never inline.
  // A cancelled loop ends the delay at once; so does the request's signal, and then the result
  // is false (a signal fired before the call: one turn, false).
  Async<bool> pause(CancelSignal* cancel) {
    if (delay_ms_ <= 0.0) {
      co_await loop_.yield();
      co_return !stopped(cancel);
    }
    const auto delay =
        std::chrono::duration_cast<EventLoop::Clock::duration>(std::chrono::duration<double, std::milli>(delay_ms_));
    if (cancel == nullptr) {
      co_await loop_.sleep_for(delay);  // no signal to watch: no Wake to allocate
      co_return true;
    }
    co_return co_await loop_.sleep_for(delay, cancel);
  }

  EventLoop& loop_;
  std::shared_ptr<const SimulatorParams> params_;  // keeps profile_'s owner alive
  const SimulatorProfile& profile_;
  double delay_ms_;
  double lean_;  // MACI beliefs on ordered scales (simulator_maci.h)
  std::optional<sim::RevisionPolicies> policies_;  // trained revision policies (simulator_policy.h)
};

}  // namespace

Result<std::unique_ptr<LlmClient>> make_simulator_client(EventLoop& loop,
                                                         std::shared_ptr<const SimulatorParams> params,
                                                         std::string profile, double delay_ms, double lean,
                                                         const std::filesystem::path& policy_file,
                                                         const std::vector<std::string>& served_agents) {
  if (!params) return Error{"simulator: no parameters given"};
  if (profile.empty()) profile = "default";
  const auto found = params->profiles.find(profile);
  if (found == params->profiles.end()) {
    std::string known;
    for (const auto& [name, unused] : params->profiles) known += (known.empty() ? "" : ", ") + name;
    return Error{fmt::format("unknown simulator profile \"{}\" (known profiles: {})", profile, known)};
  }
  if (!(delay_ms >= 0.0)) return Error{fmt::format("simulator delay_ms must be >= 0, got {}", delay_ms)};
  if (!(lean >= -1.0 && lean <= 1.0)) return Error{fmt::format("simulator lean must be in [-1, 1], got {}", lean)};
  std::optional<sim::RevisionPolicies> policies;
  if (!policy_file.empty()) {
    auto loaded = sim::load_revision_policies(policy_file.string());
    if (!loaded) return loaded.error();
    for (const auto& [agent, weights] : loaded->all()) {
      // An instance a1#2 of a served agent a1 may have weights of its own.
      const std::string_view agent_of_instance = std::string_view(agent).substr(0, agent.find('#'));
      if (std::find(served_agents.begin(), served_agents.end(), agent_of_instance) == served_agents.end())
        return Error{fmt::format("{}: the policy is for agent '{}', which this model does not serve (its agents: {})",
                                 policy_file.string(), agent,
                                 served_agents.empty() ? std::string("none") : fmt::format("{}", fmt::join(served_agents, ", ")))};
    }
    policies = std::move(*loaded);
  }
  return std::unique_ptr<LlmClient>(
      std::make_unique<SimulatorClient>(loop, params, found->second, delay_ms, lean, std::move(policies)));
}

}  // namespace parley
