#pragma once
// Every registered protocol on the built-in simulator, one debate at a time, with every call
// recorded: the common ground of the tests that hold for all protocols at once
// (completion_order_test, prompt_layout_test) and of bench/prefix_reuse. Support code for tests
// and benchmarks; parley itself does not use it. Single-threaded, like the debates it runs.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llm/simulator_params.h"
#include "parley/protocol.h"

namespace parley::simulated {

// When a recorded call completes.
enum class Completion {
  kInline,      // before the call returns to its caller, like a cache hit
  kIssueOrder,  // one loop turn later each, so in the order issued
  kScrambled,   // after 0-7 loop turns drawn per call: an arbitrary interleaving
};

// One chat call: what was sent and what came back.
struct Exchange {
  ChatRequest request;
  std::string reply;
};

// The simulator's replies (a pure function of the request), completing as `completion` says,
// with every call recorded in the order it was made. With `batches`, chat_n answers all its
// samples in one call, as the simulator does; otherwise it is the default, one chat() per sample.
class RecordingSimulator final : public LlmClient {
 public:
  RecordingSimulator(EventLoop& loop, SimulatorParams params, Completion completion = Completion::kIssueOrder,
                     std::uint64_t scramble_seed = 0, bool batches = false);

  Async<ChatResult> chat(ChatRequest request) override;
  Async<std::vector<ChatResult>> chat_n(ChatRequest request, int n) override;
  Async<EmbeddingResult> embed(EmbeddingRequest request) override;
  bool simulated() const override { return true; }

  std::vector<std::string> keys;  // the cache key of every call, chats and embeddings
  std::vector<Exchange> chats;    // every chat call with its reply (each sample of a batch)
  std::vector<const CancelSignal*> cancels;  // the signal every call carried, chats and embeddings
  int batched_calls = 0;          // chat_n calls answered at once

 private:
  Async<void> complete();

  EventLoop& loop_;
  SimulatorParams params_;
  Completion completion_;
  std::uint64_t scramble_seed_;
  bool batches_;
};

// Task `index` of a generated set: four-option questions, every fourth one numeric instead.
// Deterministic; the gold answer varies with the index.
std::shared_ptr<const Task> generated_task(int index);

// The registry defaults of `info`; imad's required trigger model is `trigger_model`.
ProtocolParams default_params(const ProtocolInfo& info, const std::string& trigger_model);

// The trigger model the repository ships (examples/imad-trigger.json under `source_dir`).
std::string bundled_trigger_model(const std::string& source_dir);

struct RunSetting {
  int best_of = 1;
  std::optional<std::int64_t> budget;  // per-debate token budget
  double best_of_jitter = kPaperBestOfJitter;
  int compromised = 0;  // the last m seats are compromised (AttackSetup::count)
  // DebateSetup's cancel signal, deadline and progress hook (none by default).
  CancelSignal* cancel = nullptr;
  std::optional<EventLoop::Clock::time_point> deadline;
  std::function<void(const Transcript&, const DebateProgress&)> on_progress;
};

// Runs `protocol` (registered as `info`, configured with `params`) on `task` to the end, with
// agents a1, a2, a3 and, when the protocol takes one, an embedder, all served by `client`.
// The transcript is returned as run_debate left it (no metrics).
Transcript run_on(LlmClient& client, EventLoop& loop, const ProtocolInfo& info, const ProtocolParams& params,
                  const Protocol& protocol, std::shared_ptr<const Task> task, std::uint64_t seed,
                  const RunSetting& setting);

}  // namespace parley::simulated
