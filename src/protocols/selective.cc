// keep_or_debate: the escalation step shared by imad and down; record_trigger, its event.
#include "protocols/selective.h"

namespace parley {

bool record_trigger(Debate& debate, const Answer& single, bool debate_wanted, nlohmann::json detail) {
  const bool answered = single.parsed();
  const bool escalate = debate_wanted || !answered;
  detail["decision"] = escalate ? "debate" : "skip";
  detail["single_answer"] = answered ? nlohmann::json(*single.value) : nlohmann::json(nullptr);
  detail["single_correct"] = answered && answers_match(debate.task(), *single.value);
  if (!answered) detail["forced"] = "the single agent gave no parsable answer";
  debate.event(0, "trigger", detail.dump());
  return escalate;
}

Async<std::optional<std::string>> keep_or_debate(Debate& debate, const MadSettings& mad,
                                                 std::vector<Agent> debaters, SingleStage single,
                                                 bool debate_wanted, nlohmann::json detail) {
  if (!record_trigger(debate, single.answer, debate_wanted, std::move(detail))) co_return single.answer.value;
  std::optional<MadOpening> opening;
  if (single.answer.parsed()) opening = MadOpening{*single.answer.value, std::move(single.text)};
  co_return co_await run_mad(debate, mad, std::move(debaters), std::move(opening));
}

}  // namespace parley
