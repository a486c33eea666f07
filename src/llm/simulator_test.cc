// The simulator client: determinism, asynchronous completion, reply format, re-asks, usage,
// log-probabilities and profile errors.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <set>

#include <gtest/gtest.h>

#include "llm/simulator_answers.h"
#include "llm/simulator_model.h"
#include "llm/simulator_reply.h"
#include "llm/simulator_test_support.h"

namespace parley::sim {
namespace {

using testing::choice_task;
using testing::read_answer;
using testing::request_for;
using testing::run_all;

const SimulatorProfile& default_profile() { return default_simulator_params()->profiles.at("default"); }

ChatResponse reply(const ChatRequest& request) {
  return simulate_reply(*default_simulator_params(), default_profile(), request);
}

TEST(SimulatorTest, ATaskWithoutGoldGetsALatentAnswerFromItsQuestion) {
  Task choice;
  choice.question = "Which gas do plants take in?";
  choice.options = {"Oxygen", "Carbon dioxide", "Helium"};
  choice.answer_type = AnswerType::kChoice;
  const auto letter = latent_answer(choice);
  ASSERT_TRUE(letter.has_value());
  EXPECT_TRUE(*letter == "A" || *letter == "B" || *letter == "C") << *letter;
  EXPECT_EQ(latent_answer(choice), letter);  // the same question, the same answer
  // Always one of the options given: with two, A or B, never a letter past them.
  Task two_options = choice;
  two_options.options = {"Oxygen", "Carbon dioxide"};
  std::set<std::string> letters;
  for (int i = 0; i < 64; ++i) {
    two_options.question = "Which gas, variant " + std::to_string(i) + "?";
    letters.insert(latent_answer(two_options).value_or("none"));
  }
  EXPECT_EQ(letters, (std::set<std::string>{"A", "B"}));
  Task no_options = two_options;
  no_options.options.clear();
  letters.clear();
  for (int i = 0; i < 64; ++i) {
    no_options.question = "Which letter, variant " + std::to_string(i) + "?";
    letters.insert(latent_answer(no_options).value_or("none"));
  }
  EXPECT_EQ(letters, (std::set<std::string>{"A", "B", "C", "D"}));  // read as four options, A–D
  Task number = choice;
  number.options.clear();
  number.answer_type = AnswerType::kNumber;
  const auto value = latent_answer(number);
  ASSERT_TRUE(value.has_value());
  EXPECT_GE(std::stoi(*value), 0);
  EXPECT_LT(std::stoi(*value), 100);
  Task text = number;
  text.answer_type = AnswerType::kText;
  text.question = "Name the capital of Burkina Faso.";
  EXPECT_EQ(latent_answer(text), "capital");  // the longest word (the first of equal length)
  text.question = "?!";
  EXPECT_EQ(latent_answer(text), "yes");
  text.answer = "Ouagadougou";
  EXPECT_FALSE(latent_answer(text).has_value());  // a task with its answer keeps it
}

TEST(SimulatorTest, SameRequestGivesSameReply) {
  const auto task = choice_task(3);
  const ChatRequest request = request_for(task, "a1");
  EXPECT_EQ(reply(request).text, reply(request).text);
}

// The client keeps each task's latents; its replies are still the model's, also for a task made
// where a freed one was (same address, another task) and for a task changed in place.
TEST(SimulatorTest, TheClientsKeptLatentsGiveTheModelsReplies) {
  EventLoop loop;
  auto simulator = testing::client(loop);
  const auto first = choice_task(1, 0.2), second = choice_task(2, 0.9);
  const std::vector<ChatRequest> requests = {request_for(first, "a1"), request_for(second, "a1"),
                                             request_for(first, "a2", 1, "revise"), request_for(first, "a1")};
  const auto replies = run_all(*simulator, loop, requests);
  for (std::size_t i = 0; i < requests.size(); ++i) EXPECT_EQ(replies[i].text, reply(requests[i]).text) << i;

  alignas(Task) static unsigned char place[sizeof(Task)];
  const auto task_in_place = [](const std::shared_ptr<const Task>& model) {
    return std::shared_ptr<const Task>(new (place) Task(*model), [](const Task* task) { task->~Task(); });
  };
  std::set<std::string> texts;
  for (int index = 3; index <= 6; ++index) {  // four tasks, one after another, at one address
    const ChatRequest request = request_for(task_in_place(choice_task(index, 0.1 * index)), "a1");
    const auto answered = run_all(*simulator, loop, {request});
    EXPECT_EQ(answered[0].text, reply(request).text) << index;
    texts.insert(answered[0].text);
  }
  EXPECT_EQ(texts.size(), 4u);

  const auto changing = std::make_shared<Task>(*choice_task(7, 0.5));
  const ChatRequest before = request_for(changing, "a1");
  EXPECT_EQ(run_all(*simulator, loop, {before})[0].text, reply(before).text);
  for (const std::string answer : {"A", "B", "C", "D"}) {  // the gold moves: so do the latents' attractor and odds
    changing->answer = answer;
    const ChatRequest after = request_for(changing, "a1");
    EXPECT_EQ(run_all(*simulator, loop, {after})[0].text, reply(after).text) << answer;
  }
}

TEST(SimulatorTest, SamplesDifferAtPositiveTemperatureAndAgreeAtZero) {
  const auto task = choice_task(5);
  std::set<std::string> warm;
  std::set<std::string> cold;
  for (int sample = 0; sample < 8; ++sample) {
    warm.insert(reply(request_for(task, "a1", 0, "sample", sample, 0.7)).text);
    cold.insert(reply(request_for(task, "a1", 0, "sample", sample, 0.0)).text);
  }
  EXPECT_GT(warm.size(), 1u);
  EXPECT_EQ(cold.size(), 1u);
}

TEST(SimulatorTest, ZeroTemperatureAnswersVaryAcrossAgentsButNotSamples) {
  // At T = 0 the answer is fixed per (agent, task) yet differs between agents on some tasks.
  int tasks_with_disagreement = 0;
  for (int i = 0; i < 40; ++i) {
    const auto task = choice_task(i);
    std::set<std::string> across_agents;
    for (const char* agent : {"a1", "a2", "a3"}) {
      const auto first = read_answer(reply(request_for(task, agent, 0, "sample", 0, 0.0)).text, *task).value;
      const auto other = read_answer(reply(request_for(task, agent, 0, "sample", 3, 0.0)).text, *task).value;
      EXPECT_EQ(first, other);
      if (first) across_agents.insert(*first);
    }
    tasks_with_disagreement += across_agents.size() > 1;
  }
  EXPECT_GT(tasks_with_disagreement, 0);
}

TEST(SimulatorTest, RepliesDoNotDependOnCallOrder) {
  std::vector<ChatRequest> requests;
  for (int i = 0; i < 12; ++i) requests.push_back(request_for(choice_task(i), "a" + std::to_string(i % 3)));
  std::vector<ChatRequest> reversed(requests.rbegin(), requests.rend());

  EventLoop loop_a;
  auto client_a = testing::client(loop_a);
  const auto forward = run_all(*client_a, loop_a, requests);
  EventLoop loop_b;
  auto client_b = testing::client(loop_b);
  auto backward = run_all(*client_b, loop_b, reversed);
  std::reverse(backward.begin(), backward.end());
  for (std::size_t i = 0; i < requests.size(); ++i) EXPECT_EQ(forward[i].text, backward[i].text);
}

TEST(SimulatorTest, ChatNGivesEverySampleTheReplyOfItsOwnCall) {
  const auto task = choice_task(5);
  std::vector<ChatRequest> alone;
  for (int sample = 2; sample < 6; ++sample) {
    alone.push_back(request_for(task, "a1", 0, "sample", sample, 0.7));
    alone.back().sampling.logprobs = true;
  }
  EventLoop loop;
  auto client = testing::client(loop);
  const std::vector<ChatResponse> separate = run_all(*client, loop, alone);
  std::vector<ChatResult> together;
  auto batch = [&]() -> Async<void> { together = co_await client->chat_n(alone[0], 4); };
  loop.spawn(batch());
  loop.run();
  ASSERT_EQ(together.size(), 4u);
  std::set<std::string> texts;
  for (std::size_t i = 0; i < 4; ++i) {
    const ChatResponse& got = std::get<ChatResponse>(together[i]);
    EXPECT_EQ(got.text, separate[i].text);
    EXPECT_EQ(got.reasoning, separate[i].reasoning);
    EXPECT_EQ(got.finish_reason, separate[i].finish_reason);
    // A simulated sample bills its prompt as a call of its own would.
    EXPECT_EQ(got.usage.prompt_tokens, separate[i].usage.prompt_tokens);
    EXPECT_EQ(got.usage.completion_tokens, separate[i].usage.completion_tokens);
    ASSERT_TRUE(got.logprobs && separate[i].logprobs);
    EXPECT_EQ(got.logprobs->min_token_logprob, separate[i].logprobs->min_token_logprob);
    EXPECT_EQ(got.latency_ms, separate[i].latency_ms);
    texts.insert(got.text);
  }
  EXPECT_GT(texts.size(), 1u);  // samples, not one reply repeated
}

struct Flag {
  bool done = false;
};
Async<void> call_and_flag(LlmClient* client, ChatRequest request, Flag* flag) {
  (void)co_await client->chat(std::move(request));
  flag->done = true;
}
TEST(SimulatorTest, CompletesThroughTheLoopNotInline) {
  EventLoop loop;
  auto client = testing::client(loop);
  Flag flag;
  auto call = call_and_flag(client.get(), request_for(choice_task(1), "a1"), &flag);
  loop.spawn(std::move(call));
  EXPECT_FALSE(flag.done);  // spawn starts the call; it must wait for a turn of the loop
  loop.run();
  EXPECT_TRUE(flag.done);
}

TEST(SimulatorTest, DelayIsRealTimeOnTheLoop) {
  EventLoop loop;
  auto made = make_simulator_client(loop, default_simulator_params(), "default", 20.0);
  ASSERT_TRUE(made.ok());
  const auto started = std::chrono::steady_clock::now();
  const auto replies = run_all(**made, loop, {request_for(choice_task(1), "a1"), request_for(choice_task(2), "a1")});
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  EXPECT_GE(elapsed_ms, 19.0);
  EXPECT_LT(elapsed_ms, 1000.0);  // the two calls wait concurrently
  EXPECT_DOUBLE_EQ(replies[0].latency_ms, 20.0);
}

// A cancelled loop ends a delayed call at once, as a cancelled HTTP call ends.
TEST(SimulatorTest, CancelEndsDelayedChatsAndEmbeddingsWithACancelledError) {
  EventLoop loop;
  auto made = make_simulator_client(loop, default_simulator_params(), "default", 3.6e6);  // an hour
  ASSERT_TRUE(made.ok());
  LlmClient& client = **made;
  std::optional<ChatResult> chat;
  std::optional<EmbeddingResult> embedding;
  auto ask = [&]() -> Async<void> { chat = co_await client.chat(request_for(choice_task(1), "a1")); };
  auto embed = [&]() -> Async<void> {
    EmbeddingRequest request;
    request.inputs = {"Answer: A"};
    embedding = co_await client.embed(request);
  };
  auto canceller = [&]() -> Async<void> {
    co_await loop.sleep_for(std::chrono::milliseconds(20));
    loop.cancel();
  };
  loop.spawn(ask());
  loop.spawn(embed());
  loop.spawn(canceller());
  const auto started = std::chrono::steady_clock::now();
  loop.run();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  ASSERT_TRUE(chat && std::holds_alternative<CallError>(*chat));
  EXPECT_EQ(std::get<CallError>(*chat).kind, CallErrorKind::kCancelled);
  EXPECT_EQ(std::get<CallError>(*chat).message, "the run was stopped");
  ASSERT_TRUE(embedding && std::holds_alternative<CallError>(*embedding));
  EXPECT_EQ(std::get<CallError>(*embedding).kind, CallErrorKind::kCancelled);
}

// A request's own signal ends that call as a cancelled loop would, without stopping the loop:
// mid-delay (chat, chat_n, embed), and the reason carried in the error.
TEST(SimulatorTest, ARequestsSignalEndsItsDelayedCallsWithACancelledError) {
  EventLoop loop;
  auto made = make_simulator_client(loop, default_simulator_params(), "default", 3.6e6);  // an hour
  ASSERT_TRUE(made.ok());
  LlmClient& client = **made;
  CancelSignal signal;
  std::optional<ChatResult> chat;
  std::optional<std::vector<ChatResult>> samples;
  std::optional<EmbeddingResult> embedding;
  ChatRequest request = request_for(choice_task(1), "a1");
  request.cancel = &signal;
  auto ask = [&]() -> Async<void> { chat = co_await client.chat(request); };
  auto ask_n = [&]() -> Async<void> { samples = co_await client.chat_n(request, 3); };
  auto embed = [&]() -> Async<void> {
    EmbeddingRequest embedding_request;
    embedding_request.inputs = {"Answer: A"};
    embedding_request.cancel = &signal;
    embedding = co_await client.embed(embedding_request);
  };
  auto canceller = [&]() -> Async<void> {
    co_await loop.sleep_for(std::chrono::milliseconds(20));
    signal.fire("client went away");
  };
  loop.spawn(ask());
  loop.spawn(ask_n());
  loop.spawn(embed());
  loop.spawn(canceller());
  const auto started = std::chrono::steady_clock::now();
  loop.run();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  EXPECT_FALSE(loop.cancelled());
  EXPECT_EQ(signal.subscribers(), 0u);
  const auto expect_cancelled = [](const auto& result) {
    ASSERT_TRUE(std::holds_alternative<CallError>(result));
    EXPECT_EQ(std::get<CallError>(result).kind, CallErrorKind::kCancelled);
    EXPECT_EQ(std::get<CallError>(result).message, "the call was stopped: client went away");
  };
  ASSERT_TRUE(chat);
  expect_cancelled(*chat);
  ASSERT_TRUE(samples);
  ASSERT_EQ(samples->size(), 3u);
  for (const ChatResult& sample : *samples) expect_cancelled(sample);
  ASSERT_TRUE(embedding);
  expect_cancelled(*embedding);
}

// A signal fired before the call: cancelled on the next turn, not after the delay; with no delay,
// a signal fired while the reply waits for its turn cancels it too. A signal that never fires
// changes nothing.
TEST(SimulatorTest, ASignalFiredBeforeOrDuringTheTurnCancelsAtOnce) {
  for (const double delay_ms : {0.0, 3.6e6}) {
    EventLoop loop;
    auto made = make_simulator_client(loop, default_simulator_params(), "default", delay_ms);
    ASSERT_TRUE(made.ok());
    LlmClient& client = **made;
    CancelSignal fired;
    fired.fire("gone");
    ChatRequest request = request_for(choice_task(1), "a1");
    request.cancel = &fired;
    std::optional<ChatResult> chat;
    std::optional<std::vector<ChatResult>> samples;
    std::optional<EmbeddingResult> embedding;
    auto ask = [&]() -> Async<void> { chat = co_await client.chat(request); };
    auto ask_n = [&]() -> Async<void> { samples = co_await client.chat_n(request, 2); };
    auto embed = [&]() -> Async<void> {
      EmbeddingRequest embedding_request;
      embedding_request.inputs = {"Answer: A"};
      embedding_request.cancel = &fired;
      embedding = co_await client.embed(embedding_request);
    };
    loop.spawn(ask());
    loop.spawn(ask_n());
    loop.spawn(embed());
    EXPECT_FALSE(chat.has_value());  // never inline
    const auto started = std::chrono::steady_clock::now();
    loop.run();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2)) << delay_ms;
    ASSERT_TRUE(chat && std::holds_alternative<CallError>(*chat)) << delay_ms;
    EXPECT_EQ(std::get<CallError>(*chat).kind, CallErrorKind::kCancelled);
    EXPECT_EQ(std::get<CallError>(*chat).message, "the call was stopped: gone");
    ASSERT_TRUE(samples && samples->size() == 2u) << delay_ms;
    for (const ChatResult& sample : *samples) {
      ASSERT_TRUE(std::holds_alternative<CallError>(sample));
      EXPECT_EQ(std::get<CallError>(sample).message, "the call was stopped: gone");
    }
    ASSERT_TRUE(embedding && std::holds_alternative<CallError>(*embedding)) << delay_ms;
    EXPECT_EQ(std::get<CallError>(*embedding).kind, CallErrorKind::kCancelled);
  }

