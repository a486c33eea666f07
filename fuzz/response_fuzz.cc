// Fuzz target: the JSON edge of the OpenAI-compatible client — chat completion, embedding and
// error bodies as a server might send them. Invariants: a parsed chat reply has plausible usage
// (non-negative, bounded, cached within prompt), UTF-8 text and finite log-probability statistics; a parsed embedding reply has one finite vector per input; an error
// summary is one line within its byte limit.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_check.h"
#include "llm/openai_json.h"

namespace {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto byte = static_cast<unsigned char>(s[i]);
    const std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + length > s.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  parley::ChatRequest request;
  request.model = "fuzz";
  request.messages = {{"user", "What is 2 + 2?"}};
  request.sampling.max_tokens = 256;
  const auto chat = parley::openai::parse_chat_response(body, request);
  if (const auto* reply = std::get_if<parley::ChatResponse>(&chat)) {
    // Believed usage is plausible: non-negative and bounded by what was exchanged.
    constexpr std::int64_t kBound = 1'000'000'000;
    FUZZ_CHECK(reply->usage.prompt_tokens >= 0 && reply->usage.prompt_tokens < kBound);
    FUZZ_CHECK(reply->usage.completion_tokens >= 0 && reply->usage.completion_tokens < kBound);
    FUZZ_CHECK(reply->usage.cached_tokens >= 0 && reply->usage.cached_tokens <= reply->usage.prompt_tokens);
    FUZZ_CHECK(valid_utf8(reply->text) && valid_utf8(reply->reasoning));
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
