#include "protocols/debate.h"

#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {

std::vector<std::size_t> RoundDebate::visible_peers(std::size_t self, int /*round*/,
                                                    std::size_t agent_count) const {
  std::vector<std::size_t> peers;
  for (std::size_t j = 0; j < agent_count; ++j) {
    if (j != self) peers.push_back(j);
  }
  return peers;
}

Async<std::optional<std::string>> RoundDebate::run(Debate& debate) const {
  const std::vector<Agent> agents = debate.agents(static_cast<std::size_t>(agent_count_));
  const std::size_t n = agents.size();

  // Each agent keeps its own conversation: question, its replies, the peers' solutions.
  const ChatMessage question{"user", task_prompt(debate.task())};
  std::vector<std::vector<ChatMessage>> history(n, std::vector<ChatMessage>{question});

  std::vector<Async<Turn>> calls;
  for (std::size_t i = 0; i < n; ++i) {
    TurnInfo info;
    calls.push_back(debate.ask(agents[i], history[i], std::move(info)));
  }
  std::vector<Turn> latest = co_await when_all(std::move(calls));

  for (int round = 1; round <= rounds_; ++round) {
    calls.clear();
    for (std::size_t i = 0; i < n; ++i) {
      history[i].push_back(ChatMessage{"assistant", latest[i].text});
      std::vector<PeerSolution> solutions;
      TurnInfo info;
      info.round = round;
      info.turn = "revise";
      for (std::size_t j : visible_peers(i, round, n)) {
        solutions.push_back({latest[j].agent, latest[j].text});
        info.shown.push_back({latest[j].agent, latest[j].answer.value.value_or(""), latest[j].answer.confidence});
      }
      history[i].push_back(ChatMessage{"user", peer_solutions_prompt(debate.task(), solutions)});
      calls.push_back(debate.ask(agents[i], history[i], std::move(info)));
    }
    latest = co_await when_all(std::move(calls));
  }

  std::vector<Answer> answers;
  for (const auto& turn : latest) answers.push_back(turn.answer);
  const VoteResult vote = majority_vote(answers, debate.task().answer_type);
  debate.event(rounds_, "vote", describe(vote));
  co_return vote.winner;
}

ProtocolInfo debate_protocol() {
  return {"debate",
          "N agents answer, then R rounds of revising after reading all peers; majority vote",
          "Du et al. 2024, Improving Factuality and Reasoning through Multiagent Debate",
          {{"agents", ParamKind::kInt, std::int64_t{3}, 2, 64, "number of agents"},
           {"rounds", ParamKind::kInt, std::int64_t{2}, 0, 20, "debate rounds after the initial answers"}},
          [](const ProtocolParams& p) {
            return std::make_unique<RoundDebate>(static_cast<int>(p.integer("agents")),
                                                 static_cast<int>(p.integer("rounds")));
          }};
}

}  // namespace parley