  // No delay: fired after the call was made, before its turn came.
  EventLoop loop;
  auto client = testing::client(loop);
  CancelSignal signal;
  ChatRequest request = request_for(choice_task(1), "a1");
  request.cancel = &signal;
  std::optional<ChatResult> chat;
  std::optional<EmbeddingResult> embedding;
  auto ask = [&]() -> Async<void> { chat = co_await client->chat(request); };
  auto embed = [&]() -> Async<void> {
    EmbeddingRequest embedding_request;
    embedding_request.inputs = {"Answer: A"};
    embedding_request.cancel = &signal;
    embedding = co_await client->embed(embedding_request);
  };
  loop.spawn(ask());
  loop.spawn(embed());
  signal.fire("late");
  loop.run();
  ASSERT_TRUE(chat && std::holds_alternative<CallError>(*chat));
  EXPECT_EQ(std::get<CallError>(*chat).message, "the call was stopped: late");
  ASSERT_TRUE(embedding && std::holds_alternative<CallError>(*embedding));
  EXPECT_EQ(std::get<CallError>(*embedding).message, "the call was stopped: late");
}

TEST(SimulatorTest, ASignalThatNeverFiresChangesNoReply) {
  for (const double delay_ms : {0.0, 5.0}) {
    EventLoop loop;
    auto made = make_simulator_client(loop, default_simulator_params(), "default", delay_ms);
    ASSERT_TRUE(made.ok());
    CancelSignal signal;
    const ChatRequest plain = request_for(choice_task(1), "a1");
    ChatRequest watched = plain;
    watched.cancel = &signal;
    const auto replies = run_all(**made, loop, {plain, watched});
    EXPECT_FALSE(replies[0].text.empty());
    EXPECT_EQ(replies[1].text, replies[0].text) << delay_ms;
    EXPECT_EQ(replies[1].usage.completion_tokens, replies[0].usage.completion_tokens);
    EXPECT_DOUBLE_EQ(replies[1].latency_ms, delay_ms);
    EXPECT_EQ(signal.subscribers(), 0u);
  }
}

