// The prompt layout rule (docs/architecture.md, "Prompt layout") holds for every registered
// protocol: on the simulator, with the registry's defaults, with best-of-2 drafts and under a
// token budget, each agent's requests extend its previous request of the same conversation
// (layout::layout_violations says how, and which conversations are fresh by nature). Also the
// checker itself, on hand-made calls.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "llm/simulator_params.h"
#include "parley/simulator.h"
#include "protocols/prompt_layout.h"
#include "protocols/simulated_runs.h"

namespace parley {
namespace {

using simulated::Exchange;

TEST(PromptLayout, EveryProtocolKeepsEachAgentsConversationAppendOnly) {
  SimulatorParams sim = *default_simulator_params();
  sim.format_error_rate = 0.3;  // frequent re-asks, whose requests must extend their turn's too
  const std::vector<simulated::RunSetting> settings = {{1, std::nullopt}, {2, std::nullopt}, {1, 2500}};
  std::set<std::string> continued;  // protocols in which some agent made a later request
  int reasks = 0;
  // Every protocol with its defaults; group_debate also with three stages, so that an author
  // writes two summaries (fresh requests, held to the stable-part-first rule).
  std::vector<std::pair<const ProtocolInfo*, ProtocolParams>> configurations;
  const std::string trigger_model = simulated::bundled_trigger_model(PARLEY_SOURCE_DIR);
  for (const ProtocolInfo& info : protocol_registry())
    configurations.emplace_back(&info, simulated::default_params(info, trigger_model));
  const ProtocolInfo& group_debate = *find_protocol("group_debate");
  ProtocolParams three_stages = simulated::default_params(group_debate, trigger_model);
  three_stages.set("stages", std::int64_t{3});
  configurations.emplace_back(&group_debate, std::move(three_stages));
  int summaries_continued = 0;
  for (const auto& [info, params] : configurations) {
    const auto protocol = info->make(params);
    for (const auto& setting : settings) {
      for (int task_index = 0; task_index < 8; ++task_index) {
        EventLoop loop;
        simulated::RecordingSimulator client(loop, sim);
        const auto task = simulated::generated_task(task_index);
        simulated::run_on(client, loop, *info, params, *protocol, task, 21 + static_cast<std::uint64_t>(task_index), setting);
        for (const std::string& problem : layout::layout_violations(client.chats, *task)) {
          ADD_FAILURE() << info->name << ", task " << task_index << ", best_of " << setting.best_of << ", budget "
                        << setting.budget.value_or(0) << ": " << problem;
        }
        const auto previous = layout::previous_requests(client.chats);
        for (std::size_t i = 0; i < previous.size(); ++i) {
          const Annotations& note = client.chats[i].request.note;
          reasks += !note.repeats.empty();
          if (!previous[i] || !note.repeats.empty()) continue;
          if (note.turn == "summary") ++summaries_continued;
          else if (note.turn.rfind("judge_", 0) != 0 || note.turn == "judge_mad" || note.turn == "judge_final")
            continued.insert(info->name);
        }
      }
    }
  }
  EXPECT_GT(summaries_continued, 0);
  // Every multi-round protocol was exercised: its agents made later requests that the rule
  // applies to (single and self_critique make one request per agent).
  for (const char* name : {"self_consistency", "debate", "ni", "wr", "cr", "ra_cr", "mad", "group_debate", "down", "imad",
                           "svr_mad", "sid_et", "s2_mad"})
    EXPECT_TRUE(continued.count(name)) << name;
  EXPECT_GT(reasks, 50);
}

// ---- The checker -----------------------------------------------------------------------------

std::shared_ptr<const Task> planet_task() {
  auto task = std::make_shared<Task>();
  task->id = "p";
  task->question = "Which planet is largest?";
  task->options = {"Mars", "Jupiter"};
  task->answer_type = AnswerType::kChoice;
  task->answer = "B";
  return task;
}

Exchange call(const std::string& agent, const std::string& turn, std::vector<ChatMessage> messages, std::string reply,
              const std::string& repeats = "", int round = 0, int sample = 0) {
  Exchange e;
  e.request.note.agent = agent;
  e.request.note.turn = turn;
  e.request.note.repeats = repeats;
  e.request.note.round = round;
  e.request.note.sample = sample;
  e.request.messages = std::move(messages);
  e.reply = std::move(reply);
  return e;
}

ChatMessage user(std::string text) { return {"user", std::move(text)}; }
// planet_task's question with its options, as a first request shows it.
const std::string kQ = "Which planet is largest?\n\nA. Mars\nB. Jupiter";
ChatMessage assistant(std::string text) { return {"assistant", std::move(text)}; }

TEST(PromptLayout, AConversationThatGrowsByReplyAndNewMessagesFollowsTheRule) {
  const auto task = planet_task();
  const std::vector<Exchange> calls = {
      call("a1", "answer", {user(kQ)}, "unclear"),
      call("a2", "answer", {user(kQ)}, "A2"),
      call("a1", "reask", {user(kQ), assistant("unclear"), user("format!")}, "A1", "answer"),
      call("a1", "revise", {user(kQ), assistant("A1"), user("peers: A2")}, "R1", "", 1),
      call("a1", "revise", {user(kQ), assistant("A1"), user("peers: A2")}, "R1'", "", 1, 1),  // a second draft
      call("a1", "revise", {user(kQ), assistant("A1"), user("peers: A2"), assistant("R1'"), user("peers"), user("round 2")},
           "R2", "", 2),
  };
  EXPECT_TRUE(layout::layout_violations(calls, *task).empty());
  const auto previous = layout::previous_requests(calls);
  EXPECT_EQ(previous, (std::vector<std::optional<std::size_t>>{std::nullopt, std::nullopt, 0, 2, 3, 4}));
}

TEST(PromptLayout, ARebuiltPromptBreaksTheRule) {
  const auto task = planet_task();
  // mad as it was: each round one user message opening with the round number.
  const std::vector<Exchange> calls = {
      call("a1", "affirmative", {user("Round 1. " + kQ)}, "A1"),
      call("a1", "affirmative", {user("Round 2. " + kQ + ", transcript: A1")}, "A2", "", 1),
  };
  const auto problems = layout::layout_violations(calls, *task);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("request 0 (a1 affirmative in round 0), mad debater: names the round before the question"),
            std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("request 1 (a1 affirmative in round 1), mad debater: does not begin with the agent's previous "
                             "request (request 0): message 0 of 1 differs"),
            std::string::npos)
      << problems[1];
}

TEST(PromptLayout, OnlyAnotherSampleOfTheSameTurnMayRepeatARequest) {
  const auto task = planet_task();
  const std::vector<Exchange> samples = {
      call("a1", "sample", {user(kQ)}, "A", "", 0, 0),
      call("a1", "sample", {user(kQ)}, "B", "", 0, 1),
  };
  EXPECT_TRUE(layout::layout_violations(samples, *task).empty());
  const std::vector<Exchange> same_sample = {
      call("a1", "answer", {user(kQ)}, "A"),
      call("a1", "answer", {user(kQ)}, "A"),
  };
  const auto repeated = layout::layout_violations(same_sample, *task);
  ASSERT_EQ(repeated.size(), 1u);
  EXPECT_NE(repeated[0].find("repeats the agent's previous request (request 0) instead of extending it"), std::string::npos)
      << repeated[0];
  const std::vector<Exchange> next_round = {
      call("a1", "answer", {user(kQ)}, "A"),
      call("a1", "revise", {user(kQ)}, "B", "", 1, 1),
  };
  EXPECT_EQ(layout::layout_violations(next_round, *task).size(), 1u);
}

TEST(PromptLayout, AFirstRequestOpensWithItsInstructionsAndTheQuestion) {
  const auto task = planet_task();
  const auto problems_of = [&](std::vector<ChatMessage> messages) {
    return layout::layout_violations({call("a1", "answer", std::move(messages), "A")}, *task);
  };
  EXPECT_TRUE(problems_of({{"system", "Answer briefly."}, user("Be careful.\n\n" + kQ + "\n\nThis is round 1.")}).empty());
  const auto no_question = problems_of({user("Answer briefly.")});
  ASSERT_EQ(no_question.size(), 1u);
  EXPECT_NE(no_question[0].find("does not show the question in its first user message"), std::string::npos)
      << no_question[0];
  EXPECT_EQ(problems_of({user("Answer briefly."), user(kQ)}).size(), 1u);  // the question comes later
  const auto no_options = problems_of({user("Which planet is largest?")});
  ASSERT_EQ(no_options.size(), 1u);
  EXPECT_NE(no_options[0].find("does not show the options after the question"), std::string::npos) << no_options[0];
  const auto round_first = problems_of({{"system", "This is round 1 of 3."}, user(kQ)});
  ASSERT_EQ(round_first.size(), 1u);
  EXPECT_NE(round_first[0].find("names the round before the question"), std::string::npos) << round_first[0];
  // A fresh judge's first request is held to its shape too: the texts it judges come last.
  const auto judge_first = layout::layout_violations(
      {call("j", "judge_score", {user("Task:\n" + kQ + "\n\nResponse:\n```\ndraft\n```\n\nRate it.")}, "{}")}, *task);
  ASSERT_EQ(judge_first.size(), 1u);
  EXPECT_NE(judge_first[0].find("does not end with the (fenced) texts it judges"), std::string::npos) << judge_first[0];
}

TEST(PromptLayout, TheReplyMustBeTheAgentsOwnAndWhatIsNewComesFromUsers) {
  const auto task = planet_task();
  const std::vector<Exchange> someone_elses = {
      call("a1", "answer", {user(kQ)}, "A1"),
      call("a1", "revise", {user(kQ), assistant("not what a1 said"), user("peers")}, "R1"),
  };
  EXPECT_EQ(layout::layout_violations(someone_elses, *task).size(), 1u);
  const std::vector<Exchange> reply_as_user = {
      call("a1", "answer", {user(kQ)}, "A1"),
      call("a1", "revise", {user(kQ), user("A1"), user("peers")}, "R1"),
  };
  const auto not_assistant = layout::layout_violations(reply_as_user, *task);
  ASSERT_EQ(not_assistant.size(), 1u);
  EXPECT_NE(not_assistant[0].find("the message after the previous request is not the agent's reply"), std::string::npos);
  const std::vector<Exchange> invented = {
      call("a1", "answer", {user(kQ)}, "A1"),
      call("a1", "revise", {user(kQ), assistant("A1"), user("peers"), assistant("made up")}, "R1"),
  };
  EXPECT_EQ(layout::layout_violations(invented, *task).size(), 1u);
  const std::vector<Exchange> nothing_new = {
      call("a1", "answer", {user(kQ)}, "A1"),
      call("a1", "revise", {user(kQ), assistant("A1")}, "R1"),
  };
  EXPECT_EQ(layout::layout_violations(nothing_new, *task).size(), 1u);
  const std::vector<Exchange> bad_reask = {
      call("a1", "answer", {user(kQ)}, "A1"),
      call("a1", "reask", {user(kQ), assistant("other"), user("format!")}, "A1", "answer"),
  };
  EXPECT_EQ(layout::layout_violations(bad_reask, *task).size(), 1u);
}

TEST(PromptLayout, RolesOfOneAgentAreSeparateConversations) {
  const auto task = planet_task();
  // a1 debates and judges: its judge conversation does not continue its debater one.
  const std::vector<Exchange> calls = {
      call("a1", "affirmative", {user("aff " + kQ)}, "A1"),
      call("a1", "judge_mad", {user("judge " + kQ)}, "{}"),
      call("a1", "affirmative", {user("aff " + kQ), assistant("A1"), user("round 2")}, "A2"),
      call("a1", "judge_mad", {user("judge " + kQ), assistant("{}"), user("round 2")}, "{}"),
  };
  EXPECT_TRUE(layout::layout_violations(calls, *task).empty());
  EXPECT_EQ(layout::previous_requests(calls), (std::vector<std::optional<std::size_t>>{std::nullopt, std::nullopt, 0, 1}));
}

TEST(PromptLayout, FreshJudgesMustPutTheirStablePartFirst) {
  const auto task = planet_task();
  const std::string question = "Which planet is largest?\n\nA. Mars\nB. Jupiter";
  const std::string rubric = "Rate the response from 1 to 5. Reply with only a JSON object of this form: {\"score\": 1}";
  const std::vector<Exchange> stable_first = {
      call("j", "judge_score", {user(rubric + "\n\nTask:\n" + question + "\n\nResponse:\n```\nfirst draft\n```")}, "{}"),
      call("j", "judge_score", {user(rubric + "\n\nTask:\n" + question + "\n\nResponse:\n```\nsecond draft\n```")}, "{}"),
  };
  EXPECT_TRUE(layout::layout_violations(stable_first, *task).empty());
  const std::vector<Exchange> rubric_last = {
      call("j", "judge_score", {user("Task:\n" + question + "\n\nResponse:\n```\nfirst draft\n```\n\n" + rubric)}, "{}"),
      call("j", "judge_score", {user("Task:\n" + question + "\n\nResponse:\n```\nsecond draft\n```\n\n" + rubric)}, "{}"),
  };
  const auto problems = layout::layout_violations(rubric_last, *task);
  ASSERT_EQ(problems.size(), 2u);  // the first request as well
  for (const std::string& problem : problems)
    EXPECT_NE(problem.find("does not end with the (fenced) texts it judges"), std::string::npos) << problem;
  const std::vector<Exchange> question_last = {
      call("j", "judge_score", {user(rubric + "\n\nResponse:\n```\nfirst draft\n```\n\nTask:\n" + question)}, "{}"),
      call("j", "judge_score", {user(rubric + "\n\nResponse:\n```\nsecond draft\n```\n\nTask:\n" + question)}, "{}"),
  };
  EXPECT_EQ(layout::layout_violations(question_last, *task).size(), 2u);  // neither ends with the draft it judges
}

TEST(PromptLayout, UnknownTurnKindsAreReported) {
  const auto task = planet_task();
  const auto problems = layout::layout_violations({call("a1", "ponder", {user(kQ)}, "x")}, *task);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("turn kind \"ponder\" belongs to no known conversation"), std::string::npos);
}

