#pragma once
// The JSON edge of the OpenAI-compatible client: request bodies out, chat completions, embeddings
// and error bodies in. Pure functions over strings and native types, so each can be tested
// without HTTP.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parley/chat.h"

namespace parley::openai {

// {"model", "messages": [{"role", "content"}], "temperature", "top_p", "max_tokens",
//  "seed" (when set), "logprobs": true (when requested), "n" (when more than 1)}, keys in sorted
// order; invalid UTF-8 in the texts is sent as U+FFFD.
std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const Sampling& sampling, int n = 1);

// Why a 2xx body could not be used (invalid JSON, no choices, ...); one line.
struct BadResponse {
  std::string message;
};

// Every parser first repairs what would make a server's whole reply unreadable: invalid UTF-8
// and unpaired \u surrogate escapes become U+FFFD (a warning says so); NaN, Infinity and
// numbers beyond a double's range (Python's json emits them) become null; whole numbers beyond
// 64 bits are read as doubles. A UTF-8 byte-order mark before the JSON is skipped; nesting
// deeper than 1024 levels is invalid JSON (simdjson's limit).
//
// Usage counts are believed when each is a whole number from 0 to a plausible limit:
// 4096 + 2 tokens per byte of the texts sent (prompt_tokens), of the texts received plus
// max_tokens (completion_tokens), and prompt_tokens (cached_tokens). No count, or one not
// believed (negative, fractional, a string, missing its partner, beyond the limit), gives the
// estimate (usage.estimated); one not believed also adds a warning naming it.
inline constexpr std::int64_t kUsageSlackTokens = 4096;
inline constexpr std::int64_t kUsageTokensPerByte = 2;

// Parses a chat completion for `request`. Fills text, reasoning, finish_reason, usage (above),
// logprobs and warnings; log-probabilities that are not all finite numbers are dropped with a
// warning. latency_ms and attempts are left for the caller.
std::variant<ChatResponse, BadResponse> parse_chat_response(std::string_view body, const ChatRequest& request);

// Parses the first `n` (at least 1) choices of a chat completion asked with "n", each as
// parse_chat_response does; fewer when the server sent fewer (at least one, else BadResponse).
// Choices are taken in the order of their "index" (servers may send them in any order; one
// without an index, or with null, stands at its position); an index that is not a whole number
// below the number of choices sent, or that appears twice, is a BadResponse.
// The usage is of the whole reply: the prompt was read and billed once, so choice 0 gets
// prompt_tokens and cached_tokens and the others 0, and completion_tokens is split with
// split_tokens (llm/token_split.h) by each choice's estimated completion tokens. Without believable usage each
// choice gets its estimate, the prompt counted once, on choice 0. Warnings about the whole
// reply are given to every choice.
std::variant<std::vector<ChatResponse>, BadResponse> parse_chat_choices(std::string_view body,
                                                                        const ChatRequest& request, int n);

// {"model", "input": [texts], "encoding_format": "float"}.
std::string embedding_request_body(const std::string& model, const std::vector<std::string>& inputs);

// Parses an /embeddings reply: data[].embedding, placed by data[].index (its array position when
// the index is missing). Anything but one finite vector per input, each index 0..n-1 once and
// all of one non-zero length is a BadResponse. usage.prompt_tokens when the body has a
// believable one (above), otherwise estimated from `inputs` (usage.estimated); latency_ms and
// attempts are left for the caller.
std::variant<EmbeddingResponse, BadResponse> parse_embedding_response(std::string_view body,
                                                                      const std::vector<std::string>& inputs);

// A short, single-line description of an error body: error.message (or a similar field) when
// the body is JSON, otherwise the body itself; invalid UTF-8 replaced by U+FFFD; at most
// max_bytes bytes (cut on a UTF-8 boundary).
// std::string::npos for max_bytes: not cut.
constexpr std::size_t kErrorSummaryBytes = 200;
std::string error_summary(std::string_view body, std::size_t max_bytes = kErrorSummaryBytes);

// Whether an error body says the server will not take the "n" a request asked with. Only a JSON
// error object is read, and only what it says went wrong (error.message or error, message,
// detail, each detail[].msg): its "param" is "n" (OpenAI), a validation error's field location
// ends in "n" (FastAPI/pydantic), or a message names n — quoted ('n', "n", `n`), as the subject
// of a rule ("n must be 1 when using greedy sampling" from vLLM, "n > 1 is not supported",
// "only n=1", "n: 4 exceeds ..."), as the argument a message ends on ("Unrecognized request
// argument supplied: n"), or in the words of servers that answer one choice only ("Only one
// completion choice is allowed" from llama.cpp's server, "Parallel sampling is not supported"
// from SGLang). A word "n" elsewhere ("tool_choice", "top-n", "n_ctx", "n/a"), an HTML page, a
// traceback or the request echoed back is not about it.
bool refuses_n(std::string_view body);

// Whether an error body says the server will not take the "logprobs" a request asked for: read
// as refuses_n reads it, the field being "logprobs" or "top_logprobs", and any message that
// names log-probabilities ("logprobs", "log_probs", "log probabilities"; in a Python repr of
// validation errors only a field location counts, as for n).
bool refuses_logprobs(std::string_view body);

// `text` cut to at most max_bytes on a UTF-8 boundary, "..." marking a cut.
std::string shorten_utf8(std::string text, std::size_t max_bytes);

// min and exp(-mean) over token log-probabilities; tokens = 0 for an empty list.
LogprobStats reduce_logprobs(const std::vector<double>& token_logprobs);

}  // namespace parley::openai