std::shared_ptr<const Task> number_task(int index) {
  auto task = std::make_shared<Task>();
  task->id = "number-" + std::to_string(index);
  task->question = "A shop sells " + std::to_string(index + 3) + " boxes of 12 pencils. How many pencils in total?";
  task->answer_type = AnswerType::kNumber;
  task->answer = std::to_string((index + 3) * 12);
  return task;
}

std::shared_ptr<const Task> text_task(int index) {
  auto task = std::make_shared<Task>();
  task->id = "text-" + std::to_string(index);
  task->question = "Which organ of the human body pumps blood through the arteries and veins?";
  task->answer_type = AnswerType::kText;
  task->answer = "the heart";
  return task;
}

// Monthly sticky-CPI style forecasts: 0.1, 0.2, ..., some negative.
std::shared_ptr<const Task> forecast_task(int index) {
  auto task = std::make_shared<Task>();
  task->id = "forecast-" + std::to_string(index);
  task->question = "What impact on next month's sticky core inflation do you expect from event " +
                   std::to_string(index) + "?";
  task->answer_type = AnswerType::kForecast;
  task->answer = canonical_number(static_cast<double>(index % 7 - 2) / 10.0);
  return task;
}

TEST(SimulatorTest, EveryReplyParsesToTheDecisionOrIsAFormatError) {
  const auto& params = *default_simulator_params();
  int unparsed = 0;
  int total = 0;
  for (int i = 0; i < 300; ++i) {
    for (const auto& task : {choice_task(i), number_task(i), text_task(i), forecast_task(i)}) {
      const auto space = task_latents(params, *task).answers;
      for (int round = 0; round < 2; ++round) {
        ChatRequest request = request_for(task, "a1", round, round == 0 ? "answer" : "revise");
        if (round == 1) {
          // Peers name other answers in the prose; the final line must still win.
          request.note.shown = {{"a2", space.wrong[0], 0.8}, {"a3", space.gold, std::nullopt}, {"a4", "", std::nullopt}};
          request.note.own_previous = space.wrong.back();
        }
        const ChatResponse r = reply(request);
        const Decision meant = decide(params, default_profile(), request.note, 0.7, task_latents(params, *task));
        const Answer answer = read_answer(r.text, *task);
        ++total;
        if (r.text.find("Answer:") == std::string::npos && r.text.find("Impact:") == std::string::npos) {
          ++unparsed;
          if (task->answer_type == AnswerType::kText) {
            EXPECT_EQ(r.text, "");
            EXPECT_NE(r.reasoning, "");
          }
          EXPECT_FALSE(answer.parsed()) << answer_type_name(task->answer_type) << ": " << r.text;
          EXPECT_FALSE(answer.confidence.has_value()) << r.text;
          continue;
        }
        ASSERT_TRUE(answer.parsed()) << r.text;
        EXPECT_TRUE(answers_match(*task, *answer.value) == meant.correct) << r.text;
        EXPECT_EQ(answer.value, meant.answer) << r.text;
        EXPECT_EQ(answer.confidence, meant.confidence) << r.text;
        EXPECT_GT(meant.confidence, 0.0);
        EXPECT_LT(meant.confidence, 1.0);
        const auto tokens = estimate_tokens(r.text);
        EXPECT_GE(tokens, 50) << r.text;
        EXPECT_LE(tokens, 280) << r.text;
      }
    }
  }
  // format_error_rate is 2.5 %: some replies omit the answer, most do not.
  EXPECT_GT(unparsed, 0);
  EXPECT_LT(unparsed, total / 10);
}

