// down: Debate Only When Necessary (Eo et al. 2025) as iMAD's baseline (iMAD §5): one agent
// answers with chain-of-thought and a self-reported confidence; the answer is kept when that
// confidence reaches the threshold (0.8, "reported to be most effective in the original paper"),
// otherwise mad runs from it. A reply without a confidence counts as confidence 0.
#include <fmt/format.h>

#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/selective.h"

namespace parley {
namespace {

class Down final : public Protocol {
 public:
  Down(double threshold, MadSettings mad) : threshold_(threshold), mad_(std::move(mad)) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    std::vector<Agent> debaters = debate.agents(2);
    std::vector<ChatMessage> messages = {ChatMessage{"user", task_prompt(debate.task())}};
    TurnInfo info;  // a named value: g++ 12 mishandles prvalue aggregates as coroutine arguments
    Turn turn = co_await debate.ask(debaters[0], std::move(messages), std::move(info));
    const double confidence = turn.answer.confidence.value_or(0.0);
    nlohmann::json detail{{"method", "down"}, {"threshold", threshold_}};
    detail["confidence"] =
        turn.answer.confidence ? nlohmann::json(*turn.answer.confidence) : nlohmann::json(nullptr);
    SingleStage single{std::move(turn.answer), std::move(turn.text)};
    co_return co_await keep_or_debate(debate, mad_, std::move(debaters), std::move(single),
                                      confidence < threshold_, std::move(detail));
  }

 private:
  double threshold_;
  MadSettings mad_;
};

}  // namespace

ProtocolInfo down_protocol() {
  std::vector<ParamSpec> params = {{"threshold", ParamKind::kDouble, 0.8, 0.0, 1.0,
                                    "debate when the self-reported confidence is below this"}};
  for (ParamSpec& spec : mad_params(true)) params.push_back(std::move(spec));
  return {"down",
          "one agent answers; mad runs from its answer only when its confidence is below the threshold",
          "Eo et al. 2025, Debate Only When Necessary (as iMAD's baseline, §5)", std::move(params),
          [](const ProtocolParams& p) {
            return std::make_unique<Down>(p.real("threshold"), mad_settings(p, true));
          }};
}

}  // namespace parley
