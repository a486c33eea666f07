// A debate's own stop (DebateSetup::cancel, DebateSetup::deadline): the calls in flight end as
// cancelled, no call is issued after it, and the debate ends cancelled, or as on a spent budget
// for a deadline; the loop is never held for the rest of a deadline. Every request carries the
// debate's signal. On scripted replies that wait real time unless their request's signal fires
// (as a transport aborting its transfer), and on the simulator.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "llm/simulator_params.h"
#include "parley/protocol.h"
#include "parley/simulator.h"
#include "protocol_harness.h"
#include "protocols/simulated_runs.h"

namespace parley {
namespace {

using Clock = EventLoop::Clock;
using testing::Harness;
using testing::reply;
using namespace std::chrono_literals;

// Replies by `script` after `hold` of real time (zero: a turn of the loop), or — unless it
// ignores signals — a kCancelled error as soon as the request's signal fires; a cancelled loop
// ends every call as the simulator's and the HTTP client's do.
class HeldClient final : public LlmClient {
 public:
  using Script = std::function<std::string(const ChatRequest&)>;
  using Hold = std::function<Clock::duration(const ChatRequest&)>;

  HeldClient(EventLoop& loop, Script script, Hold hold) : loop_(loop), script_(std::move(script)), hold_(std::move(hold)) {}

  Async<ChatResult> chat(ChatRequest request) override {
    requests.push_back(request);
    const Clock::duration hold = hold_(request);
    bool full = true;
    if (ignores_signals) {
      co_await loop_.sleep_for(hold);
    } else {
      full = co_await loop_.sleep_for(hold, request.cancel);
    }
    if (loop_.cancelled()) co_return CallError{CallErrorKind::kCancelled, 0, "the run was stopped", 1};
    if (!full) co_return CallError{CallErrorKind::kCancelled, 0, "stopped: " + request.cancel->reason(), 1};
    ChatResponse response;
    response.text = script_(request);
    response.usage.prompt_tokens = estimate_prompt_tokens(request.messages);
    response.usage.completion_tokens = estimate_tokens(response.text);
    co_return response;
  }
  bool simulated() const override { return true; }

  std::vector<ChatRequest> requests;
  bool ignores_signals = false;

