#include "protocols/ordered_rounds.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/hash.h"
#include "protocols/prompts.h"
#include "protocols/vote.h"

namespace parley {
namespace {

// The latest turn of agent `j` up to and including round `round`.
const Turn* latest_turn(const RoundHistory& history, std::size_t j, int round) {
  for (int r = round; r >= 0; --r)
    if (r < static_cast<int>(history.turns.size()) && history.turns[r][j]) return &*history.turns[r][j];
  return nullptr;
}

}  // namespace

std::vector<std::size_t> shuffled_order(Rng& rng, std::size_t count) {
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

Async<RoundPlan> OrderedRounds::plan_round(Debate& debate, int /*round*/, RoundHistory& history) const {
  co_return RoundPlan{shuffled_order(debate.rng(), history.agents.size()), {}};
}

std::vector<std::size_t> OrderedRounds::visible_peers(std::size_t self, int round, const RoundHistory& history) const {
  std::vector<std::size_t> peers;  // in the order they spoke
  switch (visibility_) {
    case Visibility::kNone:
      break;
    case Visibility::kPreviousRound:
      if (round > 0)
        for (std::size_t j : history.spoke[round - 1])
          if (j != self) peers.push_back(j);
      break;
    case Visibility::kCurrentRound:
      // "agents see only current-round contributions": the turns before this one in the round.
      for (std::size_t j : history.spoke[round])
        if (j != self) peers.push_back(j);
      break;
  }
  return peers;
}

Async<Turn> OrderedRounds::take_turn(Debate& debate, std::size_t self, int round, const RoundHistory& history,
                                     std::vector<ChatMessage>& conversation) const {
  std::vector<PeerSolution> solutions;
  TurnInfo info;
  info.round = round;
  for (std::size_t j : visible_peers(self, round, history)) {
    const Turn* peer = latest_turn(history, j, round);
    solutions.push_back({peer->agent, peer->text});
    info.shown.push_back({peer->agent, peer->answer.value.value_or(""), peer->answer.confidence});
  }
  const bool first_turn = conversation.empty();
  info.turn = first_turn ? "answer" : "revise";
  std::string prompt;
  if (first_turn) {
    prompt = solutions.empty() ? task_prompt(debate.task()) : task_prompt_after_peers(debate.task(), solutions);
  } else {
    prompt = solutions.empty() ? reconsider_prompt(debate.task()) : peer_solutions_prompt(debate.task(), solutions);
  }
  conversation.push_back(ChatMessage{"user", std::move(prompt)});
  Turn turn = co_await debate.ask(history.agents[self], conversation, std::move(info));
  conversation.push_back(ChatMessage{"assistant", turn.text});
  co_return turn;
}

Async<std::optional<std::string>> OrderedRounds::run(Debate& debate) const {
  RoundHistory history;
  history.agents = debate.agents(static_cast<std::size_t>(agent_count_));
  const std::size_t n = history.agents.size();
  std::vector<std::vector<ChatMessage>> conversation(n);  // each agent's own context

  for (int round = 0; round < rounds_; ++round) {
    const RoundPlan plan = co_await plan_round(debate, round, history);
    history.turns.emplace_back(n);
    history.spoke.emplace_back();
    std::string order_text;
    for (std::size_t i : plan.order) order_text += (order_text.empty() ? "" : ",") + history.agents[i].name;
    debate.event(round, "order", order_text);
    for (std::size_t i : plan.silenced) debate.event(round, "silenced", history.agents[i].name);

    if (visibility_ == Visibility::kCurrentRound) {
      // WR: one turn after another, each seeing the turns before it.
      for (std::size_t i : plan.order) {
        history.turns[round][i] = co_await take_turn(debate, i, round, history, conversation[i]);
        history.spoke[round].push_back(i);
      }
    } else {
      // NI, CR: no turn depends on another of the same round, so they run concurrently; they
      // are issued in the round's order.
      std::vector<Async<Turn>> calls;
      for (std::size_t i : plan.order) calls.push_back(take_turn(debate, i, round, history, conversation[i]));
      std::vector<Turn> turns = co_await when_all(std::move(calls));
      for (std::size_t k = 0; k < plan.order.size(); ++k) {
        history.turns[round][plan.order[k]] = std::move(turns[k]);
        history.spoke[round].push_back(plan.order[k]);
      }
    }
  }

  // Majority vote over each agent's latest answer (a silenced agent keeps its earlier one).
  std::vector<Answer> answers;
  for (std::size_t i = 0; i < n; ++i)
    if (const Turn* t = latest_turn(history, i, rounds_ - 1)) answers.push_back(t->answer);
  const VoteResult vote = majority_vote(answers, debate.task().answer_type);
  debate.event(rounds_ - 1, "vote", describe(vote));
  co_return vote.winner;
}

}  // namespace parley
