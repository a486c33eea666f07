#pragma once
// The prompt layout rule (docs/architecture.md, "Prompt layout") as code that reads recorded
// requests: which conversation of which agent a request continues, whether it continues it
// append-only, and how much of it a server's prefix cache could reuse. One piece of code for
// the test that holds every protocol to the rule (prompt_layout_test) and for the benchmark
// that measures it (bench/prefix_reuse). Pure functions over one debate's calls.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parley/chat.h"
#include "protocols/simulated_runs.h"

namespace parley::layout {

// An agent's conversations, told apart by the kind of turn (Annotations::turn; a re-ask
// belongs to the turn it repeats). "The same agent" is the agent instance (Annotations::agent:
// a debater such as "a1#2", or a judge such as "a3" or "a1#judge") in one role: an agent
// that debates and also judges (`judges:` naming a debater), or that answers alone before a
// debate opens from its answer (down, imad), holds one conversation per role.
enum class Conversation {
  kDebater,      // answer, revise, sample: a debater of the round-based protocols
  kMadDebater,   // affirmative, negative (mad, and imad/down once they escalate)
  kMadJudge,     // judge_mad, judge_final: mad's judge, reading the growing debate
  kSelfCritique, // self_critique: iMAD's single stage, one request
  // Inherently fresh: every call is a new task, so its requests need not extend each other;
  // the rule for them is that the stable part (instructions, the question) comes first.
  kDraftJudge,   // judge_score, judge_rubric, judge_compare, judge_rank: scoring unrelated drafts
  kGroupSummary, // summary: condensing a group's latest solutions for the other groups
};

// The conversation a request belongs to; nullopt for a turn kind no protocol is known to use
// (a new protocol must be placed here, which the layout test enforces).
std::optional<Conversation> conversation_of(const Annotations& note);
const char* conversation_name(Conversation conversation);
bool is_fresh(Conversation conversation);

// The role a request is reported under: its turn kind, a re-ask under the turn it repeats.
std::string role_of(const Annotations& note);

// Each request's predecessor: the index of the same agent's previous request in the same
// conversation (in the order made), nullopt for its first. Requests of unknown turn kinds have none.
std::vector<std::optional<std::size_t>> previous_requests(const std::vector<simulated::Exchange>& calls);

// Where a debate breaks the rule, one line per problem (empty: it follows it). A
// conversation's first request opens with its stable part: its first non-system message shows
// the question with its options after it, and no round number ("Round 2") comes before the
// question. (What else comes before the question is not checked: the checker does not tell
// instructions from other text.) For each later
// request of a continued conversation, with P its predecessor:
//  - a re-ask is P, P's reply as an assistant message, and the correction;
//  - a request of P's turn and round with another sample index (another sample or draft of
//    one prompt) may be P again;
//  - any other request is P message for message, then the agent's own reply to P's turn (to
//    P, a re-ask of it, or a request repeating it) as an assistant message, then what is new,
//    ending with a user message: it strictly extends P.
// Fresh conversations must instead show the whole question with its options, end with the last
// text they judge or condense, fenced in ``` as parley shows such texts (their stable part
// comes first, what varies last), and after the first share with P a prefix that contains the
// question.
std::vector<std::string> layout_violations(const std::vector<simulated::Exchange>& calls, const Task& task);

// A request as a ChatML chat template renders it, generation prompt included:
// "<|im_start|>{role}\n{content}<|im_end|>\n" per message, then "<|im_start|>assistant\n".
std::string render_chatml(const std::vector<ChatMessage>& messages);

// Length of the longest common prefix of two strings, in bytes.
std::size_t common_prefix(const std::string& a, const std::string& b);

// How much of a request a prefix cache could reuse: the bytes of its rendered form that are a
// prefix of the rendered form of the same agent's previous request in the conversation.
struct PrefixShare {
  std::int64_t requests = 0;
  std::int64_t bytes = 0;         // rendered prompt bytes
  std::int64_t prefix_bytes = 0;  // of those, an exact prefix of the predecessor's
  void add(const PrefixShare& other);
  double share() const { return bytes == 0 ? 0.0 : static_cast<double>(prefix_bytes) / static_cast<double>(bytes); }
};

// One PrefixShare per request of `calls` (requests = 1 each), in order.
std::vector<PrefixShare> prefix_shares(const std::vector<simulated::Exchange>& calls);

}  // namespace parley::layout