TEST(SimulatorTest, FormatErrorIsFollowedByAReaskStatingTheMeantAnswer) {
  const auto& params = *default_simulator_params();
  int checked = 0;
  for (int i = 0; i < 400 && checked < 3; ++i) {
    const auto task = choice_task(i);
    const ChatRequest first = request_for(task, "a2");
    if (read_answer(reply(first).text, *task).parsed()) continue;
    ++checked;
    const Decision meant = decide(params, default_profile(), first.note, first.sampling.temperature,
                                  task_latents(params, *task));
    const Answer answer = read_answer(reply(request_for(task, "a2", 0, "reask")).text, *task);
    EXPECT_EQ(answer.value, meant.answer);
    EXPECT_EQ(answer.confidence, meant.confidence);
  }
  EXPECT_EQ(checked, 3);
  // Never a format error on re-ask turns.
  for (int i = 0; i < 300; ++i) {
    const auto task = choice_task(i);
    EXPECT_TRUE(read_answer(reply(request_for(task, "a3", 1, "reask")).text, *task).parsed());
  }
}

TEST(SimulatorTest, ReaskAnswerEqualsTheTurnItRepeats) {
  // A parsed first answer and the reask of the same turn state the same answer and confidence.
  for (int i = 0; i < 50; ++i) {
    const auto task = choice_task(i);
    ChatRequest revise = request_for(task, "a1", 1, "revise");
    revise.note.shown = {{"a2", "B", 0.9}, {"a3", "C", 0.6}};
    revise.note.own_previous = "A";
    ChatRequest reask = revise;
    reask.note.turn = "reask";
    const Answer first = read_answer(reply(revise).text, *task);
    if (!first.parsed()) continue;
    const Answer again = read_answer(reply(reask).text, *task);
    EXPECT_EQ(first.value, again.value);
    EXPECT_EQ(first.confidence, again.confidence);
  }
}

