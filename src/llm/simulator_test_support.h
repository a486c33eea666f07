#pragma once
// Helpers shared by the simulator tests: synthetic tasks, requests annotated the way a protocol
// fills them, running requests through a client on an EventLoop, and reading replies back.

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "llm/simulator_params.h"
#include "parley/answer.h"
#include "parley/simulator.h"

namespace parley::sim::testing {

inline std::shared_ptr<const Task> choice_task(int index, std::optional<double> difficulty = std::nullopt) {
  auto task = std::make_shared<Task>();
  task->id = "synthetic-" + std::to_string(index);
  task->question = "Question " + std::to_string(index) +
                   ": which property of the pendulum determines its period when released from rest?";
  task->options = {"its length", "its mass", "the release angle", "the colour of the bob"};
  task->answer_type = AnswerType::kChoice;
  task->answer = option_letter(static_cast<std::size_t>(index % 4));
  task->difficulty = difficulty;
  return task;
}

inline ChatRequest request_for(std::shared_ptr<const Task> task, std::string agent, int round = 0,
                               std::string turn = "answer", int sample = 0, double temperature = 0.7) {
  ChatRequest r;
  r.model = "sim";
  r.messages = {{"system", "You are a careful reasoner."}, {"user", task->question}};
  r.sampling.temperature = temperature;
  r.note.task = std::move(task);
  r.note.protocol = "test";
  r.note.seed = 7;
  r.note.agent = std::move(agent);
  r.note.round = round;
  r.note.turn = std::move(turn);
  r.note.sample = sample;
  return r;
}

inline Async<void> call_into(LlmClient* client, ChatRequest request, ChatResponse* out) {
  ChatResult result = co_await client->chat(std::move(request));
  *out = std::get<ChatResponse>(std::move(result));
}

// Runs all requests concurrently on one loop; replies in request order.
inline std::vector<ChatResponse> run_all(LlmClient& client, EventLoop& loop, const std::vector<ChatRequest>& requests) {
  std::vector<ChatResponse> out(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) loop.spawn(call_into(&client, requests[i], &out[i]));
  loop.run();
  return out;
}

// The answer and confidence a protocol would read from a reply.
inline Answer read_answer(const std::string& text, const Task& task) { return parse_answer(text, task); }

inline std::unique_ptr<LlmClient> client(EventLoop& loop, const std::string& profile = "default") {
  auto made = make_simulator_client(loop, default_simulator_params(), profile);
  EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error().message);
  return std::move(made).value();
}

}  // namespace parley::sim::testing