 private:
  EventLoop& loop_;
  Script script_;
  Hold hold_;
};

// Du et al.'s debate, 3 agents, 2 rounds: a1 answers A, a2 and a3 B in round 0; every later
// turn answers B.
std::string debate_script(const ChatRequest& r) {
  return reply(r.note.round == 0 && r.note.agent == "a1" ? "A" : "B");
}

// Round 0 answers on the next turn; later rounds wait an hour.
Clock::duration round_zero_only(const ChatRequest& r) { return r.note.round == 0 ? Clock::duration::zero() : 1h; }

struct Outcome {
  Transcript transcript;
  Clock::duration elapsed{};  // of loop.run()
  std::vector<DebateProgress> progress;
  // The setup's cancel signal's subscribers once run_debate returned (before any later turn).
  std::optional<std::size_t> subscribers_after;
};

// The harness's protocol `name` (its defaults), run on `client` with `stop` applied to the setup.
Outcome run_on(Harness& h, LlmClient& client, const std::string& name, const std::function<void(DebateSetup&)>& stop,
               const std::function<Async<void>()>& beside = {}) {
  const ProtocolInfo* info = find_protocol(name);
  if (info == nullptr) throw std::invalid_argument("no protocol " + name);
  for (const auto& spec : info->params) h.params.set(spec.name, spec.default_value);
  const std::unique_ptr<Protocol> protocol = info->make(h.params);
  DebateSetup setup = h.setup(name);
  for (Agent& agent : setup.agent_pool) agent.client = &client;
  Outcome run;
  setup.on_progress = [&run](const Transcript&, const DebateProgress& p) { run.progress.push_back(p); };
  stop(setup);
  CancelSignal* const cancel = setup.cancel;
  auto body = [&]() -> Async<void> {
    run.transcript = co_await run_debate(*protocol, std::move(setup));
    if (cancel != nullptr) run.subscribers_after = cancel->subscribers();
  };
  h.loop.spawn(body());
  if (beside) h.loop.spawn(beside());
  const auto started = Clock::now();
  h.loop.run();
  run.elapsed = Clock::now() - started;
  return run;
}

// Fires `signal` once `client` has been sent `count` requests (or after 5 s). It polls on a
// timer: yielding would keep the loop from ever reaching the due timers of the replies.
Async<void> fire_after_requests(EventLoop& loop, const HeldClient& client, std::size_t count, CancelSignal& signal,
                                std::string reason) {  // a named string: never a literal (g++ 12)
  for (int tick = 0; tick < 5000 && client.requests.size() < count; ++tick) co_await loop.sleep_for(1ms);
  signal.fire(std::move(reason));
}

std::vector<std::string> answers_of(const Transcript& t) {
  std::vector<std::string> out;
  for (const auto& m : t.messages) out.push_back(m.answer.value_or(m.error ? "error" : "-"));
  return out;
}

bool has_event(const Transcript& t, const std::string& kind) {
  for (const auto& e : t.events)
    if (e.kind == kind) return true;
  return false;
}

TEST(DebateStop, CancelEndsTheCallsInFlightAndIssuesNoOther) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, round_zero_only);
  CancelSignal cancel;
  const std::string reason = "client disconnected";
  const auto canceller = [&]() { return fire_after_requests(h.loop, client, 6, cancel, reason); };
  const Outcome run = run_on(h, client, "debate", [&](DebateSetup& s) { s.cancel = &cancel; }, canceller);
  const Transcript& t = run.transcript;
  EXPECT_LT(run.elapsed, 5s);  // not the hour the round-1 replies would take
  EXPECT_EQ(t.status, DebateStatus::kCancelled);
  EXPECT_EQ(t.status_reason, "client disconnected");
  EXPECT_FALSE(t.final_answer.has_value());
  EXPECT_FALSE(t.correct);
  EXPECT_FALSE(has_event(t, "budget"));
  ASSERT_EQ(client.requests.size(), 6u);  // round 1 issued, round 2 never
  ASSERT_EQ(t.messages.size(), 6u);
  EXPECT_EQ(answers_of(t), (std::vector<std::string>{"A", "B", "B", "error", "error", "error"}));
  for (std::size_t i = 3; i < 6; ++i) {
    EXPECT_EQ(t.messages[i].round, 1);
    EXPECT_EQ(t.messages[i].error, "cancelled: stopped: client disconnected") << i;
  }
  // Every request carries the debate's own signal, fired with the cancel's reason.
  const CancelSignal* signal = client.requests.front().cancel;
  ASSERT_NE(signal, nullptr);
  EXPECT_NE(signal, &cancel);
  for (const auto& r : client.requests) EXPECT_EQ(r.cancel, signal);
  EXPECT_EQ(cancel.subscribers(), 0u);  // the debate let go of the caller's signal
  EXPECT_EQ(h.loop.spawned_alive(), 0u);
}

TEST(DebateStop, ACancelFiredBeforeTheDebateIssuesNoCall) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, round_zero_only);
  CancelSignal cancel;
  cancel.fire("gone before it started");
  const Outcome run = run_on(h, client, "debate", [&](DebateSetup& s) { s.cancel = &cancel; });
  EXPECT_TRUE(client.requests.empty());
  EXPECT_TRUE(run.transcript.messages.empty());
  EXPECT_TRUE(run.transcript.events.empty());
  EXPECT_TRUE(run.progress.empty());
  EXPECT_EQ(run.transcript.status, DebateStatus::kCancelled);
  EXPECT_EQ(run.transcript.status_reason, "gone before it started");
  EXPECT_FALSE(run.transcript.final_answer.has_value());
}

