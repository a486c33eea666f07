// The defaults of the LlmClient interface (parley/llm_client.h).
#include "parley/llm_client.h"

namespace parley {

Async<EmbeddingResult> LlmClient::embed(EmbeddingRequest /*request*/) {
  co_return CallError{CallErrorKind::kUnsupported, 0, "this backend does not serve embeddings", 1};
}

}  // namespace parley
