// self_consistency: N independent chain-of-thought samples from one agent, majority vote.
#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {
namespace {

class SelfConsistency final : public Protocol {
 public:
  explicit SelfConsistency(int samples) : samples_(samples) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    const Agent agent = debate.agents(1)[0];
    std::vector<Async<Turn>> calls;
    for (int i = 0; i < samples_; ++i) {
      TurnInfo info;
      info.turn = "sample";
      info.sample = i;
      std::vector<ChatMessage> messages = {ChatMessage{"user", task_prompt(debate.task())}};
      calls.push_back(debate.ask(agent, std::move(messages), std::move(info)));
    }
    std::vector<Answer> answers;
    for (auto& turn : co_await when_all(std::move(calls))) answers.push_back(turn.answer);
    const VoteResult vote = majority_vote(answers, debate.task().answer_type);
    debate.event(0, "vote", describe(vote));
    co_return vote.winner;
  }

 private:
  int samples_;
};

}  // namespace

ProtocolInfo self_consistency_protocol() {
  return {"self_consistency",
          "N chain-of-thought samples from one agent, majority vote",
          "Wang et al. 2023",
          {{"samples", ParamKind::kInt, std::int64_t{5}, 1, 64, "number of samples"}},
          [](const ProtocolParams& p) { return std::make_unique<SelfConsistency>(static_cast<int>(p.integer("samples"))); }};
}

}  // namespace parley