TEST(SimulatorTest, SummaryStatesTheShownAnswersAndTheGroupsPosition) {
  const auto task = choice_task(2);
  ChatRequest request = request_for(task, "a1", 1, "summary");
  request.note.shown = {{"a1", "B", 0.8}, {"a2", "B", std::nullopt}, {"a3", "", std::nullopt}};
  const std::string text = reply(request).text;
  EXPECT_EQ(reply(request).text, text);
  for (const char* sentence : {"a1 concluded B with 80% confidence.", "a2 concluded B.",
                               "a3 did not reach a clear final answer.", "Most of the group (2 of 3) holds B."}) {
    EXPECT_NE(text.find(sentence), std::string::npos) << sentence << " in: " << text;
  }
  EXPECT_EQ(text.find("Answer:"), std::string::npos) << "a summary states no answer of its own";

  request.note.shown = {{"a1", "C", 0.6}, {"a2", "A", 0.9}, {"a3", "B", 0.7}};
  EXPECT_NE(reply(request).text.find("The group is split; C has the most support (1 of 3)."), std::string::npos);
  request.note.shown = {{"a1", "D", 0.6}, {"a2", "D", 0.9}};
  EXPECT_NE(reply(request).text.find("The whole group agrees on D."), std::string::npos);
}

TEST(SimulatorTest, RequestWithoutTaskGetsGenericReply) {
  ChatRequest request;
  request.messages = {{"user", "hello"}};
  const ChatResponse r = reply(request);
  EXPECT_NE(r.text.find("Answer: unknown"), std::string::npos);
  EXPECT_GT(r.usage.completion_tokens, 0);
}

