// s2_mad: S2-MAD (Zeng et al. 2025, "S2-MAD: Breaking the Token Barrier to Enhance Multi-Agent
// Debate Efficiency", NAACL 2025) in its answer-equivalence variant, as the SVR-MAD paper runs it
// as a baseline (SVR-MAD App. A, "S2-MAD"): agents with identical viewpoints need not exchange
// them, so in each round an agent is shown only the peers whose latest answer differs from its
// own, and an agent that no peer disagrees with makes no call that round and keeps its answer.
// Rounds as in SVR-MAD's MAD setting (§5: 6 agents, at most two rounds, stop after round one when
// at least five agree); majority vote at the end. S2-MAD's other variant, response-embedding
// similarity for answers that cannot be compared, needs an embeddings client parley does not
// have: not implemented. Choices: docs/protocols.md.
#include "protocols/debate.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {
namespace {

// S2-MAD's answer equivalence (App. A (1), closed-form answers): both answers parsed and the same
// answer by the rule that matches gold answers. An unparsed answer is equivalent to none.
bool equivalent(const Task& task, const Answer& a, const Answer& b) {
  return a.value && b.value && same_answer(task, *a.value, *b.value);
}

class S2Mad final : public Protocol {
 public:
  S2Mad(int agents, int rounds, int consensus)
      : agent_count_(agents), rounds_(rounds), consensus_(consensus) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    std::vector<Seat> seats = take_seats(debate, static_cast<std::size_t>(agent_count_));
    co_await answer_independently(debate, seats);
    const Task& task = debate.task();
    const RevisionPlan disagreeing_only = [&task](int /*round*/, const std::vector<Seat>& now) {
      std::vector<RevisionInput> inputs(now.size());
      for (std::size_t i = 0; i < now.size(); ++i) {
        for (std::size_t j = 0; j < now.size(); ++j) {
          if (j != i && !equivalent(task, now[i].latest.answer, now[j].latest.answer))
            inputs[i].peers.push_back(j);
        }
        inputs[i].sits_out = inputs[i].peers.empty();  // everyone agrees with it: nothing to debate
      }
      return inputs;
    };
    const int last = co_await run_rounds(debate, seats, rounds_, consensus_, disagreeing_only);
    co_return vote_of_latest(debate, last, seats);
  }

 private:
  int agent_count_;
  int rounds_;
  int consensus_;
};

}  // namespace

ProtocolInfo s2_mad_protocol() {
  return {
      "s2_mad",
      "N agents answer, then rounds where each reads only the peers whose answer differs; majority vote",
      "Zeng et al. 2025, S2-MAD: Breaking the Token Barrier to Enhance Multi-Agent Debate Efficiency "
      "(answer equivalence, as SVR-MAD's baseline, App. A)",
      svr_mad_setting_params(),
      [](const ProtocolParams& p) {
        const MadSetting setting = svr_mad_setting(p);
        return std::make_unique<S2Mad>(setting.agents, setting.rounds, setting.consensus);
      }};
}

}  // namespace parley
