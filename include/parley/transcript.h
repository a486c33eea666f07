#pragma once
// Transcript: the full record of one debate (one task × protocol × seed): every LLM call with
// its tokens, text and parsed answer, every controller event, and the outcome. Produced by the
// protocol base (protocol.h), stored by the Store, exported as one JSONL line, read back by
// the report. Plain values. Each call records the messages it was sent as a suffix of an earlier
// call's (prompt_extends, prompt); rebuild_prompt() puts a call's whole prompt back together.

#include <cstdint>
#include <map>
#include <string_view>
#include <optional>
#include <string>
#include <vector>

#include "parley/chat.h"
#include "parley/result.h"
#include "parley/task.h"

namespace parley {

// One LLM call as seen by the debate.
struct MessageRecord {
  // The call's identity in its debate: its position in issue order (0, 1, ...), so that
  // transcripts list calls in the order they were made whatever order the replies came in.
  int id = 0;
  // On a re-ask (role "reask" or "<turn>_reask"): the id of the call whose turn it repeats,
  // the turn's first call. The metrics fold a re-ask into that turn by this link alone.
  std::optional<int> repeats;
  int round = 0;
  std::string agent;
  std::string role;       // the turn kind: "answer", "revise", "sample", "reask", ... (is_agent_answer_role)
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  bool tokens_estimated = false;
  std::string text;
  std::string reasoning;  // reasoning_content, when the server returned one
  std::optional<std::string> answer;   // canonical answer, absent when unparsed
  std::optional<double> confidence;
  double latency_ms = 0.0;
  int attempts = 1;
  std::optional<std::string> error;    // set when the call failed after its retries
  std::optional<double> min_token_logprob;
  std::optional<double> perplexity;
  // Agents whose messages were put into this call's context by the protocol (peers' solutions,
  // a debate transcript, group summaries), in the order shown. Empty for an independent turn.
  std::vector<std::string> shown;
  // What parley did not take from the server's reply as sent (ChatResponse::warnings).
  std::vector<std::string> warnings;
  // The messages the call was sent (system message included), stored append-only: the id of the
  // most recent earlier call of the same agent whose whole prompt is a prefix of this one's (an
  // agent's conversation grows by appending), and the messages after that prefix — the whole
  // prompt when there is no such call. No prompt for an embedding call, nor in a transcript
  // written before prompts were stored. rebuild_prompt() gives the whole prompt back.
  std::optional<int> prompt_extends;
  std::optional<std::vector<ChatMessage>> prompt;
};

// Whether a call of this role is an agent's own answer to the task ("answer-bearing"), which
// the answer-based metrics read. Calls that judge, moderate or summarise the agents are not:
// a protocol marks such a role by naming it with the prefix "judge", "moderator" or "summary"
// ("judge", "judge_rank", "summary_group1"); nor is an "embedding" call (an embedding model
// reading the agents' replies). A re-ask is of the kind of the call it repeats
// (MessageRecord::repeats); the metrics fold it into that turn.
bool is_agent_answer_role(std::string_view role);

// A controller event that is not an LLM call (a vote, a stop decision, ...).
struct EventRecord {
  int round = 0;
  std::string kind;    // "vote", "stop", "budget", ...
  std::string detail;  // short human-readable description, or compact JSON
};

// kCancelled: cut short because the run was stopped (a call ended kCancelled). Not a result:
// such a debate is never stored, and a resume runs it again.
enum class DebateStatus { kCompleted, kBudget, kFailed, kCancelled };
const char* debate_status_name(DebateStatus status);  // "completed" | "budget" | "failed" | "cancelled"
// The stored statuses only: "cancelled" is not one.
std::optional<DebateStatus> parse_debate_status(std::string_view name);

struct Transcript {
  std::string task_id;
  std::string protocol;  // protocol label from the experiment file
  std::uint64_t seed = 0;
  // The task as the agents were asked it (Task::question, Task::options), so that a reader of the
  // stored run (parley view) shows it without the dataset. Empty in transcripts of older parleys.
  std::string question;
  std::vector<std::string> options;
  std::string gold;
  // How the task's answers compare (Task::answer_type, Task::tolerance), so that a reader of the
  // stored run can compare them as the run did. Absent in transcripts of older parleys.
  std::optional<AnswerType> answer_type;
  std::optional<double> tolerance;
  std::optional<std::string> final_answer;
  bool correct = false;
  DebateStatus status = DebateStatus::kCompleted;
  std::string status_reason;  // why it ended early or failed ("" when completed)
  std::vector<MessageRecord> messages;
  std::vector<EventRecord> events;
  std::map<std::string, double> metrics;  // per-debate metrics (filled by later layers)

  // Totals over messages.
  std::int64_t prompt_tokens() const;
  std::int64_t completion_tokens() const;
  std::int64_t calls() const { return static_cast<std::int64_t>(messages.size()); }
  // Latency of the debate from its calls' latencies: per round, the slowest agent's calls
  // (summed when it was asked more than once); rounds added. Deterministic on the simulator,
  // unlike wall_ms.
  double latency_ms() const;
  bool unparsed() const { return !final_answer.has_value(); }
  double wall_ms = 0.0;       // measured wall time of the debate (not reproducible)
};

// The whole prompt call `id` of `transcript` was sent: the prompts of the chain of calls its
// `prompt_extends` names, oldest first, each call's own `prompt` appended. An Error, naming the
// call, when a call of the chain has no stored prompt, or names a call that does not exist
// (dangling) or is not earlier than itself (which a cycle needs).
Result<std::vector<ChatMessage>> rebuild_prompt(const Transcript& transcript, int id);

// Whether every answer-bearing, judging or summarising call (every call but embeddings) of the
// transcript has its prompt stored.
bool has_prompts(const Transcript& transcript);

}  // namespace parley
