// keep_or_debate: the escalation step shared by imad and down.
#include "protocols/selective.h"

namespace parley {

Async<std::optional<std::string>> keep_or_debate(Debate& debate, const MadSettings& mad,
                                                 std::vector<Agent> debaters, SingleStage single,
                                                 bool debate_wanted, nlohmann::json detail) {
  const bool answered = single.answer.parsed();
  const bool escalate = debate_wanted || !answered;
  detail["decision"] = escalate ? "debate" : "skip";
  detail["single_answer"] = answered ? nlohmann::json(*single.answer.value) : nlohmann::json(nullptr);
  detail["single_correct"] = answered && answers_match(debate.task(), *single.answer.value);
  if (!answered) detail["forced"] = "the single agent gave no parsable answer";
  debate.event(0, "trigger", detail.dump());
  if (!escalate) co_return single.answer.value;
  std::optional<MadOpening> opening;
  if (answered) opening = MadOpening{*single.answer.value, std::move(single.text)};
  co_return co_await run_mad(debate, mad, std::move(debaters), std::move(opening));
}

}  // namespace parley