TEST(SimulatorTest, UsageCountsPromptAndReplyExactly) {
  const ChatRequest request = request_for(choice_task(2), "a1");
  const ChatResponse r = reply(request);
  EXPECT_EQ(r.usage.prompt_tokens, estimate_prompt_tokens(request.messages));
  EXPECT_EQ(r.usage.completion_tokens, estimate_tokens(r.text));
  EXPECT_EQ(r.usage.cached_tokens, 0);
  EXPECT_FALSE(r.usage.estimated);
  EXPECT_FALSE(r.logprobs.has_value());
}

TEST(SimulatorTest, MaxTokensCutsTheReply) {
  ChatRequest request = request_for(choice_task(2), "a1");
  request.sampling.max_tokens = 10;
  const ChatResponse r = reply(request);
  EXPECT_EQ(r.usage.completion_tokens, 10);
  EXPECT_EQ(r.finish_reason, "length");
}

TEST(SimulatorTest, LogprobsFallWithConfidence) {
  // Mean log-probability (hence perplexity) is a decreasing function of confidence; the minimum
  // token log-probability is below the mean and correlates with confidence.
  std::vector<std::pair<double, LogprobStats>> seen;
  for (int i = 0; i < 200; ++i) {
    const auto task = choice_task(i);
    ChatRequest request = request_for(task, "a1");
    request.sampling.logprobs = true;
    const ChatResponse r = reply(request);
    const Answer answer = read_answer(r.text, *task);
    ASSERT_TRUE(r.logprobs.has_value());
    if (!answer.confidence) continue;
    EXPECT_LE(r.logprobs->min_token_logprob, -std::log(r.logprobs->perplexity) + 1e-12);
    EXPECT_GT(r.logprobs->perplexity, 1.0);
    EXPECT_EQ(r.logprobs->tokens, r.usage.completion_tokens);
    seen.emplace_back(*answer.confidence, *r.logprobs);
  }
  std::sort(seen.begin(), seen.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const std::size_t third = seen.size() / 3;
  double low_min = 0.0, high_min = 0.0, low_ppl = 0.0, high_ppl = 0.0;
  for (std::size_t i = 0; i < third; ++i) {
    low_min += seen[i].second.min_token_logprob;
    low_ppl += seen[i].second.perplexity;
    high_min += seen[seen.size() - 1 - i].second.min_token_logprob;
    high_ppl += seen[seen.size() - 1 - i].second.perplexity;
  }
  EXPECT_LT(low_min, high_min);
  EXPECT_GT(low_ppl, high_ppl);
}

TEST(SimulatorTest, ClientIsSimulatedAndRejectsUnknownProfiles) {
  EventLoop loop;
  EXPECT_TRUE(testing::client(loop)->simulated());
  EXPECT_TRUE(make_simulator_client(loop, default_simulator_params(), "").ok());
  auto bad = make_simulator_client(loop, default_simulator_params(), "genius");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("genius"), std::string::npos);
  EXPECT_NE(bad.error().message.find("default, strong, weak"), std::string::npos) << bad.error().message;
}

