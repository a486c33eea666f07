#pragma once
// Protocol: runs one debate on one task. Each method of the literature is one Protocol in
// src/protocols/<name>.cc, registered once in src/protocols/registry.cc with its parameters
// and defaults (the CLI's `parley protocols` and the config validator read that table).
//
// A protocol is a coroutine over a Debate. Debate::ask() is the only way to call an LLM: it
// builds the request, enforces the token budget, records the message in the transcript,
// parses the answer and re-asks once on unparsable output. Replies reach the protocol in the
// order its calls were issued, never in the order they complete (see Debate::issue_order_). When a call fails or the budget is
// spent, ask() ends the debate by throwing DebateHalt, which run_debate() — the one place that
// catches it — turns into the transcript's status; so does a debate's cancel signal or deadline
// (DebateSetup), whose halt the next call throws. Protocol code therefore reads like the
// paper's pseudocode. Everything runs on the EventLoop thread.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "parley/answer.h"
#include "parley/async.h"
#include "parley/cancel.h"
#include "parley/chat.h"
#include "parley/judge.h"
#include "parley/llm_client.h"
#include "parley/task.h"
#include "parley/transcript.h"

namespace parley {

class Rng;

// ---- Parameters ----------------------------------------------------------------------------

using ParamValue = std::variant<bool, std::int64_t, double, std::string>;
// kPath: a file name, resolved like the dataset's path (from the working directory, else beside
// the experiment file) and required to exist; the protocol receives the resolved path.
enum class ParamKind { kBool, kInt, kDouble, kString, kPath };

struct ParamSpec {
  std::string name;
  ParamKind kind = ParamKind::kInt;
  ParamValue default_value;
  std::optional<double> min;  // inclusive bounds for numbers
  std::optional<double> max;
  std::string help;
  // A check beyond kind and bounds, run when the experiment file is read: "" when the value is
  // acceptable, otherwise the problem in words (reported as a config error on this key).
  std::function<std::string(const ParamValue&)> check;
  bool required = false;  // the experiment file must give it (the default is not used)
};

// Validated parameter values of one configured protocol (defaults filled in).
class ProtocolParams {
 public:
  std::int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;  // also accepts integer values
  bool flag(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  void set(const std::string& name, ParamValue value) { values_[name] = std::move(value); }
  const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  const ParamValue& at(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

// ---- Agents --------------------------------------------------------------------------------

// An agent instance taking part in a debate: its name in the transcript, its client and
// its sampling parameters.
struct Agent {
  std::string name;
  LlmClient* client = nullptr;  // not owned
  std::string model;            // model name sent to the backend
  Sampling sampling;
  std::string system_prompt;    // "" = none; a compromised seat's ends with the attack instruction
  bool compromised = false;     // a debater seat under the attack setting (UDPO §3.1)
};

// UDPO §3.1, Table 3: some debaters are compromised. Debate::agents() marks the seats — those of
// the named pool agents (every instance of one), or the last `count` seats of each agents()
// call — appends `instruction` to their system prompt (after a blank line, so the agent's own
// prompt stays the cached prefix), annotates their requests (Annotations::compromised) and
// records an `attack` event. Judges are never compromised. docs/protocols.md, "Compromised agents".
struct AttackSetup {
  std::vector<std::string> agents;  // pool agent names
  int count = 0;                    // m of N: the last m seats
  std::string instruction;          // "" = kDefaultAttackInstruction
  bool active() const { return !agents.empty() || count > 0; }
};

// Our own adversarial instruction, in the spirit of AutoTransform (Huang et al. 2024) as UDPO
// describes it: stealthy, plausible reasoning towards a wrong conclusion.
extern const char* const kDefaultAttackInstruction;

// The embedding model a protocol may use: the experiment entry's `embeddings:` (S2-MAD's
// response-embedding similarity).
struct Embedder {
  std::string name;             // the model's name in the experiment; the transcript's "agent"
  LlmClient* client = nullptr;  // not owned
  std::string model;            // model name sent to the backend
};

// ---- The debate context --------------------------------------------------------------------

// Alg. I's temperature step between best-of drafts (protocols paper App. A.1).
inline constexpr double kPaperBestOfJitter = 0.15;

struct DebateHalt {
  DebateStatus status = DebateStatus::kFailed;
  std::string reason;
  // A protocol that still has an answer of its own when its budget runs out (MACI's mixture so
  // far) gives it here; otherwise the budget's fallback is the vote over the latest answers.
  std::optional<std::string> answer;
};

// What a protocol says about one call, beyond the messages.
struct TurnInfo {
  int round = 0;
  std::string turn = "answer";         // "answer", "sample", "revise", ...
  int sample = 0;
  std::vector<PeerView> shown;         // what the agent was shown from its peers
  std::optional<double> temperature;   // overrides the agent's own
  bool logprobs = false;               // ask for token log-probabilities (prior signals, SVR-MAD §3)
  // MACI: the behaviour dial and the evidence context (Annotations, for the simulator).
  std::optional<double> contentiousness;
  std::shared_ptr<const std::vector<EvidenceDocument>> evidence;
};

// A finished call: the reply and its parsed answer (after at most one re-ask).
struct Turn {
  std::string agent;
  int round = 0;
  std::string text;
  Answer answer;
  std::optional<LogprobStats> logprobs;  // when the server returned them
};

// A reply that must have a given structure (a judge's JSON verdict). `check` returns "" when
// the reply is acceptable, otherwise what is wrong with it, in words sent back to the model
// with `format_reminder` for at most `reasks` more tries.
struct StructuredAsk {
  std::function<std::string(std::string_view reply)> check;
  std::string format_reminder;
  int reasks = 2;
  // For an agent's turn with a structure of its own (iMAD's self-critique): reads the answer a
  // reply commits to, which is recorded with the message and remembered as the agent's latest.
  std::function<Answer(std::string_view reply)> answer;
};

struct StructuredReply {
  std::string text;     // the last reply
  std::string problem;  // "" when the last reply passed the check
  Answer answer;        // StructuredAsk::answer of the last reply, when given
  bool valid() const { return problem.empty(); }
};

// What DebateSetup::on_progress is told: which record of the transcript is new.
struct DebateProgress {
  // kCall: transcript.messages[index], its reply (or error) recorded and its answer parsed.
  // kEvent: transcript.events[index], just recorded.
  enum class Kind { kCall, kEvent } kind = Kind::kCall;
  std::size_t index = 0;
};

struct DebateSetup {
  EventLoop* loop = nullptr;                          // required: the loop the debate runs on
  std::shared_ptr<const Task> task;
  std::string protocol_label;
  std::uint64_t seed = 0;
  const ProtocolParams* params = nullptr;
  std::vector<Agent> agent_pool;                      // agents the protocol may use, in order
  std::optional<std::int64_t> budget_tokens;          // per-debate token budget
  int reask_unparsed = 1;                             // re-asks after an unparsable reply
  std::vector<Agent> judge_panel;                     // judges; empty = the pool's first agent
  JudgeSettings judging;
  int best_of = 1;                                    // drafts per turn, judge keeps the best (Alg. I)
  double best_of_jitter = kPaperBestOfJitter;         // temperature step between drafts (Alg. I)
  std::optional<Embedder> embedder;                   // when the entry names `embeddings:`
  AttackSetup attack;                                 // compromised debaters (none by default)
  // Stops the debate when fired (a served request's client went away): no further call is
  // issued, the calls in flight are cancelled, and the debate ends with status `cancelled` and
  // the signal's reason. Not owned; must outlive the debate. Null: only EventLoop::cancel stops it.
  CancelSignal* cancel = nullptr;
  // When it passes, the calls in flight are cancelled, no further call is issued, and the debate
  // ends as on a spent token budget (status `budget`, the budget's fallback answer).
  std::optional<EventLoop::Clock::time_point> deadline;
  // Told of every call as its record completes (in issue order, failed calls too) and of every
  // event as it is recorded, on the loop thread; may be empty. It reads, never changes, the
  // transcript, and must not throw. docs/protocols.md, "Cancellation and deadlines".
  std::function<void(const Transcript&, const DebateProgress&)> on_progress;
};

class Debate {
 public:
  explicit Debate(DebateSetup setup);
  Debate(const Debate&) = delete;
  Debate& operator=(const Debate&) = delete;
  ~Debate();

  const Task& task() const { return *setup_.task; }
  EventLoop& loop() const { return *setup_.loop; }
  const ProtocolParams& params() const { return *setup_.params; }
  std::uint64_t seed() const { return setup_.seed; }
  Rng& rng() { return *rng_; }

  // `count` agent instances from the pool, in order: the protocol's debaters ("seated"). With
  // fewer configured agents than instances, agents are reused cyclically and named
  // "<agent>#<k>" (k = 1..count) so every instance is distinct in the transcript and samples
  // independently.
  std::vector<Agent> agents(std::size_t count);

  // One agent turn (see the file comment). With best_of = N > 1 it is N drafts at temperatures
  // τ + (i − (N − 1)/2)·j, i = 0..N−1 (j = best_of_jitter, 0.15 in the paper), each scored by
  // the judge; the best is the turn and the others stay in the transcript with role "draft"
  // (protocols paper App. A.1, Alg. I; Alg. I counts i from 1, Fig. 1's temperatures
  // 0.325/0.475 around τ = 0.4 from 0, which we follow). With j = 0 the drafts are identical
  // requests and go to the client as one LlmClient::chat_n.
  // Throws DebateHalt when the debate must end.
  Async<Turn> ask(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info);

  // `count` turns of one agent on the same messages, samples info.sample .. info.sample +
  // count − 1, returned in that order: as many concurrent ask()s, except that their identical
  // requests go to the client as one LlmClient::chat_n (one prompt read on a server that
  // supports "n"). Re-asks stay one call each. With best_of > 1 each sample is a best-of turn.
  Async<std::vector<Turn>> ask_samples(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info,
                                       int count);

  // One call whose reply must pass `ask.check` (re-asked with role "<turn>_reask"). No answer
  // is parsed. A reply still failing the check is returned with its problem, not thrown.
  Async<StructuredReply> ask_structured(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info,
                                        StructuredAsk ask);

  // Whether the experiment gave this protocol an embedding model.
  bool can_embed() const { return setup_.embedder.has_value(); }
  // Embeds `texts` (one call) and returns one vector per text. The call is recorded in the
  // transcript with role "embedding" (not an agent's turn, no communication), its tokens count
  // against the budget, and `about` names whose texts they are. `kind` is the request's
  // annotated turn, which says to the simulator what the texts are ("embedding": replies;
  // MACI's "embedding_query", "embedding_evidence"). Throws DebateHalt on failure or when the
  // budget is spent; calling it without an embedder is a programming error.
  Async<std::vector<std::vector<double>>> embed(std::vector<std::string> texts, int round, std::string about,
                                                std::string kind = "embedding");

  // The judges of this debate: the experiment's `judges:`, else one agent of its own — the
  // first pool agent the protocol has not seated, else an instance of the pool's first agent
  // named "<agent>#judge". Fixed when first asked for (a protocol seats its debaters first).
  // An agent that both debates and judges is recorded once as a `shared_role` event.
  const std::vector<Agent>& judge_panel();
  const JudgeSettings& judging() const { return setup_.judging; }

  // Records a controller event.
  void event(int round, std::string kind, std::string detail);

  // Latest parsed answer of each agent, in first-answer order (used for the budget fallback).
  const std::vector<std::pair<std::string, Answer>>& latest_answers() const { return latest_; }

  Transcript& transcript() { return transcript_; }
  std::optional<std::int64_t> budget_remaining() const { return budget_remaining_; }
  std::optional<std::int64_t> budget_total() const { return setup_.budget_tokens; }

 private:
  struct Draft;
  struct Call;
  class Batch;
  struct Stop;
  // One call, recorded in the transcript; `repeats` is the first call of the turn a re-ask
  // repeats. With a `batch`, its request is sent with the batch's others. Without `report_reply`, the
  // caller tells on_progress of the reply itself (ask_structured, once the answer is stored).
  Async<Call> call(const Agent& agent, const std::vector<ChatMessage>& messages, const TurnInfo& info,
                   const std::string& turn, bool parse_answer, std::optional<std::size_t> repeats,
                   Batch* batch = nullptr, bool report_reply = true);
  // call() before and after its reply: the request sent and its record placed (`Issued`), then
  // the reply recorded, its budget settled and its answer parsed.
  struct Issued {
    Async<ChatResult> reply;
    std::size_t slot = 0;          // its record in transcript_.messages
    std::int64_t reservation = 0;  // budget held until the reply's usage is known
  };
  Issued issue(const Agent& agent, const std::vector<ChatMessage>& messages, const TurnInfo& info,
               const std::string& turn, std::optional<std::size_t> repeats, Batch* batch);
  // Stores in `record`, the next call's, the messages `prompt` it is sent, as the suffix of the
  // most recent earlier prompt of its agent that `prompt` extends (MessageRecord::prompt), and
  // keeps the whole prompt in sent_ for the calls after it.
  void record_prompt(MessageRecord& record, const std::vector<ChatMessage>& prompt);
  Call complete(const Agent& agent, const TurnInfo& info, const std::string& turn, bool parse_answer,
                std::size_t slot, std::int64_t reservation, ChatResult result, bool report_reply);
  // A turn's call and its re-asks; the first call joins `batch` when given.
  Async<Draft> ask_once(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info, Batch* batch);
  // The re-asks after an unparsable `reply`, each continuing the turn's conversation
  // (`messages`): `reply` becomes the last one and `slots` gains their records.
  Async<void> reask(const Agent& agent, std::vector<ChatMessage> messages, const TurnInfo& info, Call& reply,
                    std::vector<std::size_t>& slots);
  static Draft draft_of(const Agent& agent, const TurnInfo& info, Call& reply, std::vector<std::size_t> slots);
  // ask() without best-of: ask_once, and the answer remembered as the agent's latest.
  Async<Turn> ask_sample(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info, Batch* batch);
  Async<Turn> ask_best_of(const Agent& agent, std::vector<ChatMessage> messages, TurnInfo info);
  void remember(const std::string& agent, const Answer& answer);
  // Records a `shared_role` event for each judge that is also a seated debater (once each).
  void note_shared_roles();
  // Records an `attack` event naming the compromised seats among `seats` not named before.
  void note_compromised(const std::vector<Agent>& seats);
  // A call that failed after its retries: its budget reservation returned, its record in
  // `slot` given the error, and the debate ended with "<what> failed after N attempt(s): ...".
  [[noreturn]] void fail_call(std::size_t slot, const CallError& error, std::int64_t reservation,
                              const std::string& what);
  // Once the debate's cancel signal or deadline stopped it: withdraws from `batch` and throws
  // the stop's halt, so that no further call is issued.
  void halt_if_stopped(Batch* batch);
  // The signal every request of the debate carries; null without cancel or deadline.
  CancelSignal* stop_signal() const;
  // Tells DebateSetup::on_progress that a record is complete or new.
  void report(DebateProgress::Kind kind, std::size_t index) const noexcept;

  DebateSetup setup_;
  // Every reply reaches the protocol in the order its call was issued, so nothing the debate
  // computes (transcript, budget, latest answers, events, later prompts) depends on the order
  // replies arrive in: a replayed or resumed run repeats the recorded one.
  IssueOrder issue_order_;
  std::unique_ptr<Rng> rng_;
  Transcript transcript_;
  // The whole prompt of each call, by its place in transcript_.messages (empty for an embedding
  // call): what record_prompt finds a new prompt's prefix in. The texts are shared, not copied.
  std::vector<std::vector<ChatMessage>> sent_;
  std::optional<std::int64_t> budget_remaining_;
  std::vector<std::pair<std::string, Answer>> latest_;
  std::size_t pool_seated_ = 0;        // pool agents handed out by agents() so far
  std::vector<std::string> seated_;    // the debaters' instance names
  std::vector<std::string> compromised_noted_;  // compromised seats named in `attack` events
  std::optional<std::vector<Agent>> judge_panel_;
  std::vector<std::string> shared_roles_noted_;
  // The debate's own stop: fired by DebateSetup::cancel or the deadline, carried by its
  // requests, shared with the deadline's watcher. Null when the setup has neither.
  std::shared_ptr<Stop> stop_;
};

// ---- Protocols -----------------------------------------------------------------------------

class Protocol {
 public:
  virtual ~Protocol() = default;
  // Runs the debate and returns the final answer (canonical form), or nullopt if none.
  virtual Async<std::optional<std::string>> run(Debate& debate) const = 0;

  // A protocol that carries state from one debate of a run to the next (MACI's dial scheduler,
  // which learns across debates) says so; it then runs its debates one at a time in the order
  // they start, and on a resume the runner hands it every stored debate of its entry, in plan
  // order, before any new one starts, so that it continues where the stored run left off.
  virtual bool keeps_state() const { return false; }
  virtual void replay(const Transcript& /*stored*/) const {}
};

// Runs `protocol` on one task and returns the complete transcript: status, final answer,
// correctness. Never throws for expected failures (calls failing, budget, unparsable output).
Async<Transcript> run_debate(const Protocol& protocol, DebateSetup setup);

struct ProtocolInfo {
  std::string name;         // as written in experiment files
  std::string title;        // one line
  std::string paper;        // citation
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Protocol>(const ProtocolParams&)> make;
  int default_best_of = 1;  // drafts per turn when the experiment does not say (the paper's setting)
  bool uses_embeddings = false;  // accepts `embeddings: <model>` in its experiment entry
  // Checks that involve several parameters, run when the experiment file is read: empty when the
  // values fit together, else the parameter to blame and the problem in words.
  std::function<std::pair<std::string, std::string>(const ProtocolParams&)> check_params;
  // How many debaters (Debate::agents seats) a debate takes, for the attack's checks; unset
  // when it is the `agents` parameter. Judges are not counted.
  std::function<std::size_t(const ProtocolParams&)> debaters;
};

// The number of debaters `info` seats with `params`: info.debaters, else the `agents` parameter.
std::size_t protocol_debaters(const ProtocolInfo& info, const ProtocolParams& params);

// The registry: every protocol parley knows, in display order.
const std::vector<ProtocolInfo>& protocol_registry();
const ProtocolInfo* find_protocol(std::string_view name);

}  // namespace parley
