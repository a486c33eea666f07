// sid_et: SID's early-termination stage (Chen et al. 2025, "SID: Multi-LLM Debate Driven by Self
// Signals", arXiv 2510.06843) as the SVR-MAD paper runs it as a baseline (SVR-MAD App. A,
// "SID-ET"): "SID-ET applies a threshold over a single agent's pre-debate min. LL, to determine
// if the question is solvable by a single agent, or requires all-to-all MAD." One agent answers
// with token log-probabilities; when the minimum token log-likelihood of its reply is above the
// threshold its answer is final (so threshold 0 debates every unit: a log-probability is never
// above 0). Otherwise the agents debate all-to-all (Du et al.), the single
// agent's reply being its own initial answer, in SVR-MAD's MAD setting (§5: 6 agents, at most two
// rounds, stop after round one when at least five agree); majority vote of the last round.
// SID's second technique (attention-based message compression) is not part of the baseline
// (App. A). Defaults and choices: docs/protocols.md.
#include <nlohmann/json.hpp>

#include "protocols/debate.h"
#include "protocols/protocols.h"
#include "protocols/selective.h"

namespace parley {
namespace {

class SidEt final : public Protocol {
 public:
  SidEt(int agents, int rounds, int consensus, double threshold)
      : agent_count_(agents), rounds_(rounds), consensus_(consensus), threshold_(threshold) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    std::vector<Seat> seats = take_seats(debate, static_cast<std::size_t>(agent_count_));

    // The single agent's pre-debate answer, with its token log-likelihoods (the self signal).
    TurnInfo info;  // a named value: g++ 12 mishandles prvalue aggregates as coroutine arguments
    info.logprobs = true;
    Turn first = co_await debate.ask(seats[0].agent, seats[0].history, std::move(info));
    nlohmann::json detail{{"method", "sid_et"}, {"threshold", threshold_}};
    std::optional<double> min_logprob;
    if (first.logprobs) min_logprob = first.logprobs->min_token_logprob;
    detail["min_logprob"] = min_logprob ? nlohmann::json(*min_logprob) : nlohmann::json(nullptr);
    if (!min_logprob)
      detail["no_logprobs"] = "the reply carried no token log-probabilities, so the agents debate";
    const bool debate_wanted = !min_logprob || !(*min_logprob > threshold_);
    if (!record_trigger(debate, first.answer, debate_wanted, std::move(detail))) co_return first.answer.value;

    // All-to-all debate; seat 0 keeps its answer as its round-0 turn, the others answer now.
    seats[0].latest = std::move(first);
    co_await answer_independently(debate, seats, 1);
    const RevisionPlan all_to_all = all_to_all_plan();
    const int last = co_await run_rounds(debate, seats, rounds_, consensus_, all_to_all);
    co_return vote_of_latest(debate, last, seats);
  }

 private:
  int agent_count_;
  int rounds_;
  int consensus_;
  double threshold_;
};

}  // namespace

ProtocolInfo sid_et_protocol() {
  std::vector<ParamSpec> params = svr_mad_setting_params();
  params.push_back({"threshold", ParamKind::kDouble, -1.0, -1000.0, 0.0,
                    "keep the single answer when its min token log-likelihood is above this (0: always debate); "
                    "tune it to the skip rate wanted (parley tune-sid-et)"});
  return {
      "sid_et",
      "one agent answers; all-to-all debate only when its min token log-likelihood is below the threshold",
      "Chen et al. 2025, SID: Multi-LLM Debate Driven by Self Signals (early termination, as SVR-MAD's "
      "baseline, App. A)",
      params,
      [](const ProtocolParams& p) {
        const MadSetting setting = svr_mad_setting(p);
        return std::make_unique<SidEt>(setting.agents, setting.rounds, setting.consensus, p.real("threshold"));
      }};
}

}  // namespace parley
