#include "protocols/debate.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {

std::vector<std::size_t> RoundDebate::visible_peers(std::size_t self, int /*round*/,
                                                    std::size_t agent_count) const {
  return all_other_seats(self, agent_count);
}

Async<std::optional<std::string>> RoundDebate::run(Debate& debate) const {
  std::vector<Seat> seats = take_seats(debate, static_cast<std::size_t>(agent_count_));
  co_await answer_independently(debate, seats);
  const RevisionPlan plan = [this](int round, const std::vector<Seat>& now) -> Async<std::vector<RevisionInput>> {
    std::vector<RevisionInput> inputs(now.size());
    for (std::size_t i = 0; i < now.size(); ++i) inputs[i].peers = visible_peers(i, round, now.size());
    co_return inputs;
  };
  const int last = co_await run_rounds(debate, seats, rounds_, /*consensus=*/0, plan);  // no early stop
  co_return vote_of_latest(debate, last, seats);
}

// ---- Round machinery -----------------------------------------------------------------------

std::vector<Seat> take_seats(Debate& debate, std::size_t count) {
  const ChatMessage question{"user", task_prompt(debate.task())};
  std::vector<Seat> seats;
  seats.reserve(count);
  for (Agent& agent : debate.agents(count)) seats.push_back(Seat{std::move(agent), {question}, Turn{}});
  return seats;
}

std::vector<std::size_t> all_other_seats(std::size_t self, std::size_t count) {
  std::vector<std::size_t> peers;
  peers.reserve(count);
  for (std::size_t j = 0; j < count; ++j) {
    if (j != self) peers.push_back(j);
  }
  return peers;
}

RevisionPlan all_to_all_plan() {
  return [](int /*round*/, const std::vector<Seat>& now) -> Async<std::vector<RevisionInput>> {
    std::vector<RevisionInput> inputs(now.size());
    for (std::size_t i = 0; i < now.size(); ++i) inputs[i].peers = all_other_seats(i, now.size());
    co_return inputs;
  };
}

Async<void> answer_independently(Debate& debate, std::vector<Seat>& seats, std::size_t first, bool logprobs) {
  std::vector<Async<Turn>> calls;
  calls.reserve(seats.size() - std::min(first, seats.size()));
  for (std::size_t i = first; i < seats.size(); ++i) {
    TurnInfo info;
    info.logprobs = logprobs;
    calls.push_back(debate.ask(seats[i].agent, seats[i].history, std::move(info)));
  }
  std::vector<Turn> turns = co_await when_all(std::move(calls));
  for (std::size_t i = first; i < seats.size(); ++i) seats[i].latest = std::move(turns[i - first]);
}

Async<void> revise_in_parallel(Debate& debate, int round, std::vector<Seat>& seats,
                               std::vector<RevisionInput> inputs) {
  std::vector<Async<Turn>> calls;
  std::vector<std::size_t> asked;  // the seats that do not sit out, in the order of `calls`
  calls.reserve(seats.size());
  asked.reserve(seats.size());
  for (std::size_t i = 0; i < seats.size(); ++i) {
    Seat& seat = seats[i];
    const RevisionInput& input = inputs[i];
    if (input.sits_out) continue;
    asked.push_back(i);
    seat.history.push_back(ChatMessage{"assistant", seat.latest.text});
    TurnInfo info;
    info.round = round;
    info.turn = "revise";
    info.shown = input.briefed;  // the briefing comes first in the prompt
    std::vector<PeerSolution> solutions;
    solutions.reserve(input.peers.size());
    info.shown.reserve(info.shown.size() + input.peers.size());
    for (std::size_t j : input.peers) {
      solutions.push_back({seats[j].latest.agent, seats[j].latest.text});
      info.shown.push_back(peer_view(seats[j].latest));
    }
    seat.history.push_back(
        ChatMessage{"user", peer_solutions_prompt(debate.task(), solutions, input.briefing)});
    calls.push_back(debate.ask(seat.agent, seat.history, std::move(info)));
  }
  std::vector<Turn> turns = co_await when_all(std::move(calls));
  for (std::size_t k = 0; k < asked.size(); ++k) seats[asked[k]].latest = std::move(turns[k]);
}

Async<int> run_rounds(Debate& debate, std::vector<Seat>& seats, int rounds, int consensus,
                      RevisionPlan plan) {
  for (int round = 1; round <= rounds; ++round) {
    std::vector<RevisionInput> inputs = co_await plan(round, seats);
    co_await revise_in_parallel(debate, round, seats, std::move(inputs));
    if (round < rounds && stop_on_consensus(debate, round, seats, consensus)) co_return round;
  }
  co_return rounds;
}

std::vector<ParamSpec> svr_mad_setting_params() {
  return {{"agents", ParamKind::kInt, std::int64_t{6}, 2, 64, "agents of the debate (SVR-MAD §5: 6)"},
          {"rounds", ParamKind::kInt, std::int64_t{2}, 1, 20, "at most this many debate rounds (SVR-MAD §5: 2)"},
          {"consensus", ParamKind::kInt, std::int64_t{5}, 0, 64,
           "stop after a round before the last when this many agents agree (0 = never; SVR-MAD §5: 5)"}};
}

MadSetting svr_mad_setting(const ProtocolParams& p) {
  return {static_cast<int>(p.integer("agents")), static_cast<int>(p.integer("rounds")),
          static_cast<int>(p.integer("consensus"))};
}

bool stop_on_consensus(Debate& debate, int round, const std::vector<Seat>& seats, int consensus) {
  if (consensus <= 0) return false;
  std::vector<Answer> answers;
  for (const Seat& seat : seats) answers.push_back(seat.latest.answer);
  const int agreeing = largest_agreement(answers, debate.task().answer_type);
  if (agreeing < consensus) return false;
  debate.event(round, "stop",
               nlohmann::json{{"reason", "consensus"}, {"round", round}, {"agreeing", agreeing}}.dump());
  return true;
}

PeerView peer_view(const Turn& turn) {
  return PeerView{turn.agent, turn.answer.value.value_or(""), turn.answer.confidence};
}

std::optional<std::string> vote_of_latest(Debate& debate, int round, const std::vector<Seat>& seats) {
  std::vector<Answer> answers;
  for (const Seat& seat : seats) answers.push_back(seat.latest.answer);
  const VoteResult vote = majority_vote(answers, debate.task().answer_type);
  debate.event(round, "vote", describe(vote));
  return vote.winner;
}

ProtocolInfo debate_protocol() {
  return {"debate",
          "N agents answer, then R rounds of revising after reading all peers; majority vote",
          "Du et al. 2024, Improving Factuality and Reasoning in Language Models through Multiagent Debate",
          {{"agents", ParamKind::kInt, std::int64_t{3}, 2, 64, "number of agents"},
           {"rounds", ParamKind::kInt, std::int64_t{2}, 0, 20, "debate rounds after the initial answers"}},
          [](const ProtocolParams& p) {
            return std::make_unique<RoundDebate>(static_cast<int>(p.integer("agents")),
                                                 static_cast<int>(p.integer("rounds")));
          }};
}

}  // namespace parley
