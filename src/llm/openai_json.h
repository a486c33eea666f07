#pragma once
// The JSON edge of the OpenAI-compatible client: request bodies out, chat completions, embeddings
// and error bodies in. Pure functions over strings and native types, so each can be tested
// without HTTP.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parley/chat.h"

namespace parley::openai {

// {"model", "messages": [{"role", "content"}], "temperature", "top_p", "max_tokens",
//  "seed" (when set), "logprobs": true (when requested)}.
std::string chat_request_body(const std::string& model, const std::vector<ChatMessage>& messages,
                              const Sampling& sampling);

// Why a 2xx body could not be used (invalid JSON, no choices, ...); one line.
struct BadResponse {
  std::string message;
};

// Parses a chat completion. Fills text, reasoning, finish_reason, usage and logprobs; when the
// body has no usage the counts are estimated from `prompt` and the reply (usage.estimated).
// latency_ms and attempts are left for the caller.
std::variant<ChatResponse, BadResponse> parse_chat_response(std::string_view body,
                                                            const std::vector<ChatMessage>& prompt);

// {"model", "input": [texts], "encoding_format": "float"}.
std::string embedding_request_body(const std::string& model, const std::vector<std::string>& inputs);

// Parses an /embeddings reply: data[].embedding, placed by data[].index (its array position when
// the index is missing). Anything but one finite vector per input, each index 0..n-1 once and
// all of one non-zero length is a BadResponse. usage.prompt_tokens when the body has it,
// otherwise estimated from `inputs` (usage.estimated); latency_ms and attempts are left for the
// caller.
std::variant<EmbeddingResponse, BadResponse> parse_embedding_response(std::string_view body,
                                                                      const std::vector<std::string>& inputs);

// A short, single-line description of an error body: error.message (or a similar field) when
// the body is JSON, otherwise the body itself; at most max_bytes bytes (cut on a UTF-8 boundary).
std::string error_summary(std::string_view body, std::size_t max_bytes = 200);

// min and exp(-mean) over token log-probabilities; tokens = 0 for an empty list.
LogprobStats reduce_logprobs(const std::vector<double>& token_logprobs);

}  // namespace parley::openai
