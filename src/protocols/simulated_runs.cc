#include "protocols/simulated_runs.h"

#include "core/hash.h"
#include "llm/simulator_embedding.h"
#include "llm/simulator_reply.h"

namespace parley::simulated {

RecordingSimulator::RecordingSimulator(EventLoop& loop, SimulatorParams params, Completion completion,
                                       std::uint64_t scramble_seed, bool batches)
    : loop_(loop),
      params_(std::move(params)),
      completion_(completion),
      scramble_seed_(scramble_seed),
      batches_(batches) {}

Async<std::vector<ChatResult>> RecordingSimulator::chat_n(ChatRequest request, int n) {
  if (!batches_) co_return co_await LlmClient::chat_n(std::move(request), n);
  ++batched_calls;
  std::vector<ChatResult> results;
  const int first = request.note.sample;
  for (int i = 0; i < n; ++i) {
    request.note.sample = first + i;
    keys.push_back(cache_key(request));
    cancels.push_back(request.cancel);
    ChatResponse response = sim::simulate_reply(params_, params_.profiles.at("default"), request);
    chats.push_back(Exchange{request, response.text});
    results.emplace_back(std::move(response));
  }
  co_await complete();
  co_return results;
}

Async<ChatResult> RecordingSimulator::chat(ChatRequest request) {
  keys.push_back(cache_key(request));
  cancels.push_back(request.cancel);
  ChatResponse response = sim::simulate_reply(params_, params_.profiles.at("default"), request);
  chats.push_back(Exchange{std::move(request), response.text});
  co_await complete();
  co_return response;
}

Async<EmbeddingResult> RecordingSimulator::embed(EmbeddingRequest request) {
  keys.push_back(embedding_cache_key(request));
  cancels.push_back(request.cancel);
  EmbeddingResponse response;
  for (const auto& text : request.inputs) {
    response.vectors.push_back(sim::simulate_embedding(request.note.task.get(), text));
    response.usage.prompt_tokens += estimate_tokens(text);
  }
  co_await complete();
  co_return response;
}

Async<void> RecordingSimulator::complete() {
  if (completion_ == Completion::kInline) co_return;
  std::uint64_t turns = 1;
  if (completion_ == Completion::kScrambled) turns = Rng(HashBuilder().add(scramble_seed_).add(keys.size()).value()).below(8);
  for (std::uint64_t i = 0; i < turns; ++i) co_await loop_.yield();
}

std::shared_ptr<const Task> generated_task(int index) {
  auto t = std::make_shared<Task>();
  t->id = "order-" + std::to_string(index);
  if (index % 4 == 3) {
    t->question = "Question " + std::to_string(index) + ": a pendulum swings " + std::to_string(index + 5) +
                  " times in " + std::to_string(2 * (index + 5)) + " seconds. How many seconds does one swing take?";
    t->answer_type = AnswerType::kNumber;
    t->answer = "2";
    return t;
  }
  t->question = "Question " + std::to_string(index) + ": which property of a pendulum sets its period?";
  t->options = {"its length", "its mass", "the release angle", "the colour of the bob"};
  t->answer_type = AnswerType::kChoice;
  t->answer = option_letter(static_cast<std::size_t>(index % 4));
  return t;
}

ProtocolParams default_params(const ProtocolInfo& info, const std::string& trigger_model) {
  ProtocolParams params;
  for (const auto& spec : info.params) params.set(spec.name, spec.default_value);
  if (info.name == "imad") params.set("trigger_model", trigger_model);
  return params;
}

std::string bundled_trigger_model(const std::string& source_dir) { return source_dir + "/examples/imad-trigger.json"; }

Transcript run_on(LlmClient& client, EventLoop& loop, const ProtocolInfo& info, const ProtocolParams& params,
                  const Protocol& protocol, std::shared_ptr<const Task> task, std::uint64_t seed,
                  const RunSetting& setting) {
  DebateSetup setup;
  setup.loop = &loop;
  setup.task = std::move(task);
  setup.protocol_label = info.name;
  setup.seed = seed;
  setup.params = &params;
  for (const char* name : {"a1", "a2", "a3"}) setup.agent_pool.push_back(Agent{name, &client, "m", Sampling{}, ""});
  setup.budget_tokens = setting.budget;
  setup.best_of = setting.best_of;
  setup.best_of_jitter = setting.best_of_jitter;
  setup.attack.count = setting.compromised;
  if (info.uses_embeddings) setup.embedder = Embedder{"e", &client, "em"};
  setup.cancel = setting.cancel;
  setup.deadline = setting.deadline;
  setup.on_progress = setting.on_progress;
  Transcript transcript;
  auto body = [&]() -> Async<void> { transcript = co_await run_debate(protocol, std::move(setup)); };
  loop.spawn(body());
  loop.run();
  return transcript;
}

}  // namespace parley::simulated
