#include "protocols/prompt_layout.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "protocols/prompts.h"

namespace parley::layout {
namespace {

// How parley's fresh prompts show each text they judge or condense: in a fenced block.
constexpr std::string_view kClosingFence = "\n```";

bool is_reask(const Annotations& note) { return !note.repeats.empty(); }

using Key = std::pair<std::string, Conversation>;

std::optional<Key> key_of(const Annotations& note) {
  const auto conversation = conversation_of(note);
  if (!conversation) return std::nullopt;
  return Key{note.agent, *conversation};
}

std::string where(const simulated::Exchange& call, std::size_t index) {
  return fmt::format("request {} ({} {} in round {})", index, call.request.note.agent, role_of(call.request.note),
                     call.request.note.round);
}

// How many leading messages `a` and `b` have alike (role and content).
std::size_t alike_messages(const std::vector<ChatMessage>& a, const std::vector<ChatMessage>& b) {
  std::size_t same = 0;
  while (same < a.size() && same < b.size() && a[same].role == b[same].role && a[same].content == b[same].content)
    ++same;
  return same;
}

bool starts_with(const std::vector<ChatMessage>& messages, const std::vector<ChatMessage>& prefix) {
  return alike_messages(messages, prefix) == prefix.size();
}

// Where the question block, as question_with_options writes it, ends in `text`, or npos.
std::size_t end_of_question(const std::string& text, const Task& task) {
  const std::string block = question_with_options(task);
  const std::size_t at = text.find(block);
  return at == std::string::npos ? std::string::npos : at + block.size();
}

// A re-ask: an earlier request of the conversation, its reply, and the correction.
std::string reask_problem(const std::vector<simulated::Exchange>& calls, std::size_t index,
                          const std::vector<std::size_t>& earlier) {
  const auto& messages = calls[index].request.messages;
  for (std::size_t e : earlier) {
    const simulated::Exchange& base = calls[e];
    const std::size_t n = base.request.messages.size();
    if (messages.size() == n + 2 && starts_with(messages, base.request.messages) && messages[n].role == "assistant" &&
        messages[n].content == base.reply && messages[n + 1].role == "user")
      return {};
  }
  return "the re-ask does not extend an earlier request of its conversation with that request's reply";
}

// Whether `text` names a round by its number ("Round 2", "round 1"): round-specific text.
bool names_a_round(std::string_view text) {
  for (std::size_t at = 0; at + 6 < text.size(); ++at) {
    if ((text[at] == 'R' || text[at] == 'r') && text.substr(at + 1, 5) == "ound " &&
        std::isdigit(static_cast<unsigned char>(text[at + 6])))
      return true;
  }
  return false;
}

// A conversation's first request: it opens with its stable part. Only instructions (system
// messages, and the first other message's opening) come before the question, which that first
// other message shows, followed by the options; no round number comes before the question.
std::string first_request_problem(const simulated::Exchange& call, const Task& task) {
  const auto& messages = call.request.messages;
  std::size_t first = 0;
  while (first < messages.size() && messages[first].role == "system") ++first;
  if (first == messages.size()) return "has no message but instructions";
  const std::string& text = messages[first].content;
  const std::size_t question_at = text.find(task.question);
  if (question_at == std::string::npos)
    return fmt::format("does not show the question in its first {} message (only instructions may come before it)",
                       messages[first].role);
  if (!task.options.empty() && text.find(lettered_options(task), question_at + task.question.size()) == std::string::npos)
    return "does not show the options after the question";
  std::string before;
  for (std::size_t m = 0; m < first; ++m) before += messages[m].content.str() + "\n";
  before += text.substr(0, question_at);
  if (names_a_round(before)) return "names the round before the question: round-specific text must follow the stable part";
  return {};
}

// A later turn: the agent's reply to the previous turn and what is new appended to its
// request; or that request again as another sample or draft of the same turn.
std::string continuation_problem(const std::vector<simulated::Exchange>& calls, std::size_t index,
                                 std::size_t previous_turn, const std::vector<std::size_t>& earlier) {
  const auto& messages = calls[index].request.messages;
  const auto& before = calls[previous_turn].request.messages;
  if (messages.size() == before.size() && starts_with(messages, before)) {
    const Annotations& now = calls[index].request.note;
    const Annotations& then = calls[previous_turn].request.note;
    if (now.turn == then.turn && now.round == then.round && now.sample != then.sample) return {};
    return fmt::format("repeats the agent's previous request (request {}) instead of extending it", previous_turn);
  }
  if (const std::size_t same = alike_messages(messages, before); same < before.size()) {
    return fmt::format("does not begin with the agent's previous request (request {}): message {} of {} differs",
                       previous_turn, same, before.size());
  }
  if (messages.size() < before.size() + 2) return "continues the previous request without a reply and something new";
  const ChatMessage& reply = messages[before.size()];
  if (reply.role != "assistant") return "the message after the previous request is not the agent's reply";
  bool own_reply = false;
  for (std::size_t e : earlier) {
    // Replies of the previous turn: to its request, its re-asks and its repeats (samples, drafts).
    if (starts_with(calls[e].request.messages, before) && calls[e].reply == reply.content)
      own_reply = true;
  }
  if (!own_reply) return "the assistant message after the previous request is not the agent's reply to it";
  for (std::size_t i = before.size() + 1; i < messages.size(); ++i) {
    if (messages[i].role != "user") return fmt::format("new message {} has role {}, not user", i, messages[i].role);
  }
  return {};
}

// A fresh request: it shows the question with its options and ends with the last text it
// judges (fenced), so that nothing stable follows; after the first, its stable part, question
// included, is shared with the previous one.
std::string fresh_problem(const simulated::Exchange& call, const simulated::Exchange* previous, const Task& task) {
  const std::string now = render_chatml(call.request.messages);
  const std::size_t question_end = end_of_question(now, task);
  if (question_end == std::string::npos) return "does not show the question with its options";
  const std::string& last = call.request.messages.back().content;
  if (!last.ends_with(kClosingFence))
    return "does not end with the (fenced) texts it judges: a stable part comes after what varies";
  if (previous == nullptr) return {};
  const std::size_t shared = common_prefix(now, render_chatml(previous->request.messages));
  if (shared < question_end)
    return fmt::format("shares {} bytes with the previous request, less than its stable part up to the question's end ({})",
                       shared, question_end);
  return {};
}

}  // namespace

std::optional<Conversation> conversation_of(const Annotations& note) {
  const std::string role = role_of(note);
  if (role == "answer" || role == "revise" || role == "sample" || role == "maci_belief" || role == "maci_argue")
    return Conversation::kDebater;
  if (role == "affirmative" || role == "negative") return Conversation::kMadDebater;
  if (role == "judge_mad" || role == "judge_final") return Conversation::kMadJudge;
  if (role == "self_critique") return Conversation::kSelfCritique;
  if (role == "judge_score" || role == "judge_rubric" || role == "judge_compare" || role == "judge_rank" ||
      role == "judge_crit")
    return Conversation::kDraftJudge;
  if (role == "summary") return Conversation::kGroupSummary;
  return std::nullopt;
}

const char* conversation_name(Conversation conversation) {
  switch (conversation) {
    case Conversation::kDebater: return "debater";
    case Conversation::kMadDebater: return "mad debater";
    case Conversation::kMadJudge: return "mad judge";
    case Conversation::kSelfCritique: return "self-critique";
    case Conversation::kDraftJudge: return "draft judge";
    case Conversation::kGroupSummary: return "group summary";
  }
  return "?";
}

bool is_fresh(Conversation conversation) {
  return conversation == Conversation::kDraftJudge || conversation == Conversation::kGroupSummary;
}

std::string role_of(const Annotations& note) { return note.repeats.empty() ? note.turn : note.repeats; }

std::vector<std::optional<std::size_t>> previous_requests(const std::vector<simulated::Exchange>& calls) {
  std::vector<std::optional<std::size_t>> previous(calls.size());
  std::map<Key, std::size_t> last;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto key = key_of(calls[i].request.note);
    if (!key) continue;
    if (const auto it = last.find(*key); it != last.end()) previous[i] = it->second;
    last[*key] = i;
  }
  return previous;
}