// A backend that does not honour the signal: its replies are recorded as usual, but the debate
// still issues nothing after the cancel.
TEST(DebateStop, ACancelIssuesNoFurtherCallWhenTheBackendIgnoresIt) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script,
                    [](const ChatRequest& r) -> Clock::duration { return r.note.round == 0 ? 0ms : 20ms; });
  client.ignores_signals = true;
  CancelSignal cancel;
  const std::string reason = "client disconnected";
  const auto canceller = [&]() { return fire_after_requests(h.loop, client, 6, cancel, reason); };
  const Outcome run = run_on(h, client, "debate", [&](DebateSetup& s) { s.cancel = &cancel; }, canceller);
  EXPECT_EQ(client.requests.size(), 6u);
  EXPECT_EQ(answers_of(run.transcript), (std::vector<std::string>{"A", "B", "B", "B", "B", "B"}));
  EXPECT_EQ(run.transcript.status, DebateStatus::kCancelled);
  EXPECT_EQ(run.transcript.status_reason, "client disconnected");
}

// The simulator at an hour's delay: a cancel while round 0 is in flight ends its three calls.
TEST(DebateStop, CancelEndsTheSimulatorsDelayedCalls) {
  Harness h(debate_script, 3);
  auto made = make_simulator_client(h.loop, default_simulator_params(), "default", 3.6e6);
  ASSERT_TRUE(made.ok());
  CancelSignal cancel;
  const auto canceller = [&]() -> Async<void> {
    co_await h.loop.sleep_for(20ms);
    cancel.fire("client disconnected");
  };
  const Outcome run = run_on(h, **made, "debate", [&](DebateSetup& s) { s.cancel = &cancel; }, canceller);
  const Transcript& t = run.transcript;
  EXPECT_LT(run.elapsed, 5s);
  EXPECT_EQ(t.status, DebateStatus::kCancelled);
  EXPECT_EQ(t.status_reason, "client disconnected");
  ASSERT_EQ(t.messages.size(), 3u);
  for (const auto& m : t.messages) EXPECT_EQ(m.error, "cancelled: the call was stopped: client disconnected");
}

TEST(DebateStop, ADeadlineEndsTheDebateAsASpentBudgetWithoutWaitingForTheCalls) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, round_zero_only);
  const Outcome run = run_on(h, client, "debate", [](DebateSetup& s) { s.deadline = Clock::now() + 300ms; });
  const Transcript& t = run.transcript;
  EXPECT_GE(run.elapsed, 290ms);
  EXPECT_LT(run.elapsed, 5s);
  EXPECT_EQ(t.status, DebateStatus::kBudget);
  EXPECT_EQ(t.status_reason, "deadline of 0.3 s reached");  // the time the debate had, from its start
  EXPECT_EQ(t.final_answer, "B");  // the vote over the latest answers: A, B, B
  EXPECT_TRUE(t.correct);
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].kind, "budget");
  EXPECT_EQ(t.events[0].detail, t.status_reason);
  ASSERT_EQ(client.requests.size(), 6u);
  EXPECT_EQ(answers_of(t), (std::vector<std::string>{"A", "B", "B", "error", "error", "error"}));
  EXPECT_EQ(t.messages[3].error, "cancelled: stopped: " + t.status_reason);
  const CancelSignal* signal = client.requests.front().cancel;
  ASSERT_NE(signal, nullptr);
  for (const auto& r : client.requests) EXPECT_EQ(r.cancel, signal);
  // The cancelled calls are reported with their errors, then the budget event.
  using Kind = DebateProgress::Kind;
  std::vector<std::pair<Kind, std::size_t>> progress;
  for (const auto& p : run.progress) progress.emplace_back(p.kind, p.index);
  EXPECT_EQ(progress, (std::vector<std::pair<Kind, std::size_t>>{{Kind::kCall, 0}, {Kind::kCall, 1}, {Kind::kCall, 2},
                                                                 {Kind::kCall, 3}, {Kind::kCall, 4}, {Kind::kCall, 5},
                                                                 {Kind::kEvent, 0}}));
}

