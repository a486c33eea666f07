// The defaults of the LlmClient interface and helpers of parley/llm_client.h.
#include "parley/llm_client.h"

#include <algorithm>

namespace parley {

bool is_sendable_api_key(std::string_view key) {
  return std::none_of(key.begin(), key.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

Async<std::vector<ChatResult>> LlmClient::chat_n(ChatRequest request, int n) {
  std::vector<Async<ChatResult>> calls;
  for (int i = 0; i < n; ++i) {
    ChatRequest sample = request;
    sample.note.sample = request.note.sample + i;
    calls.push_back(chat(std::move(sample)));
  }
  co_return co_await when_all(std::move(calls));
}

Async<EmbeddingResult> LlmClient::embed(EmbeddingRequest /*request*/) {
  co_return CallError{CallErrorKind::kUnsupported, 0, "this backend does not serve embeddings", 1};
}

}  // namespace parley
