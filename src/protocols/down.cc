// down: Debate Only When Necessary (Eo et al. 2025) as iMAD's baseline (iMAD §5): one agent
// answers with chain-of-thought; the answer is kept when its confidence reaches the threshold
// (0.8, "reported to be most effective in the original paper"), otherwise mad runs from it. The
// confidence is the self-reported one (`confidence: verbal`, the default) or one computed from
// the reply's token log-probabilities (`confidence: logprob`: iMAD §1 describes DOWN's score as
// "typically computed as the average log-probability of the output tokens"; parley puts it on a
// probability scale as exp(mean token log-probability), i.e. 1/perplexity). A reply without
// log-probabilities (a server that returns none) falls back to its stated confidence; a reply
// without the confidence used counts as confidence 0. docs/protocols.md ("down", and "Backend
// capabilities and fallbacks").
#include <cmath>

#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/selective.h"

namespace parley {
namespace {

enum class ConfidenceSource { kVerbal, kLogprob };

std::optional<ConfidenceSource> source_named(const std::string& name) {
  if (name == "verbal") return ConfidenceSource::kVerbal;
  if (name == "logprob") return ConfidenceSource::kLogprob;
  return std::nullopt;
}

class Down final : public Protocol {
 public:
  Down(double threshold, ConfidenceSource source, MadSettings mad)
      : threshold_(threshold), source_(source), mad_(std::move(mad)) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    std::vector<Agent> debaters = debate.agents(2);
    std::vector<ChatMessage> messages = {ChatMessage{"user", task_prompt(debate.task())}};
    TurnInfo info;  // a named value: g++ 12 mishandles prvalue aggregates as coroutine arguments
    info.logprobs = source_ == ConfidenceSource::kLogprob;
    Turn turn = co_await debate.ask(debaters[0], std::move(messages), std::move(info));
    nlohmann::json detail{{"method", "down"},
                          {"threshold", threshold_},
                          {"confidence_source", source_ == ConfidenceSource::kLogprob ? "logprob" : "verbal"}};
    std::optional<double> confidence = turn.answer.confidence;
    if (source_ == ConfidenceSource::kLogprob) {
      if (turn.logprobs) {
        confidence = std::exp(turn.logprobs->mean_token_logprob());
      } else {
        detail["no_logprobs"] =
            "the reply carried no token log-probabilities, so its stated confidence is used";
        detail["confidence_used"] = "verbal";
      }
    }
    detail["confidence"] = confidence ? nlohmann::json(*confidence) : nlohmann::json(nullptr);
    const bool debate_wanted = confidence.value_or(0.0) < threshold_;
    SingleStage single{std::move(turn.answer), std::move(turn.text)};
    co_return co_await keep_or_debate(debate, mad_, std::move(debaters), std::move(single), debate_wanted,
                                      std::move(detail));
  }

 private:
  double threshold_;
  ConfidenceSource source_;
  MadSettings mad_;
};

}  // namespace

ProtocolInfo down_protocol() {
  ParamSpec confidence{"confidence",
                       ParamKind::kString,
                       std::string("verbal"),
                       std::nullopt,
                       std::nullopt,
                       "the single agent's confidence: verbal (its stated confidence) or logprob (exp of its "
                       "mean token log-probability)"};
  confidence.check = [](const ParamValue& v) -> std::string {
    const auto* name = std::get_if<std::string>(&v);
    return name && source_named(*name) ? "" : "expected verbal or logprob";
  };
  std::vector<ParamSpec> params = {
      {"threshold", ParamKind::kDouble, 0.8, 0.0, 1.0, "debate when the single agent's confidence is below this"},
      std::move(confidence)};
  for (ParamSpec& spec : mad_params(true)) params.push_back(std::move(spec));
  ProtocolInfo info{"down",
          "one agent answers; mad runs from its answer only when its confidence is below the threshold",
          "Eo et al. 2025, Debate Only When Necessary (as iMAD's baseline, §5)", std::move(params),
          [](const ProtocolParams& p) {
            return std::make_unique<Down>(p.real("threshold"), *source_named(p.text("confidence")),
                                          mad_settings(p, true));
          }};
  // The single agent is the first debater; the second is seated when it debates.
  info.debaters = [](const ProtocolParams&) -> std::size_t { return 2; };
  return info;
}

}  // namespace parley