TEST(DebateStop, ADebateEndingBeforeItsDeadlineDoesNotWaitForIt) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, [](const ChatRequest&) { return Clock::duration::zero(); });
  CancelSignal cancel;
  const Outcome run = run_on(h, client, "debate", [&](DebateSetup& s) {
    s.cancel = &cancel;
    s.deadline = Clock::now() + 1h;
  });
  // The debate let go of the caller's signal as it ended, not when the watcher went.
  EXPECT_EQ(run.subscribers_after, 0u);
  EXPECT_LT(run.elapsed, 5s);
  EXPECT_EQ(run.transcript.status, DebateStatus::kCompleted);
  EXPECT_EQ(run.transcript.status_reason, "");
  EXPECT_EQ(run.transcript.messages.size(), 9u);
  EXPECT_EQ(run.transcript.final_answer, "B");
  EXPECT_NE(client.requests.front().cancel, nullptr);  // gone with the debate: compared, never read
  EXPECT_EQ(h.loop.spawned_alive(), 0u);
}

TEST(DebateStop, APassedDeadlineIssuesNoCall) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, round_zero_only);
  const Outcome run = run_on(h, client, "debate", [](DebateSetup& s) { s.deadline = Clock::now() - 1s; });
  EXPECT_TRUE(client.requests.empty());
  EXPECT_LT(run.elapsed, 5s);
  EXPECT_EQ(run.transcript.status, DebateStatus::kBudget);
  EXPECT_EQ(run.transcript.status_reason, "deadline passed before the debate started");
  EXPECT_FALSE(run.transcript.final_answer.has_value());  // nothing to vote over
  ASSERT_EQ(run.transcript.events.size(), 1u);
  EXPECT_EQ(run.transcript.events[0].kind, "budget");
}

// A protocol with an answer of its own at a budget halt (as MACI's mixture) gives it at a deadline.
class OwnAnswerAtHalt final : public Protocol {
 public:
  Async<std::optional<std::string>> run(Debate& debate) const override {
    const std::vector<Agent> agents = debate.agents(1);
    std::optional<DebateHalt> halted;
    try {
      std::vector<ChatMessage> messages{ChatMessage{"user", "Which planet is largest?"}};
      TurnInfo info;
      (void)co_await debate.ask(agents[0], std::move(messages), std::move(info));
    } catch (DebateHalt& halt) {
      if (halt.status != DebateStatus::kBudget) throw;
      halted = std::move(halt);
    }
    if (halted) {
      halted->answer = "D";
      throw *halted;
    }
    co_return std::string("A");
  }
};

TEST(DebateStop, ADeadlineAnswersWithTheProtocolsOwnAnswerAtTheHalt) {
  Harness h(debate_script, 1);
  HeldClient client(h.loop, debate_script, [](const ChatRequest&) -> Clock::duration { return 1h; });
  h.pool[0].client = &client;
  const OwnAnswerAtHalt protocol;
  DebateSetup setup = h.setup("own");
  setup.deadline = Clock::now() + 50ms;
  Transcript t;
  auto body = [&]() -> Async<void> { t = co_await run_debate(protocol, std::move(setup)); };
  h.loop.spawn(body());
  const auto started = Clock::now();
  h.loop.run();
  EXPECT_LT(Clock::now() - started, 5s);
  EXPECT_EQ(t.status, DebateStatus::kBudget);
  EXPECT_EQ(t.final_answer, "D");
  EXPECT_FALSE(t.correct);
  ASSERT_EQ(t.messages.size(), 1u);
  EXPECT_TRUE(t.messages[0].error.has_value());
}

// Stopping the whole run (SIGINT) is not the deadline: the watcher's timer fires with the others,
// and the debate ends cancelled, as without a deadline.
TEST(DebateStop, StoppingTheLoopIsNotTheDeadline) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, [](const ChatRequest&) -> Clock::duration { return 1h; });
  const auto stopper = [&]() -> Async<void> {
    co_await h.loop.sleep_for(20ms);
    h.loop.cancel();
  };
  const Outcome run = run_on(h, client, "debate", [](DebateSetup& s) { s.deadline = Clock::now() + 1h; }, stopper);
  EXPECT_LT(run.elapsed, 5s);
  EXPECT_EQ(run.transcript.status, DebateStatus::kCancelled);
  EXPECT_EQ(run.transcript.status_reason,
            "a1's answer call in round 0 failed after 1 attempt(s): cancelled: the run was stopped");
  EXPECT_FALSE(has_event(run.transcript, "budget"));
}

