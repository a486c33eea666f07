#pragma once
// ChatRequest / ChatResponse: what a protocol asks of an LLM and what comes back, in native
// types. The OpenAI client turns these into JSON at the edge; the simulator reads the
// structured annotations a request carries (real backends ignore them). Plain values.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parley/task.h"

namespace parley {
class CancelSignal;
}

namespace parley {

// A message's text, shared rather than copied. Each agent's conversation is append-only, and
// every request carries it whole, so round r's request repeats every message of round r-1's:
// copying a SharedText only counts a reference. Immutable; reads as a const std::string.
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text) : text_(std::make_shared<const std::string>(std::move(text))) {}  // NOLINT: implicit
  SharedText(const char* text) : SharedText(std::string(text)) {}                                // NOLINT: implicit
  explicit SharedText(std::string_view text) : SharedText(std::string(text)) {}
  SharedText(std::nullptr_t) = delete;  // no text at all is "", not a null pointer

  const std::string& str() const { return text_ ? *text_ : empty_text(); }
  operator const std::string&() const { return str(); }  // NOLINT: reads as a string
  operator std::string_view() const { return str(); }    // NOLINT: reads as a string
  std::size_t size() const { return str().size(); }
  bool empty() const { return str().empty(); }

  friend bool operator==(const SharedText& text, std::string_view other) { return text.str() == other; }

 private:
  static const std::string& empty_text();
  std::shared_ptr<const std::string> text_;
};

std::ostream& operator<<(std::ostream& out, const SharedText& text);

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  SharedText content;
};

struct Sampling {
  double temperature = 0.7;
  double top_p = 1.0;
  int max_tokens = 1024;
  std::optional<std::uint64_t> seed;  // sent to servers that support it
  bool logprobs = false;              // ask for token log-probabilities

  bool operator==(const Sampling&) const = default;
};

// Which argument a CRIT judge is shown (MACI App. E): `agent`'s `index`-th argument of `round`.
// The simulator derives the argument's latent quality from it; real backends ignore it.
struct ArgumentRef {
  int round = 0;
  int index = 0;
};

// What the protocol showed an agent from its peers in this turn.
struct PeerView {
  std::string agent;
  std::string answer;                 // canonical answer ("" if the peer's was unparsed)
  std::optional<double> confidence;
  std::string label;                  // how the prompt named it, when not by `agent` (masked judging)
  std::optional<ArgumentRef> argument;  // CRIT judging: which of `agent`'s arguments is shown
};

// Structured facts about a request, for the simulator and the logs. Never sent over HTTP.
struct Annotations {
  std::shared_ptr<const Task> task;  // the task being debated (the simulator needs its gold)
  std::string protocol;              // protocol label
  std::uint64_t seed = 0;            // experiment seed of this debate
  std::string agent;                 // agent instance name
  int round = 0;                     // 0 = initial answer, 1.. = debate rounds
  std::string turn;                  // kind of turn: "answer", "revise", "reask", ...
  std::string repeats;               // on a re-ask ("reask", "<turn>_reask"): the turn kind it repeats
  int sample = 0;                    // sample index for repeated identical requests
  std::vector<PeerView> shown;       // peers' answers shown in this turn
  std::optional<std::string> own_previous;  // the agent's own latest answer, if any
  bool compromised = false;          // the agent is compromised (attack setting; the simulator's adversary)
  // MACI's turns: the behaviour dial CL^(t) the agent was given, and the evidence in its context.
  std::optional<double> contentiousness;
  std::shared_ptr<const std::vector<EvidenceDocument>> evidence;
};

struct ChatRequest {
  std::string model;                 // model name on the server
  std::vector<ChatMessage> messages;
  Sampling sampling;
  Annotations note;
  // Stops this call when fired (its debate's client went away, or its deadline passed): the
  // transfer is aborted, no retry follows, and the call ends with a kCancelled CallError.
  // Not part of the request's identity (the cache key); null = only EventLoop::cancel stops it.
  CancelSignal* cancel = nullptr;
};

struct Usage {
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t cached_tokens = 0;
  bool estimated = false;  // true when the server gave no usable usage and parley counted
};

// Token log-probabilities reduced to the two statistics the papers use.
struct LogprobStats {
  double min_token_logprob = 0.0;  // min over generated tokens of log p(token)
  double perplexity = 1.0;         // exp(-mean log p)
  int tokens = 0;

  // The mean over generated tokens of log p(token), which perplexity keeps (DOWN's confidence
  // is its exponential, the geometric-mean token probability, 1/perplexity).
  double mean_token_logprob() const { return -std::log(perplexity); }
};

struct ChatResponse {
  std::string text;
  std::string reasoning;  // reasoning_content, kept apart from text
  Usage usage;
  std::optional<LogprobStats> logprobs;
  double latency_ms = 0.0;  // wall time of the successful attempt
  int attempts = 1;         // requests sent: 1 + retries + transport resends (HttpResponse::resends)
  std::string finish_reason;
  // What parley did not take from the server's reply as sent, one line each (usage replaced by
  // the estimate, log-probabilities dropped, invalid UTF-8 replaced). Empty for a clean reply.
  std::vector<std::string> warnings;
};

// Embedding vectors for texts (S2-MAD's response-embedding similarity). One request embeds
// several texts in one call, as the OpenAI /embeddings endpoint does.
struct EmbeddingRequest {
  std::string model;                 // embedding model name on the server
  std::vector<std::string> inputs;   // texts to embed, in order
  Annotations note;                  // task, protocol, seed, round; never sent over HTTP
  CancelSignal* cancel = nullptr;    // as ChatRequest::cancel
};

struct EmbeddingResponse {
  std::vector<std::vector<double>> vectors;  // one per input, in input order, all the same length
  Usage usage;                               // prompt_tokens = tokens embedded; no completion
  double latency_ms = 0.0;
  int attempts = 1;
  std::vector<std::string> warnings;         // as ChatResponse::warnings
};

// Why a call failed after its retries.
// kUnsupported: the backend does not offer the operation (embeddings from a chat-only client).
// kTooLarge: the reply was longer than the endpoint's limit (not retried: it would be again).
enum class CallErrorKind { kTimeout, kHttpStatus, kConnection, kBadResponse, kCancelled, kUnsupported, kTooLarge };

struct CallError {
  CallErrorKind kind = CallErrorKind::kConnection;
  int http_status = 0;
  std::string message;  // one line, no secrets
  int attempts = 1;
};

const char* call_error_kind_name(CallErrorKind kind);

// Token count estimate used when a server reports no usage, and by the simulator:
// ceil(bytes / 4) per text plus 4 tokens of framing per chat message (documented in
// docs/formats.md). Deterministic.
std::int64_t estimate_tokens(std::string_view text);
std::int64_t estimate_prompt_tokens(const std::vector<ChatMessage>& messages);

// Cosine similarity of two vectors of the same length; 0 when either is all zeros.
double cosine_similarity(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace parley
