// DebateSetup::on_progress: every call reported once its record is complete (reply, usage and
// answer; a failed call with its error), in issue order, and every event as it is recorded —
// exactly what the final transcript holds, whatever order replies arrive in; on scripted
// replies (imad: self-critique, trigger, mad's rounds, re-asks, judges) and for every protocol
// on the simulator.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/simulator_params.h"
#include "parley/protocol.h"
#include "parley/simulator.h"
#include "protocol_harness.h"
#include "protocols/simulated_runs.h"

namespace parley {
namespace {

using testing::Harness;
using testing::reply;
using Json = nlohmann::json;
using Kind = DebateProgress::Kind;

// What the observer saw: each report, and the record it named as it was then.
struct Seen {
  std::vector<std::pair<Kind, std::size_t>> order;
  std::vector<MessageRecord> calls;  // in report order
  std::vector<EventRecord> events;   // in report order

  std::function<void(const Transcript&, const DebateProgress&)> observer() {
    return [this](const Transcript& t, const DebateProgress& p) {
      order.emplace_back(p.kind, p.index);
      if (p.kind == Kind::kCall) calls.push_back(t.messages.at(p.index));
      if (p.kind == Kind::kEvent) events.push_back(t.events.at(p.index));
    };
  }
};

Transcript run_protocol(Harness& h, const std::string& name, std::map<std::string, ParamValue> overrides, Seen& seen) {
  const ProtocolInfo* info = find_protocol(name);
  for (const auto& spec : info->params) h.params.set(spec.name, spec.default_value);
  for (auto& [k, v] : overrides) h.params.set(k, v);
  const auto protocol = info->make(h.params);
  DebateSetup setup = h.setup(name);
  setup.on_progress = seen.observer();
  Transcript out;
  auto body = [&]() -> Async<void> { out = co_await run_debate(*protocol, std::move(setup)); };
  h.loop.spawn(body());
  h.loop.run();
  return out;
}

// The record as reported is the record in the final transcript. `role`: best-of drafts not kept
// are relabelled once the judges scored them, after they were reported.
void expect_same(const MessageRecord& seen, const MessageRecord& final, bool role = true) {
  EXPECT_EQ(seen.id, final.id);
  EXPECT_EQ(seen.agent, final.agent);
  if (role) {
    EXPECT_EQ(seen.role, final.role) << final.id;
  }
  EXPECT_EQ(seen.round, final.round) << final.id;
  EXPECT_EQ(seen.text, final.text) << final.id;
  EXPECT_EQ(seen.answer, final.answer) << final.id;
  EXPECT_EQ(seen.confidence, final.confidence) << final.id;
  EXPECT_EQ(seen.error, final.error) << final.id;
  EXPECT_EQ(seen.attempts, final.attempts) << final.id;
  EXPECT_EQ(seen.prompt_tokens, final.prompt_tokens) << final.id;
  EXPECT_EQ(seen.completion_tokens, final.completion_tokens) << final.id;
  EXPECT_EQ(seen.repeats, final.repeats) << final.id;
}

void expect_same(const EventRecord& seen, const EventRecord& final) {
  EXPECT_EQ(seen.round, final.round);
  EXPECT_EQ(seen.kind, final.kind);
  EXPECT_EQ(seen.detail, final.detail);
}

std::string critique(const std::string& answer) {
  return "Initial answer: " + answer +
         "\nInitial reasoning: Mars looks large in the night sky, so it may be the biggest.\n"
         "Initial confidence: 70%\nSelf-critique: However, Jupiter is a gas giant and could well be larger; I am "
         "not sure.\nAlternative answer: B\nCritique confidence: 45%\nFinal answer: " +
         answer + "\nFinal confidence: 60%";
}

std::string verdict(const std::string& preference, const std::string& side, const std::string& answer) {
  return Json{{"Preference", preference}, {"Supported Side", side}, {"Reason", "r"}, {"Debate Answer", answer}}.dump();
}

// imad forced to debate: a malformed self-critique re-asked; mad's round 1 with the affirmative
// re-asked and the judge's verdict re-asked; round 2 settles it.
TEST(DebateProgress, ImadReportsEveryCallAndEventInOrderAsTheTranscriptHoldsThem) {
  Harness h(
      [](const ChatRequest& r) -> std::string {
        const std::string& turn = r.note.turn;
        if (turn == "self_critique") return "Hmm, let me think about it.";
        if (turn.starts_with("self_critique")) return critique("A");
        if (turn == "reask") return "Answer: A\nConfidence: 70%";
        if (turn.starts_with("affirmative")) return r.note.round == 1 ? "I defend my answer." : reply("A");
        if (turn.starts_with("negative")) return reply("B");
        if (turn == "judge_mad" && r.note.round == 1) return "I cannot decide.";
        if (r.note.round == 1) return verdict("No", "Negative", "B");
        return verdict("Yes", "Negative", "B");
      },
      2, 1);
  Seen seen;
  const Transcript t = run_protocol(
      h, "imad",
      {{"trigger_model", std::string(PARLEY_SOURCE_DIR) + "/examples/imad-trigger.json"}, {"threshold", 1.0}}, seen);
  EXPECT_EQ(t.status, DebateStatus::kCompleted);
  EXPECT_EQ(t.final_answer, "B");
  std::vector<std::string> calls;
  for (const auto& m : t.messages) calls.push_back(m.role + "/" + std::to_string(m.round));
  EXPECT_EQ(calls, (std::vector<std::string>{"self_critique/0", "self_critique_reask/0", "affirmative/1", "reask/1",
                                             "negative/1", "judge_mad/1", "judge_mad_reask/1", "affirmative/2",
                                             "negative/2", "judge_mad/2"}));
  std::vector<std::string> events;
  for (const auto& e : t.events) events.push_back(e.kind + "/" + std::to_string(e.round));
  EXPECT_EQ(events, (std::vector<std::string>{"self_critique/0", "trigger/0", "verdict/1", "verdict/2", "stop/2"}));
  // The self-critique and its re-ask, its two events; round 1's five calls, its verdict; round
  // 2's three calls, its verdict and the stop.
  const std::vector<std::pair<Kind, std::size_t>> expected = {
      {Kind::kCall, 0}, {Kind::kCall, 1}, {Kind::kEvent, 0}, {Kind::kEvent, 1}, {Kind::kCall, 2},
      {Kind::kCall, 3}, {Kind::kCall, 4}, {Kind::kCall, 5}, {Kind::kCall, 6}, {Kind::kEvent, 2},
      {Kind::kCall, 7}, {Kind::kCall, 8}, {Kind::kCall, 9}, {Kind::kEvent, 3}, {Kind::kEvent, 4}};
  EXPECT_EQ(seen.order, expected);
  ASSERT_EQ(seen.calls.size(), t.messages.size());
  for (std::size_t i = 0; i < t.messages.size(); ++i) expect_same(seen.calls[i], t.messages[i]);
  ASSERT_EQ(seen.events.size(), t.events.size());
  for (std::size_t i = 0; i < t.events.size(); ++i) expect_same(seen.events[i], t.events[i]);
  // The self-critique's answer is read after its check: reported with it, not before.
  EXPECT_EQ(seen.calls[1].answer, "A");
  EXPECT_FALSE(seen.calls[0].answer.has_value());
  EXPECT_EQ(seen.calls[3].answer, "A");  // the affirmative's re-ask
}

TEST(DebateProgress, AFailedCallIsReportedWithItsError) {
  Harness h(
      [](const ChatRequest& r) -> std::variant<std::string, CallError> {
        if (r.note.agent == "a2") return CallError{CallErrorKind::kHttpStatus, 500, "boom", 3};
        return reply("B");
      },
      3);
  Seen seen;
  const Transcript t = run_protocol(h, "debate", {}, seen);
  EXPECT_EQ(t.status, DebateStatus::kFailed);
  ASSERT_EQ(t.messages.size(), 3u);
  EXPECT_EQ(seen.order, (std::vector<std::pair<Kind, std::size_t>>{{Kind::kCall, 0}, {Kind::kCall, 1}, {Kind::kCall, 2}}));
  ASSERT_EQ(seen.calls.size(), 3u);
  EXPECT_EQ(seen.calls[1].error, "http_status: boom");
  EXPECT_EQ(seen.calls[1].attempts, 3);
  EXPECT_FALSE(seen.calls[0].error.has_value());
  EXPECT_EQ(seen.calls[2].answer, "B");
}

// A budget stop's event, recorded when run_debate ends the debate, is reported last.
TEST(DebateProgress, TheBudgetEventIsReported) {
  Harness h([](const ChatRequest&) { return reply("B"); }, 3);
  Seen seen;
  const ProtocolInfo* info = find_protocol("debate");
  for (const auto& spec : info->params) h.params.set(spec.name, spec.default_value);
  const auto protocol = info->make(h.params);
  DebateSetup setup = h.setup("debate", 500);
  setup.on_progress = seen.observer();
  Transcript t;
  auto body = [&]() -> Async<void> { t = co_await run_debate(*protocol, std::move(setup)); };
  h.loop.spawn(body());
  h.loop.run();
  ASSERT_EQ(t.status, DebateStatus::kBudget);
  ASSERT_EQ(t.events.size(), 1u);
  ASSERT_FALSE(seen.order.empty());
  EXPECT_EQ(seen.order.back(), (std::pair<Kind, std::size_t>{Kind::kEvent, 0}));
  ASSERT_EQ(seen.events.size(), 1u);
  expect_same(seen.events[0], t.events[0]);
  EXPECT_EQ(seen.calls.size(), t.messages.size());
}

// Every protocol on the simulator (re-asks frequent; best-of judged; batches; embeddings): each
// call and event reported exactly once, in order, as the final transcript holds it; the
// reports the same whether replies complete inline or in scrambled orders; and every request
// (chats, samples sent together, embeddings, judges) carrying the debate's signal when it has a
// cancel, none without.
TEST(DebateProgress, EveryProtocolReportsItsTranscriptInIssueOrderAndCarriesItsSignal) {
  SimulatorParams sim = *default_simulator_params();
  sim.format_error_rate = 0.3;
  int calls = 0, events = 0, drafts = 0, embeddings = 0, samples_together = 0;
  for (const ProtocolInfo& info : protocol_registry()) {
    const ProtocolParams params = simulated::default_params(info, simulated::bundled_trigger_model(PARLEY_SOURCE_DIR));
    const auto protocol = info.make(params);
    for (const int best_of : {1, 2}) {
      std::optional<std::vector<std::pair<Kind, std::size_t>>> first_order;
      for (const auto completion : {simulated::Completion::kInline, simulated::Completion::kScrambled}) {
        for (const bool with_cancel : {false, true}) {
          const std::string where = info.name + ", best_of " + std::to_string(best_of) +
                                    (completion == simulated::Completion::kInline ? ", inline" : ", scrambled") +
                                    (with_cancel ? ", cancel" : "");
          EventLoop loop;
          simulated::RecordingSimulator client(loop, sim, completion, 3, /*batches=*/true);
          CancelSignal cancel;
          Seen seen;
          simulated::RunSetting setting;
          setting.best_of = best_of;
          setting.best_of_jitter = 0.0;  // drafts sent together
          setting.on_progress = seen.observer();
          if (with_cancel) setting.cancel = &cancel;
          const Transcript t =
              simulated::run_on(client, loop, info, params, *protocol, simulated::generated_task(1), 7, setting);
          ASSERT_EQ(t.status, DebateStatus::kCompleted) << where;
          std::size_t next_call = 0, next_event = 0;
          for (const auto& [kind, index] : seen.order) {
            EXPECT_EQ(index, kind == Kind::kCall ? next_call++ : next_event++) << where;
          }
          ASSERT_EQ(next_call, t.messages.size()) << where;
          ASSERT_EQ(next_event, t.events.size()) << where;
          for (std::size_t i = 0; i < t.messages.size(); ++i) {
            const bool draft = t.messages[i].role == "draft";
            drafts += draft;
            embeddings += t.messages[i].role == "embedding";
            expect_same(seen.calls[i], t.messages[i], !draft);
          }
          for (std::size_t i = 0; i < t.events.size(); ++i) expect_same(seen.events[i], t.events[i]);
          if (!first_order) first_order = seen.order;
          EXPECT_EQ(seen.order, *first_order) << where;
          ASSERT_EQ(client.cancels.size(), t.messages.size()) << where;
          for (const CancelSignal* signal : client.cancels) {
            if (with_cancel) {
              EXPECT_EQ(signal, client.cancels.front()) << where;
              EXPECT_NE(signal, nullptr) << where;
            } else {
              EXPECT_EQ(signal, nullptr) << where;
            }
          }
          EXPECT_EQ(cancel.subscribers(), 0u) << where;
          calls += static_cast<int>(t.messages.size());
          events += static_cast<int>(t.events.size());
          samples_together += client.batched_calls;
        }
      }
    }
  }
  // The runs did have what could go wrong: many calls and events, drafts, embeddings, batches.
  EXPECT_GT(calls, 500);
  EXPECT_GT(events, 50);
  EXPECT_GT(drafts, 20);
  EXPECT_GT(embeddings, 4);
  EXPECT_GT(samples_together, 20);
}

}  // namespace
}  // namespace parley
