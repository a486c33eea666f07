// self_critique: iMAD's structured self-critique stage on its own; its answer is the final answer
// the agent commits to. Running it on a labelled dataset gives `parley train-trigger` its data.
#include "protocols/self_critique.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "protocols/prompts.h"
#include "protocols/protocols.h"

namespace parley {

std::string self_critique_prompt(const Task& task) {
  std::string answer_form;
  switch (task.answer_type) {
    case AnswerType::kChoice:
      answer_form = "<one option letter>";
      break;
    case AnswerType::kNumber:
      answer_form = "<a number>";
      break;
    case AnswerType::kText:
      answer_form = "<a short answer>";
      break;
    case AnswerType::kForecast:
      answer_form = "<a signed percentage, e.g. +0.3%>";
      break;
    case AnswerType::kLabel:
      answer_form = "<a label>";
      break;
  }
  const std::string options = lettered_options(task);
  // App. A.1: "Answer the multiple-choice question. Use a step-by-step chain of thought to
  // justify your initial answer. Then, argue against your own answer with a plausible
  // counter-reasoning — this is not optional. Finally, confirm your final answer and report
  // confidence scores for both the initial belief and the forced disagreement."
  return fmt::format(
      "{}\n\nQuestion: {}\n{}\n"
      "Use a step-by-step chain of thought to justify your initial answer. Then argue against your own "
      "answer "
      "with a plausible counter-reasoning; this is not optional. Finally, confirm your final answer and "
      "report "
      "confidence scores for both the initial belief and the forced disagreement.\n\n"
      "Write your reply in exactly these labelled sections, each label at the start of a line:\n"
      "{}: {}\n{}: <your step-by-step justification>\n{}: <0-100>%\n"
      "{}: <the strongest argument against your initial answer>\n{}: {} (the answer your critique argues "
      "for)\n"
      "{}: <0-100>% (how convincing the critique is)\n{}: {}\n{}: <0-100>%",
      task.answer_type == AnswerType::kChoice ? "Answer the multiple-choice question below."
                                              : "Answer the question below.",
      task.question, options.empty() ? std::string() : "\nOptions:\n" + options + "\n",
      section_label(CritiqueSection::kInitialAnswer), answer_form,
      section_label(CritiqueSection::kInitialReasoning), section_label(CritiqueSection::kInitialConfidence),
      section_label(CritiqueSection::kSelfCritique), section_label(CritiqueSection::kAlternativeAnswer),
      answer_form, section_label(CritiqueSection::kCritiqueConfidence),
      section_label(CritiqueSection::kFinalAnswer), answer_form,
      section_label(CritiqueSection::kFinalConfidence));
}

Async<SelfCritiqueTurn> ask_self_critique(Debate& debate, const Agent& agent) {
  const Task& task = debate.task();
  StructuredAsk ask;
  ask.check = [&task](std::string_view reply) { return parse_self_critique(reply, task).problem(); };
  ask.format_reminder = "Write every labelled section, each label at the start of a line, as asked.";
  ask.reasks = 1;  // "re-asked once, then recorded"
  ask.answer = [&task](std::string_view reply) { return parse_self_critique(reply, task).answer; };
  TurnInfo info;
  info.turn = "self_critique";
  std::vector<ChatMessage> messages = {ChatMessage{"user", self_critique_prompt(task)}};
  StructuredReply reply =
      co_await debate.ask_structured(agent, std::move(messages), std::move(info), std::move(ask));
  SelfCritique parsed = parse_self_critique(reply.text, task);
  // What a trigger needs besides the reply, kept with the transcript so that `parley
  // train-trigger` can rebuild the features and the label (the paper's: whether the
  // self-critique answer is correct) from a stored run alone.
  nlohmann::json detail{{"question", task.question},
                        {"correct", parsed.answer.parsed() && answers_match(task, *parsed.answer.value)}};
  detail["answer"] = parsed.answer.value ? nlohmann::json(*parsed.answer.value) : nlohmann::json(nullptr);
  if (!reply.valid()) detail["malformed"] = reply.problem;
  debate.event(0, "self_critique", detail.dump());
  co_return SelfCritiqueTurn{std::move(reply.text), std::move(parsed)};
}

namespace {

class SelfCritiqueProtocol final : public Protocol {
 public:
  Async<std::optional<std::string>> run(Debate& debate) const override {
    const SelfCritiqueTurn turn = co_await ask_self_critique(debate, debate.agents(1)[0]);
    co_return turn.parsed.answer.value;
  }
};

}  // namespace

ProtocolInfo self_critique_protocol() {
  ProtocolInfo info{"self_critique",
          "one agent answers, argues against its answer and commits to a final one (iMAD's first stage)",
          "Fan et al. 2026, iMAD: Intelligent Multi-Agent Debate (App. A.1)",
          {},
          [](const ProtocolParams&) { return std::make_unique<SelfCritiqueProtocol>(); }};
  info.debaters = [](const ProtocolParams&) -> std::size_t { return 1; };
  return info;
}

}  // namespace parley
