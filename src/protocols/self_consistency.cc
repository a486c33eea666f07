// self_consistency: N independent chain-of-thought samples from one agent, majority vote.
#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {
namespace {

class SelfConsistency final : public Protocol {
 public:
  SelfConsistency(int samples, bool one_per_agent) : samples_(samples), one_per_agent_(one_per_agent) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    // Wang et al.: samples of one agent. one_per_agent: seat i answers once, the very request
    // the debates' round 0 makes (SVR-MAD §5: every method shares the pre-debate replies).
    std::vector<ChatMessage> messages = {ChatMessage{"user", task_prompt(debate.task())}};
    std::vector<Turn> turns;
    if (one_per_agent_) {
      // Named: the calls hold references to the agents until when_all has run them.
      const std::vector<Agent> askers = debate.agents(static_cast<std::size_t>(samples_));
      std::vector<Async<Turn>> calls;
      for (const Agent& agent : askers) {
        TurnInfo info;
        calls.push_back(debate.ask(agent, messages, std::move(info)));
      }
      turns = co_await when_all(std::move(calls));
    } else {
      // One agent's samples are identical requests: one request with n where the server allows.
      const Agent agent = debate.agents(1)[0];
      TurnInfo info;
      info.turn = "sample";
      turns = co_await debate.ask_samples(agent, std::move(messages), std::move(info), samples_);
    }
    std::vector<Answer> answers;
    for (const Turn& turn : turns) answers.push_back(turn.answer);
    const VoteResult vote = majority_vote(answers, debate.task().answer_type);
    debate.event(0, "vote", describe(vote));
    co_return vote.winner;
  }

 private:
  int samples_;
  bool one_per_agent_;
};

}  // namespace

ProtocolInfo self_consistency_protocol() {
  ProtocolInfo info{"self_consistency",
          "N chain-of-thought samples from one agent, majority vote",
          "Wang et al. 2023",
          {{"samples", ParamKind::kInt, std::int64_t{5}, 1, 64, "number of samples"},
           {"one_per_agent", ParamKind::kBool, false, std::nullopt, std::nullopt,
            "each sample from the next seat of the pool, asked exactly as a debate's first answers are "
            "(SVR-MAD's Self Consistency, sharing the debates' pre-debate replies)"}},
          [](const ProtocolParams& p) {
            return std::make_unique<SelfConsistency>(static_cast<int>(p.integer("samples")),
                                                     p.flag("one_per_agent"));
          }};
  info.debaters = [](const ProtocolParams& p) -> std::size_t { return p.flag("one_per_agent") ? static_cast<std::size_t>(p.integer("samples")) : 1; };
  return info;
}

}  // namespace parley
