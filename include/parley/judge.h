#pragma once
// LLM judges: score one response, compare two, rank several, or rate MACI's arguments (CRIT),
// with a panel of K judge agents (which may run other models than the debaters: cross-family
// judging). Each judge replies in JSON; a reply that does not match the schema is re-asked a
// bounded number of times and then recorded as a failure (event "judge_failed"); the panel's
// valid verdicts are aggregated.
// With identity masking (the default) candidates are shown as "Response 1", "Response 2", ...
// in an order shuffled per call, and agent names inside the texts are replaced by those labels.
//
// Every judge call goes through Debate (protocol.h), so it is in the transcript with its tokens
// (roles "judge_score", "judge_compare", "judge_rank", "judge_crit"; re-asks "<role>_reask"),
// and every judgment is an event "judge" naming the labels, each judge's verdict and the
// aggregate. Used by protocols (ra_cr, mad, maci, ...) and by the best-of-N step of Debate::ask.
// MACI's CRIT panel (App. E) rates arguments rather than responses: Judge::crit.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "parley/async.h"
#include "parley/maci.h"

namespace parley {

class Debate;

enum class JudgeScale {
  kLikert,  // integer 1–5 mapped to [0, 1] (protocols paper §2.2, Alg. I); (s − 1) / 4 is our map
  kRubric,  // a number in [0, 1] directly
};
enum class JudgeAggregation { kMean, kMedian };

// How a protocol's judges work; the experiment file's `judge:` block of a protocol entry.
struct JudgeSettings {
  int reasks = 2;               // re-asks after a malformed verdict, per judge and judgment
  bool mask_identities = true;  // anonymise and shuffle candidates per call
  JudgeScale scale = JudgeScale::kLikert;
  JudgeAggregation aggregation = JudgeAggregation::kMean;  // over the panel (scores, rank positions)
};

const char* judge_scale_name(JudgeScale scale);              // "likert" | "rubric"
const char* judge_aggregation_name(JudgeAggregation a);      // "mean" | "median"

// A response put before the judges.
struct JudgedResponse {
  std::string agent;
  std::string text;
};

struct ScoreVerdict {
  std::optional<double> score;     // aggregate in [0, 1]; nullopt when no judge gave a valid verdict
  std::vector<double> judge_scores;  // each valid judge's score in [0, 1], panel order
};

struct CompareVerdict {
  std::optional<std::size_t> winner;  // 0 or 1; nullopt on a tie or when no judge was valid
  int votes_first = 0;
  int votes_second = 0;
  int ties = 0;
  bool failed = false;  // no judge gave a valid verdict
};

struct RankVerdict {
  std::vector<std::size_t> order;     // candidate indices, best first (input order when failed)
  std::vector<double> position;       // aggregated rank position per candidate (0 = best)
  bool failed = false;
};

// ---- MACI's CRIT judging (App. E) ----------------------------------------------------------

// Judge temperature (MACI App. E.4, E.6).
inline constexpr double kCritTemperature = 0.3;

// An evidence span an argument cites, as the judge is shown it.
struct EvidenceSpan {
  std::string id;
  std::string text;
};

// An argument put before the CRIT panel: a claim, its justification and the spans it cites.
struct JudgedArgument {
  std::string agent;  // its author, never shown (masked); the simulator reads it
  std::string claim;
  std::string justification;
  std::vector<EvidenceSpan> spans;
  // Its place among `agent`'s arguments of the round judged: with the author and the round, what
  // the simulator derives the argument's latent quality from (ArgumentRef); real backends ignore it.
  int index = 0;
  // The answer its author favoured in the reply that made it (canonical; "" = not known): never
  // shown to a judge; the simulator reads it (PeerView::answer).
  std::string position;
};

// One argument's CRIT scores, by panel position; nullopt where that judge gave no valid verdict.
struct CritVerdict {
  std::vector<std::optional<maci::CritScores>> scores;
  std::vector<std::optional<double>> composites;  // maci::crit_composite of each: the controller's judge_scores
};

// Binds the judge panel and settings of a debate. Cheap; create one where needed.
class Judge {
 public:
  explicit Judge(Debate& debate);

  // Quality of one response to the task on the configured scale, mapped to [0, 1].
  Async<ScoreVerdict> score(const JudgedResponse& response, int round);
  // Scores several responses independently (all judges' calls in parallel).
  Async<std::vector<ScoreVerdict>> score_each(const std::vector<JudgedResponse>& responses, int round);
  // Which of two responses is better (majority over the panel).
  Async<CompareVerdict> compare(const JudgedResponse& first, const JudgedResponse& second, int round);
  // Order of several responses, best first (mean or median rank position over the panel).
  Async<RankVerdict> rank(const std::vector<JudgedResponse>& responses, int round);
  // MACI's CRIT (App. E.4–E.6): every judge rates every argument alone — masked, without the
  // opponent's text, with the question and its options only — on evidence support, logical coherence and query
  // relevance in [0, 1]; the composite is their mean, recomputed (the judge's own is recorded
  // only). Each judge meets the arguments in an order shuffled per round. Verdicts in input order.
  Async<std::vector<CritVerdict>> crit(const std::vector<JudgedArgument>& arguments, int round,
                                       double temperature = kCritTemperature);

 private:
  Debate& debate_;
};

}  // namespace parley
