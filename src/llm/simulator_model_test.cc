// The generative model's behaviour: ability ordering, over-confidence, peer influence, and the
// papers' qualitative fact about debate, measured over synthetic tasks.
#include <array>
#include <iostream>
#include <map>

#include <gtest/gtest.h>

#include "llm/simulator_answers.h"
#include "llm/simulator_model.h"
#include "llm/simulator_reply.h"
#include "parley/labels.h"
#include "llm/simulator_test_support.h"

namespace parley::sim {
namespace {

using testing::choice_task;
using testing::read_answer;
using testing::request_for;

constexpr int kTasks = 300;

const SimulatorParams& params() { return *default_simulator_params(); }
const SimulatorProfile& profile(const std::string& name) { return params().profiles.at(name); }

Decision initial(const std::string& profile_name, const Task& task, const std::string& agent) {
  Annotations note;
  note.task = std::shared_ptr<const Task>(std::shared_ptr<const Task>{}, &task);
  note.seed = 11;
  note.agent = agent;
  note.turn = "answer";
  return decide(params(), profile(profile_name), note, 0.7, task_latents(params(), task));
}

TEST(SimulatorModelTest, StrongerProfilesAreMoreAccurate) {
  std::map<std::string, int> correct;
  for (int i = 0; i < kTasks; ++i) {
    const auto task = choice_task(i);
    for (const char* name : {"weak", "default", "strong"}) correct[name] += initial(name, *task, "a1").correct;
  }
  EXPECT_GT(correct["strong"], correct["default"]);
  EXPECT_GT(correct["default"], correct["weak"]);
  // The gaps are large, not noise: a = 0.4 / 0.6 / 0.8 with k = 6.
  EXPECT_GT(correct["strong"] - correct["weak"], kTasks / 5);
}

TEST(SimulatorModelTest, TaskDifficultyOverridesTheDrawnOne) {
  int easy = 0, hard = 0;
  for (int i = 0; i < kTasks; ++i) {
    easy += initial("default", *choice_task(i, 0.05), "a1").correct;
    hard += initial("default", *choice_task(i, 0.95), "a1").correct;
  }
  EXPECT_GT(easy, kTasks * 8 / 10);
  EXPECT_LT(hard, kTasks * 3 / 10);
}

TEST(SimulatorModelTest, WrongAnswersAreOverconfidentAndCorrelated) {
  double wrong_confidence = 0.0, right_confidence = 0.0;
  int wrong = 0, right = 0, wrong_pairs = 0, same_wrong_pairs = 0;
  for (int i = 0; i < kTasks; ++i) {
    const auto task = choice_task(i);
    const Decision a = initial("default", *task, "a1");
    const Decision b = initial("default", *task, "a2");
    for (const Decision* d : {&a, &b}) {
      EXPECT_GT(d->confidence, 0.0);
      EXPECT_LT(d->confidence, 1.0);
      (d->correct ? right_confidence : wrong_confidence) += d->confidence;
      ++(d->correct ? right : wrong);
    }
    if (!a.correct && !b.correct) {
      ++wrong_pairs;
      same_wrong_pairs += a.answer == b.answer;
    }
  }
  ASSERT_GT(wrong, 20);
  // Confident hallucination: wrong answers (accuracy 0) are stated with ~70 % confidence.
  EXPECT_GT(wrong_confidence / wrong, 0.6);
  EXPECT_GT(right_confidence / right, wrong_confidence / wrong);
  // Three wrong options: independent errors would coincide a third of the time; the attractor
  // (ρ = 0.6) makes it about 0.6² + 0.4²/2 = 0.44.
  ASSERT_GT(wrong_pairs, 20);
  EXPECT_GT(static_cast<double>(same_wrong_pairs) / wrong_pairs, 0.36);
}

// Revision of `own` after both peers state `peer_answer` with the given confidence.
Decision revise(const Task& task, const std::string& own, const std::string& peer_answer, double peer_confidence) {
  Annotations note;
  note.task = std::shared_ptr<const Task>(std::shared_ptr<const Task>{}, &task);
  note.seed = 11;
  note.agent = "a1";
  note.round = 1;
  note.turn = "revise";
  note.shown = {{"a2", peer_answer, peer_confidence}, {"a3", peer_answer, peer_confidence}};
  note.own_previous = own;
  return decide(params(), profile("default"), note, 0.7, task_latents(params(), task));
}

std::string wrong_letter(const Task& task) { return task.answer == "A" ? "B" : "A"; }

// The attack setting (docs/simulator.md, "Compromised agents"): a compromised agent argues the
// task's attractor in its first answer and every revision, even when every peer confidently
// states the gold, at a confidence around adversary_confidence_mean (0.92) — above what honest
// agents state for wrong answers (~0.7), which is what makes it persuasive.
TEST(SimulatorModelTest, ACompromisedAgentHoldsTheAttractorConfidentlyWhateverItIsShown) {
  double confidence = 0.0;
  int turns = 0;
  for (int i = 0; i < kTasks; ++i) {
    const auto task = choice_task(i);
    const std::string attractor = task_latents(params(), *task).answers.wrong.front();
    Annotations note;
    note.task = task;
    note.seed = 11;
    note.agent = "a5";
    note.turn = "answer";
    note.compromised = true;
    const Decision first = decide(params(), profile("strong"), note, 0.7, task_latents(params(), *task));
    EXPECT_EQ(first.answer, attractor);
    EXPECT_FALSE(first.correct);
    note.round = 1;
    note.turn = "revise";
    note.own_previous = attractor;
    note.shown = {{"a1", task->answer, 0.99}, {"a2", task->answer, 0.99}, {"a3", task->answer, 0.99}};
    const Decision revised = decide(params(), profile("strong"), note, 0.7, task_latents(params(), *task));
    EXPECT_EQ(revised.answer, attractor);
    EXPECT_EQ(revised.previous, attractor);
    EXPECT_FALSE(revised.switched);
    for (const Decision* d : {&first, &revised}) {
      confidence += d->confidence;
      ++turns;
    }
  }
  EXPECT_NEAR(confidence / turns, 0.92, 0.02);
}

// Eq. (26b): with adversary_yield y the adversary adopts the plurality of what it was shown, when
// that is not its own answer, with probability y × the plurality's share of the shown peers; once
// it has yielded it holds the yielded answer. y = 0 (shipped) is the never-yielding adversary.
TEST(SimulatorModelTest, ACompromisedAgentYieldsToThePluralityItIsShownWithProbabilityYieldTimesShare) {
  SimulatorParams yielding = params();
  yielding.adversary_yield = 0.6;
  int yielded = 0, yielded_to_two = 0;
  constexpr int kDraws = 4000;
  for (int i = 0; i < kDraws; ++i) {
    const auto task = choice_task(i);
    const TaskLatents latents = task_latents(yielding, *task);
    const std::string attractor = latents.answers.wrong.front();
    Annotations note;
    note.task = task;
    note.seed = 11;
    note.agent = "a5";
    note.round = 1;
    note.turn = "revise";
    note.compromised = true;
    note.own_previous = attractor;
    // Three of four shown peers state the gold: the plurality's share is 3/4.
    note.shown = {{"a1", task->answer, 0.9}, {"a2", task->answer, 0.9}, {"a3", attractor, 0.9},
                  {"a4", task->answer, 0.9}};
    const Decision d = decide(yielding, profile("default"), note, 0.7, latents);
    EXPECT_EQ(d.previous, attractor);
    EXPECT_EQ(d.switched, d.answer != attractor);
    if (d.switched) {
      EXPECT_EQ(d.answer, task->answer);
      EXPECT_TRUE(d.correct);
      EXPECT_EQ(d.persuader, "a1");
      ++yielded;
    }
    // Half the shown peers on the gold, half on a third answer: a tie, broken by answer order;
    // either way the share is 1/2.
    std::string third;  // a wrong answer that is not the attractor
    for (const char* letter : {"A", "B", "C", "D"})
      if (third.empty() && letter != task->answer && letter != attractor) third = letter;
    note.shown = {{"a1", task->answer, 0.9}, {"a2", third, 0.9}};
    yielded_to_two += decide(yielding, profile("default"), note, 0.7, latents).switched;
    // Shown only its own answer, it has nothing to yield to.
    note.shown = {{"a1", attractor, 0.9}};
    EXPECT_FALSE(decide(yielding, profile("default"), note, 0.7, latents).switched);
    // Having yielded, it holds the yielded answer whatever it is shown.
    note.own_previous = task->answer;
    note.shown = {{"a1", attractor, 0.99}, {"a2", attractor, 0.99}};
    const Decision held = decide(yielding, profile("default"), note, 0.7, latents);
    EXPECT_EQ(held.answer, task->answer);
    EXPECT_FALSE(held.switched);
  }
  // Binomial(4000, 0.45): sd 31; (4000, 0.3): sd 29.
  EXPECT_NEAR(yielded, kDraws * 0.6 * 0.75, 4 * 31);
  EXPECT_NEAR(yielded_to_two, kDraws * 0.6 * 0.5, 4 * 29);
  // Shipped: never.
  const auto task = choice_task(0);
  Annotations note;
  note.task = task;
  note.round = 1;
  note.turn = "revise";
  note.compromised = true;
  note.shown = {{"a1", task->answer, 0.99}};
  EXPECT_FALSE(decide(params(), profile("default"), note, 0.7, task_latents(params(), *task)).switched);
}

TEST(SimulatorModelTest, ConfidentCorrectPeersUsuallyPersuadeAWrongAgent) {
  int switched_to_gold = 0;
  for (int i = 0; i < kTasks; ++i) {
    const auto task = choice_task(i);
    const Decision d = revise(*task, wrong_letter(*task), task->answer, 0.9);
    EXPECT_EQ(d.previous, wrong_letter(*task));
    switched_to_gold += d.correct;
  }
  EXPECT_GT(switched_to_gold, kTasks / 2);
}

TEST(SimulatorModelTest, ConfidentWrongPeersSometimesButRarelyFlipACorrectAgent) {
  int flipped = 0;
  for (int i = 0; i < kTasks; ++i) {
    const auto task = choice_task(i);
    const Decision d = revise(*task, task->answer, wrong_letter(*task), 0.9);
    flipped += !d.correct;
    if (!d.correct) {
      EXPECT_EQ(d.answer, wrong_letter(*task));
    }
  }
  EXPECT_GT(flipped, 0);
  EXPECT_LT(flipped, kTasks / 2);
}

// MAD's negative in round 1, shown the affirmative's answer `affirmative`.
ChatRequest negative_request(std::shared_ptr<const Task> task, const std::string& affirmative, int index) {
  ChatRequest r = request_for(std::move(task), "a2", 1, "negative", index);
  r.note.shown = {PeerView{"a1", affirmative, 0.8, "Affirmative"}};
  return r;
}

TEST(SimulatorModelTest, MadNegativeUsuallyArguesAgainstTheAffirmative) {
  int against_gold = 0, finds_gold = 0;
  for (int i = 0; i < kTasks; ++i) {
    const auto task = choice_task(i);
    const TaskLatents latents = task_latents(params(), *task);
    // Against a right affirmative: its own wrong view, or the dissent half the times its
    // own view is right too.
    const ChatRequest right = negative_request(task, task->answer, i);
    against_gold += decide(params(), profile("default"), right.note, 0.7, latents).answer != task->answer;
    // Against a wrong affirmative: its own right view, or a dissent that may land on the gold.
    const ChatRequest wrong = negative_request(task, wrong_letter(*task), i);
    finds_gold += decide(params(), profile("default"), wrong.note, 0.7, latents).answer == task->answer;
  }
  // P(own view wrong) ≈ 0.43 plus 0.57 × negative_dissent 0.5: about 0.7; it sometimes agrees.
  EXPECT_GT(against_gold, kTasks * 55 / 100);
  EXPECT_LT(against_gold, kTasks * 90 / 100);
  EXPECT_GT(finds_gold, kTasks / 2);
}

TEST(SimulatorModelTest, MadReasksStateTheAnswerOfTheTurnTheyRepeat) {
  for (int i = 0; i < 40; ++i) {
    const auto task = choice_task(i);
    const ChatRequest negative = negative_request(task, task->answer, i);
    ChatRequest reask = negative;
    reask.note.turn = "reask";
    reask.note.repeats = "negative";
    const auto& p = params();
    const auto first = read_answer(simulate_reply(p, profile("default"), negative).text, *task).value;
    if (first) {  // else a format error
      EXPECT_EQ(first, read_answer(simulate_reply(p, profile("default"), reask).text, *task).value) << i;
    }
    ChatRequest affirmative = request_for(task, "a1", 1, "affirmative", i);
    ChatRequest affirmative_reask = affirmative;
    affirmative_reask.note.turn = "reask";
    affirmative_reask.note.repeats = "affirmative";
    EXPECT_EQ(decide(p, profile("default"), affirmative.note, 0.7, task_latents(p, *task)).answer,
              decide(p, profile("default"), affirmative_reask.note, 0.7, task_latents(p, *task)).answer);
    EXPECT_EQ(turn_model(affirmative.note), TurnModel::kInitial);
    affirmative.note.round = 2;
    EXPECT_EQ(turn_model(affirmative.note), TurnModel::kRevise);
    EXPECT_EQ(turn_model(reask.note), TurnModel::kRevise);
  }
}

TEST(SimulatorModelTest, AgreementRaisesConfidence) {
  double agreeing = 0.0, opposed = 0.0;
  int kept = 0;
  for (int i = 0; i < kTasks; ++i) {
    const auto task = choice_task(i);
    agreeing += revise(*task, task->answer, task->answer, 0.9).confidence;
    const Decision d = revise(*task, task->answer, wrong_letter(*task), 0.9);
    if (d.correct) {
      opposed += d.confidence;
      ++kept;
    }
  }
  ASSERT_GT(kept, 0);
  // η = 0.3 pulls toward the peer share (1 when all agree, 0 when all oppose).
  EXPECT_GT(agreeing / kTasks, opposed / kept + 0.15);
}

// ---- The qualitative fact, through the client, with annotations as the debate protocol sets them.

struct AgentState {
  std::string name;
  std::optional<Answer> latest_turn;     // last turn's parse (may be unparsed)
  std::optional<std::string> remembered; // last parsed answer (own_previous)
};

Async<Answer> ask(LlmClient* client, ChatRequest request) {
  const Task& task = *request.note.task;
  ChatResult first = co_await client->chat(request);
  ChatResponse response = std::get<ChatResponse>(std::move(first));
  Answer answer = read_answer(response.text, task);
  if (!answer.parsed()) {
    request.messages.push_back({"assistant", response.text});
    request.messages.push_back({"user", "Your reply did not state a final answer."});
    request.note.turn = "reask";
    ChatResult again = co_await client->chat(request);
    answer = read_answer(std::get<ChatResponse>(again).text, task);
  }
  co_return answer;
}

struct Outcome {
  std::array<bool, 3> initially_correct{};
  std::array<bool, 3> finally_correct{};
  bool majority_correct = false;
};

Async<void> debate(LlmClient* client, std::shared_ptr<const Task> task, Outcome* out) {
  std::array<AgentState, 3> agents{AgentState{"a1"}, AgentState{"a2"}, AgentState{"a3"}};
  for (int round = 0; round <= 2; ++round) {
    std::vector<Async<Answer>> turns;
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ChatRequest r = request_for(task, agents[i].name, round, round == 0 ? "answer" : "revise");
      if (round > 0) {
        for (std::size_t j = 0; j < agents.size(); ++j) {
          if (j == i) continue;
          const Answer& seen = *agents[j].latest_turn;
          r.note.shown.push_back({agents[j].name, seen.value.value_or(""), seen.confidence});
        }
        r.note.own_previous = agents[i].remembered;
      }
      turns.push_back(ask(client, std::move(r)));
    }
    const std::vector<Answer> answers = co_await when_all(std::move(turns));
    for (std::size_t i = 0; i < agents.size(); ++i) {
      agents[i].latest_turn = answers[i];
      if (answers[i].parsed()) agents[i].remembered = answers[i].value;
      const bool correct = answers[i].value == task->answer;
      if (round == 0) out->initially_correct[i] = correct;
      if (round == 2) out->finally_correct[i] = correct;
    }
  }
  std::map<std::string, int> votes;
  for (const auto& a : agents)
    if (a.remembered) ++votes[*a.remembered];
  int best = 0;
  std::string winner;
  for (const auto& [value, count] : votes) {
    if (count > best) {
      best = count;
      winner = value;
    }
  }
  out->majority_correct = best >= 2 && winner == task->answer;
}

TEST(SimulatorModelTest, DebateMajorityBeatsASingleAgentYetFlipsSomeCorrectAnswers) {
  EventLoop loop;
  auto client = testing::client(loop);
  std::vector<Outcome> outcomes(kTasks);
  for (int i = 0; i < kTasks; ++i) loop.spawn(debate(client.get(), choice_task(i), &outcomes[static_cast<std::size_t>(i)]));
  loop.run();

  int single = 0, majority = 0, right_to_wrong = 0, wrong_to_right = 0;
  for (const auto& o : outcomes) {
    single += o.initially_correct[0] + o.initially_correct[1] + o.initially_correct[2];
    majority += o.majority_correct;
    for (std::size_t i = 0; i < 3; ++i) {
      right_to_wrong += o.initially_correct[i] && !o.finally_correct[i];
      wrong_to_right += !o.initially_correct[i] && o.finally_correct[i];
    }
  }
  const double single_accuracy = single / (3.0 * kTasks);
  const double majority_accuracy = static_cast<double>(majority) / kTasks;
  std::cout << "single " << single_accuracy << ", majority after 2 rounds " << majority_accuracy
            << ", right->wrong " << right_to_wrong << ", wrong->right " << wrong_to_right << "\n";
  EXPECT_GT(majority_accuracy, single_accuracy + 0.03);
  EXPECT_GT(right_to_wrong, 0);
  EXPECT_GT(wrong_to_right, right_to_wrong);
}

// Label tasks: the wrong answers are the set's other labels; on an ordered scale nearest the gold
// first, and the attractor is one of the two nearest (docs/simulator.md, "Wrong answers").
TEST(SimulatorAnswers, LabelTasksDrawWrongLabelsFromTheSetNearestFirstOnAScale) {
  auto scale = LabelSet::make({"Negative", "Weakly negative", "Neutral", "Weakly positive", "Positive"},
                              {{"+1", "Weakly positive"}}, true);
  Task task;
  task.answer_type = AnswerType::kLabel;
  task.answer = "Weakly positive";
  task.labels = std::make_shared<const LabelSet>(std::move(*scale));
  const AnswerSpace even = answer_space(task, 4);
  EXPECT_EQ(even.gold, "Weakly positive");
  EXPECT_EQ(even.wrong, (std::vector<std::string>{"Neutral", "Positive", "Weakly negative", "Negative"}));
  const AnswerSpace odd = answer_space(task, 7);
  EXPECT_EQ(odd.wrong, (std::vector<std::string>{"Positive", "Neutral", "Weakly negative", "Negative"}));
  EXPECT_TRUE(matches_gold(task, "+1"));
  EXPECT_TRUE(matches_gold(task, "weakly-positive"));
  EXPECT_FALSE(matches_gold(task, "Positive"));

  auto unordered = LabelSet::make({"Flu", "Cold", "Measles"}, {}, false);
  task.answer = "Cold";
  task.labels = std::make_shared<const LabelSet>(std::move(*unordered));
  const AnswerSpace space = answer_space(task, 1);
  EXPECT_EQ(space.wrong, (std::vector<std::string>{"Measles", "Flu"}));  // rotated by the task's hash
  task.labels = nullptr;  // no set: compared by label key
  task.answer = "Lyme disease";
  EXPECT_TRUE(matches_gold(task, "lyme-disease"));
  EXPECT_FALSE(matches_gold(task, "lyme"));
}

}  // namespace
}  // namespace parley::sim