// A cancel before the deadline decides the status; the deadline's watcher then ends with the debate.
TEST(DebateStop, ACancelBeforeTheDeadlineEndsTheDebateCancelled) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, round_zero_only);
  CancelSignal cancel;
  const std::string reason = "client disconnected";
  const auto canceller = [&]() { return fire_after_requests(h.loop, client, 6, cancel, reason); };
  const Outcome run = run_on(
      h, client, "debate",
      [&](DebateSetup& s) {
        s.cancel = &cancel;
        s.deadline = Clock::now() + 1h;
      },
      canceller);
  EXPECT_LT(run.elapsed, 5s);
  EXPECT_EQ(run.transcript.status, DebateStatus::kCancelled);
  EXPECT_EQ(run.transcript.status_reason, "client disconnected");
  EXPECT_EQ(client.requests.size(), 6u);
}

// Every protocol on the simulator (whose replies ignore signals), cancelled from the progress
// hook as the first, a middle and the last call is reported: no call — chat, samples, judge,
// embedding — is issued after it; the debate ends cancelled with the signal's reason, unless
// every call it needed had been issued already.
TEST(DebateStop, NoProtocolIssuesACallAfterTheCancel) {
  SimulatorParams sim = *default_simulator_params();
  sim.format_error_rate = 0.3;
  int cut = 0, uncut = 0;
  for (const ProtocolInfo& info : protocol_registry()) {
    const ProtocolParams params = simulated::default_params(info, simulated::bundled_trigger_model(PARLEY_SOURCE_DIR));
    const auto protocol = info.make(params);
    simulated::RunSetting setting;
    setting.best_of = 2;
    setting.best_of_jitter = 0.0;
    std::size_t calls = 0;
    {
      EventLoop loop;
      simulated::RecordingSimulator client(loop, sim, simulated::Completion::kScrambled, 5, true);
      calls = simulated::run_on(client, loop, info, params, *protocol, simulated::generated_task(2), 9, setting)
                  .messages.size();
    }
    ASSERT_GT(calls, 0u) << info.name;
    for (const std::size_t at : {std::size_t{0}, calls / 2, calls - 1}) {
      const std::string where = info.name + ", cancelled at call " + std::to_string(at) + " of " + std::to_string(calls);
      EventLoop loop;
      simulated::RecordingSimulator client(loop, sim, simulated::Completion::kScrambled, 5, true);
      CancelSignal cancel;
      std::optional<std::size_t> issued_at_cancel;
      setting.cancel = &cancel;
      setting.on_progress = [&](const Transcript&, const DebateProgress& p) {
        if (p.kind != DebateProgress::Kind::kCall || p.index != at) return;
        issued_at_cancel = client.keys.size();
        cancel.fire("client disconnected");
      };
      const Transcript t =
          simulated::run_on(client, loop, info, params, *protocol, simulated::generated_task(2), 9, setting);
      ASSERT_TRUE(issued_at_cancel.has_value()) << where;
      EXPECT_EQ(client.keys.size(), *issued_at_cancel) << where;
      EXPECT_EQ(t.messages.size(), *issued_at_cancel) << where;
      if (*issued_at_cancel < calls) {
        ++cut;
        EXPECT_EQ(t.status, DebateStatus::kCancelled) << where;
        EXPECT_EQ(t.status_reason, "client disconnected") << where;
        EXPECT_FALSE(t.final_answer.has_value()) << where;
      } else {
        ++uncut;
        EXPECT_EQ(t.status, DebateStatus::kCompleted) << where;
      }
      for (const auto& m : t.messages) EXPECT_FALSE(m.error.has_value()) << where;  // this backend ignores signals
    }
  }
  EXPECT_EQ(cut + uncut, 3 * static_cast<int>(protocol_registry().size()));
  EXPECT_GE(cut, 25);  // most cancels did cut a debate short (30 of 48 when written)
  EXPECT_GE(uncut, 5);
}

