// single: one agent answers with chain-of-thought (iMAD's CoT baseline; a single answer is the
// reference of every selective method).
#include "protocols/prompts.h"
#include "protocols/protocols.h"

namespace parley {
namespace {

class Single final : public Protocol {
 public:
  Async<std::optional<std::string>> run(Debate& debate) const override {
    const Agent agent = debate.agents(1)[0];
    std::vector<ChatMessage> messages = {ChatMessage{"user", task_prompt(debate.task())}};
    TurnInfo info;
    Turn turn = co_await debate.ask(agent, std::move(messages), std::move(info));
    co_return turn.answer.value;
  }
};

}  // namespace

ProtocolInfo single_protocol() {
  ProtocolInfo info{"single", "one agent, chain-of-thought", "Wei et al. 2022 (iMAD's CoT baseline)", {},
          [](const ProtocolParams&) { return std::make_unique<Single>(); }};
  info.debaters = [](const ProtocolParams&) -> std::size_t { return 1; };
  return info;
}

}  // namespace parley