// A policy file applies to the agents of the model by name: one naming an agent the model does
// not serve is refused; an instance a1#2 of a served agent may have weights of its own.
TEST(SimulatorTest, APolicyFileMustNameAgentsTheModelServes) {
  EventLoop loop;
  const auto policy = std::filesystem::temp_directory_path() / "parley-simulator-test-policy.json";
  const auto write = [&policy](const std::string& agents) {
    std::ofstream(policy) << R"({"format": "parley-revision-policy-1", "agents": {)" << agents << "}}";
  };
  const std::string weights = R"({"support": 0, "keep": 0, "recognition": 1, "plurality": 0})";
  write(R"("a1": )" + weights + R"(, "a1#2": )" + weights);
  EXPECT_TRUE(make_simulator_client(loop, default_simulator_params(), "default", 0.0, 0.0, policy, {"a1", "a2"}).ok());
  write(R"("a3": )" + weights);
  auto refused = make_simulator_client(loop, default_simulator_params(), "default", 0.0, 0.0, policy, {"a1", "a2"});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("the policy is for agent 'a3', which this model does not serve (its agents: a1, a2)"),
            std::string::npos)
      << refused.error().message;
  write(R"("a3#1": )" + weights);
  EXPECT_FALSE(make_simulator_client(loop, default_simulator_params(), "default", 0.0, 0.0, policy, {"a1"}).ok());
  std::filesystem::remove(policy);
}

TEST(SimulatorTest, NumberAndTextTasksGetPlausibleWrongAnswers) {
  auto number = std::make_shared<Task>();
  number->id = "n1";
  number->question = "A farmer has 40 sheep and buys 2 more. How many sheep are there?";
  number->answer_type = AnswerType::kNumber;
  number->answer = "42";
  number->difficulty = 0.95;  // mostly wrong for the weak profile
  auto text = std::make_shared<Task>();
  text->id = "t1";
  text->question = "Which city is the capital of France, a country in Europe?";
  text->answer_type = AnswerType::kText;
  text->answer = "Paris";
  text->difficulty = 0.95;

  const auto& weak = default_simulator_params()->profiles.at("weak");
  std::set<std::string> numbers, phrases;
  for (int sample = 0; sample < 60; ++sample) {
    const auto n = simulate_reply(*default_simulator_params(), weak, request_for(number, "a1", 0, "sample", sample));
    const auto t = simulate_reply(*default_simulator_params(), weak, request_for(text, "a1", 0, "sample", sample));
    if (auto v = read_answer(n.text, *number).value) numbers.insert(*v);
    if (auto v = read_answer(t.text, *text).value) phrases.insert(*v);
  }
  const std::set<std::string> plausible_numbers = {"42", "43", "41", "46", "38", "44", "40", "84", "21"};
  EXPECT_GT(numbers.size(), 1u);
  for (const auto& v : numbers) EXPECT_TRUE(plausible_numbers.count(v)) << v;
  EXPECT_GT(phrases.size(), 1u);
  for (const auto& v : phrases) EXPECT_FALSE(v.empty());
}

}  // namespace
}  // namespace parley::sim