TEST(PromptLayout, ChatMlRenderingAndPrefixShares) {
  EXPECT_EQ(layout::render_chatml({{"system", "S"}, {"user", "Hi"}}),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  const std::vector<Exchange> calls = {
      call("a1", "answer", {user("Q")}, "A"),
      call("a1", "revise", {user("Q"), assistant("A"), user("new")}, "R"),
  };
  const auto shares = layout::prefix_shares(calls);
  ASSERT_EQ(shares.size(), 2u);
  // "<|im_start|>user\nQ<|im_end|>\n" (29 bytes) and the generation prompt "<|im_start|>assistant\n"
  // (22): 51 bytes, all of them a prefix of the second request, where the reply "A" follows.
  EXPECT_EQ(shares[0].bytes, 51);
  EXPECT_EQ(shares[0].prefix_bytes, 0);
  EXPECT_EQ(shares[1].prefix_bytes, 51);
  EXPECT_EQ(shares[1].bytes, 29 + 34 + 31 + 22);  // + "...assistant\nA<|im_end|>\n", "...user\nnew<|im_end|>\n"
  layout::PrefixShare total;
  for (const auto& s : shares) total.add(s);
  EXPECT_EQ(total.requests, 2);
  EXPECT_DOUBLE_EQ(total.share(), 51.0 / (51.0 + 116.0));
}

}  // namespace
}  // namespace parley