std::vector<std::string> layout_violations(const std::vector<simulated::Exchange>& calls, const Task& task) {
  std::vector<std::string> problems;
  std::map<Key, std::vector<std::size_t>> earlier;   // each conversation's requests so far
  std::map<Key, std::size_t> previous_turn;         // its latest request that is not a re-ask
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const Annotations& note = calls[i].request.note;
    const auto key = key_of(note);
    if (!key) {
      problems.push_back(where(calls[i], i) + ": turn kind \"" + role_of(note) +
                         "\" belongs to no known conversation (place it in layout::conversation_of)");
      continue;
    }
    std::string problem;
    const auto it = previous_turn.find(*key);
    const simulated::Exchange* previous = it == previous_turn.end() ? nullptr : &calls[it->second];
    if (is_reask(note)) {
      problem = reask_problem(calls, i, earlier[*key]);
    } else if (is_fresh(key->second)) {
      problem = fresh_problem(calls[i], previous, task);
    } else if (previous == nullptr) {
      problem = first_request_problem(calls[i], task);
    } else {
      problem = continuation_problem(calls, i, it->second, earlier[*key]);
    }
    if (!problem.empty()) problems.push_back(where(calls[i], i) + ", " + conversation_name(key->second) + ": " + problem);
    earlier[*key].push_back(i);
    if (!is_reask(note)) previous_turn[*key] = i;
  }
  return problems;
}

std::string render_chatml(const std::vector<ChatMessage>& messages) {
  std::string out;
  for (const auto& m : messages) out += "<|im_start|>" + m.role + "\n" + m.content.str() + "<|im_end|>\n";
  return out + "<|im_start|>assistant\n";
}

std::size_t common_prefix(const std::string& a, const std::string& b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t same = 0;
  while (same < n && a[same] == b[same]) ++same;
  return same;
}

void PrefixShare::add(const PrefixShare& other) {
  requests += other.requests;
  bytes += other.bytes;
  prefix_bytes += other.prefix_bytes;
}

std::vector<PrefixShare> prefix_shares(const std::vector<simulated::Exchange>& calls) {
  const auto previous = previous_requests(calls);
  std::vector<std::string> rendered;
  rendered.reserve(calls.size());
  for (const auto& call : calls) rendered.push_back(render_chatml(call.request.messages));
  std::vector<PrefixShare> shares(calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    shares[i].requests = 1;
    shares[i].bytes = static_cast<std::int64_t>(rendered[i].size());
    if (previous[i]) shares[i].prefix_bytes = static_cast<std::int64_t>(common_prefix(rendered[i], rendered[*previous[i]]));
  }
  return shares;
}

}  // namespace parley::layout
