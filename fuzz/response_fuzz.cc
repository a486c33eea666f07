// Fuzz target: the JSON edge of the OpenAI-compatible client — chat completion, embedding and
// error bodies as a server might send them. Invariants: a parsed chat reply has finite,
// non-negative usage and finite log-probability statistics; a parsed embedding reply has one finite vector per input; an error
// summary is one line within its byte limit.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_check.h"
#include "llm/openai_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const std::vector<parley::ChatMessage> prompt = {{"user", "What is 2 + 2?"}};
  const auto chat = parley::openai::parse_chat_response(body, prompt);
  if (const auto* reply = std::get_if<parley::ChatResponse>(&chat)) {
    FUZZ_CHECK(reply->usage.prompt_tokens >= 0 && reply->usage.completion_tokens >= 0);
    FUZZ_CHECK(reply->usage.cached_tokens >= 0);
    if (reply->logprobs) {
      FUZZ_CHECK(std::isfinite(reply->logprobs->min_token_logprob) && std::isfinite(reply->logprobs->perplexity));
    }
  }
  const std::vector<std::string> inputs = {"first", "second"};
  const auto embedding = parley::openai::parse_embedding_response(body, inputs);
  if (const auto* reply = std::get_if<parley::EmbeddingResponse>(&embedding)) {
    FUZZ_CHECK(reply->vectors.size() == inputs.size());
    for (const auto& vector : reply->vectors) {
      for (double x : vector) FUZZ_CHECK(std::isfinite(x));
    }
  }
  const std::string summary = parley::openai::error_summary(body);
  FUZZ_CHECK(summary.size() <= 200 + 3);  // cut on a UTF-8 boundary, then "..."
  FUZZ_CHECK(summary.find('\n') == std::string::npos);
  return 0;
}