// A deadline passing after a cancel, while the calls in flight still run (a backend that
// ignores signals), does not turn the cancelled debate into a budget stop.
TEST(DebateStop, ADeadlinePassingAfterTheCancelLeavesItCancelled) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script,
                    [](const ChatRequest& r) -> Clock::duration { return r.note.round == 0 ? 0ms : 200ms; });
  client.ignores_signals = true;
  CancelSignal cancel;
  const std::string reason = "client disconnected";
  const auto canceller = [&]() { return fire_after_requests(h.loop, client, 6, cancel, reason); };
  const Outcome run = run_on(
      h, client, "debate",
      [&](DebateSetup& s) {
        s.cancel = &cancel;
        s.deadline = Clock::now() + 100ms;
      },
      canceller);
  EXPECT_GE(run.elapsed, 190ms);  // the round-1 replies were awaited, past the deadline
  EXPECT_EQ(client.requests.size(), 6u);
  EXPECT_EQ(run.transcript.status, DebateStatus::kCancelled);
  EXPECT_EQ(run.transcript.status_reason, "client disconnected");
  EXPECT_FALSE(has_event(run.transcript, "budget"));
}

std::string s2_script(const ChatRequest& r) { return reply(r.note.agent == "a1" || r.note.agent == "a2" ? "A" : "B"); }

std::variant<std::vector<double>, CallError> embedding_of(const std::string& text) {
  return std::vector<double>{static_cast<double>(text.size()), 1.0};
}

// s2_mad embeds the round's replies before its next round: a cancel as the last answer of
// round 0 is reported leaves the embedding call unissued.
TEST(DebateStop, NoEmbeddingIsIssuedAfterTheCancel) {
  Harness h(s2_script, 6);
  h.embedder = Embedder{"e", h.client.get(), "em"};
  h.client->embedding = embedding_of;
  CancelSignal cancel;
  const Outcome run = run_on(h, *h.client, "s2_mad", [&](DebateSetup& s) {
    s.cancel = &cancel;
    s.on_progress = [&](const Transcript&, const DebateProgress& p) {
      if (p.kind == DebateProgress::Kind::kCall && p.index == 5) cancel.fire("client disconnected");
    };
  });
  EXPECT_EQ(h.client->requests.size(), 6u);
  EXPECT_TRUE(h.client->embedding_requests.empty());
  EXPECT_EQ(run.transcript.messages.size(), 6u);
  EXPECT_EQ(run.transcript.status, DebateStatus::kCancelled);
  EXPECT_EQ(run.transcript.status_reason, "client disconnected");

  // Without the cancel, the embedding call comes next (so the test above can fail).
  Harness plain(s2_script, 6);
  plain.embedder = Embedder{"e", plain.client.get(), "em"};
  plain.client->embedding = embedding_of;
  const Outcome uncut = run_on(plain, *plain.client, "s2_mad", [](DebateSetup&) {});
  ASSERT_GE(uncut.transcript.messages.size(), 7u);
  EXPECT_EQ(uncut.transcript.messages[6].role, "embedding");
}

// Without cancel or deadline, no request carries a signal (nothing for a client to watch).
TEST(DebateStop, WithoutCancelOrDeadlineNoRequestCarriesASignal) {
  Harness h(debate_script, 3);
  HeldClient client(h.loop, debate_script, [](const ChatRequest&) { return Clock::duration::zero(); });
  const Outcome run = run_on(h, client, "debate", [](DebateSetup&) {});
  EXPECT_EQ(run.transcript.status, DebateStatus::kCompleted);
  ASSERT_EQ(client.requests.size(), 9u);
  for (const auto& r : client.requests) EXPECT_EQ(r.cancel, nullptr);
}

}  // namespace
}  // namespace parley
