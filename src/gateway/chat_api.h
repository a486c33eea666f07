#pragma once
// The OpenAI chat-completions wire format, at the gateway's edge: a request body read into a
// CompletionRequest (or the ApiError to answer with), and a served debate written back as a chat
// completion, as stream chunks, or as an error body. Nothing past this file sees the JSON.
// The extension object `parley` (request and response) is documented in docs/formats.md,
// "parley serve".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parley/chat.h"
#include "parley/task.h"
#include "parley/transcript.h"

namespace parley::gateway {

// An OpenAI-style error: `{"error": {"message", "type", "param", "code"}}` with an HTTP status.
struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // "" = null
  std::string code;   // "" = null
};
std::string error_json(const ApiError& error);

struct CompletionRequest {
  std::string model;
  // The last user message, and what the debate is asked: with options inferred from it, the
  // question without its option lines.
  std::string question;
  AnswerType answer_type = AnswerType::kText;
  std::vector<std::string> options;
  bool options_inferred = false;  // read off "A) …" lines rather than given in `parley.options`
  std::optional<std::string> gold;  // parley.gold: the reference answer, for evaluation traffic
  std::optional<double> tolerance;
  std::optional<std::string> task_id;  // parley.task_id: how the debate's task is stored
  std::optional<std::uint64_t> seed;   // the request's `seed`, the debate's seed
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  std::optional<std::int64_t> budget_tokens;  // parley.budget_tokens
  std::optional<double> deadline_s;           // parley.deadline_s
};

// Reads a chat-completions body. Sampling parameters (temperature, max_tokens, …) are accepted
// and ignored: each served model's agents have their own. What parley cannot honour (n > 1,
// tools, logprobs, non-text content) is an error naming the parameter.
std::variant<CompletionRequest, ApiError> parse_completion_request(std::string_view body);

// Where `asked`, the task a request describes, differs from `known`, the task already under its
// id (stored, or in a debate in flight): "question", "options", "answer_type", "gold" or
// "tolerance", the first that differs; nullopt when it is the same task. A task id names one
// task: its debates under several models and seeds are paired by `parley compare`.
std::optional<std::string> task_difference(const Task& known, const Task& asked);

// Choice options written one per line after the question, "A) …", "(B) …", "C. …" or "D: …",
// consecutive from A, at least two: the options and the question without them; nullopt when the
// question has no such block at its end.
struct InferredChoice {
  std::string question;
  std::vector<std::string> options;
};
std::optional<InferredChoice> infer_options(std::string_view question);

// Token usage of a served debate: every call it made, judges and re-asks included.
struct DebateUsage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  bool estimated = false;  // some call's tokens were counted by parley, not the server
};
DebateUsage usage_of(const Transcript& transcript);

// The assistant message a served debate answers with: the text of the latest agent reply whose
// answer is the final answer (the last round first, then seat order); when no reply states it
// (a budget vote, a judge's pick in other words), "Final answer: <answer>"; with no answer, the
// reason the debate ended.
std::string answer_text(const Transcript& transcript);

// What a client is told of a failed backend call, from its recorded error (MessageRecord::error,
// "<kind>: <message>"): its kind and, for an HTTP status, the status ("backend call failed: HTTP
// 500", "backend call timed out"), never the message, which may hold a backend's address, part of
// its key or its HTML page; the store and the gateway's log keep that.
std::string client_call_error(std::string_view recorded);

// The 502's message for a failed debate: what failed, as client_call_error says it, and the task
// it is stored as (whose transcript has the whole text).
std::string debate_failure_message(const Transcript& transcript);

// What a response says about the debate (the `parley` object).
struct DebateSummary {
  std::string id;  // the completion id, also the stored debate's task id
  std::string model;
  std::string protocol;
  bool simulated = false;
};

// "stop" for a completed debate, "length" when a token or time budget ended it.
const char* finish_reason(const Transcript& transcript);

std::string completion_json(const DebateSummary& summary, const Transcript& transcript, std::int64_t created);

// Stream chunks (`chat.completion.chunk`), each one SSE `data:` payload.
std::string role_chunk_json(const DebateSummary& summary, std::int64_t created);
// One finished call or recorded event of the debate, as a chunk with an empty delta and a
// `parley.progress` object.
std::string call_chunk_json(const DebateSummary& summary, std::int64_t created, const MessageRecord& call);
std::string event_chunk_json(const DebateSummary& summary, std::int64_t created, const EventRecord& event);
// The answer's content, then the finish reason with the debate's `parley` object.
std::string content_chunk_json(const DebateSummary& summary, std::int64_t created, const std::string& content);
std::string finish_chunk_json(const DebateSummary& summary, std::int64_t created, const Transcript& transcript);
// The last chunk when stream_options.include_usage: no choices, the usage.
std::string usage_chunk_json(const DebateSummary& summary, std::int64_t created, const Transcript& transcript);

// GET /v1/models.
std::string models_json(const std::vector<std::string>& models, std::int64_t created);

}  // namespace parley::gateway
