// svr_mad: SVR-MAD (Jiang et al. 2026, Algorithm 1). N agents answer independently (the
// pre-debate answers y_i, with their prior signals); a question with a unanimous pre-debate
// answer ends there. Correctness scores start from a prior signal. Repeatedly, the agent with
// the highest score is the receiver, the top-S agents that disagree with it (by score) challenge
// it one at a time in pairwise debates, and its score becomes its survival rate
// SVR = (r − c)/D (posterior-dominant rule, §4). The receiver's answer is accepted as soon as
// its score reaches the threshold after debates with at least C distinct challengers (App. A:
// 100% survival against at least C challengers); the budget B = S·(k + m) falls by S per
// receiver; when it runs out, the fallback vote of §4 decides. Choices the paper leaves open:
// docs/protocols.md ("svr_mad").
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "protocols/debate.h"
#include "protocols/prompts.h"
#include "protocols/protocols.h"
#include "protocols/vote.h"

namespace parley {
namespace {

using Json = nlohmann::json;

// A confidence-like signal of one reply (§3) on a probability scale, so that a prior and the
// survival rate that replaces it (in [−1, 1]) rank agents on comparable scales: min
// log-likelihood as exp(min-LL), the least likely token's probability; perplexity as 1/PPL, the
// geometric-mean token probability; the self-reported confidence as stated. Both maps keep the
// signals' order. Missing: the lowest score.
enum class Signal { kMinLogLikelihood, kPerplexity, kConfidence, kSurvival };

constexpr double kMissing = -std::numeric_limits<double>::infinity();

double signal_of(Signal signal, const Turn& turn) {
  switch (signal) {
    case Signal::kMinLogLikelihood:
      return turn.logprobs ? std::exp(turn.logprobs->min_token_logprob) : kMissing;
    case Signal::kPerplexity:
      return turn.logprobs && turn.logprobs->perplexity > 0.0 ? 1.0 / turn.logprobs->perplexity : kMissing;
    case Signal::kConfidence:
      return turn.answer.confidence.value_or(kMissing);
    case Signal::kSurvival:
      break;
  }
  return kMissing;
}

// The signal a debate ranks by when `wanted` is read from log-probabilities (min_ll, ppl) and
// no pre-debate reply carried any (a server that returns none): the stated confidence, for
// every agent alike. One reply without them among others that have them still ranks lowest.
// docs/protocols.md, "Backend capabilities and fallbacks".
Signal signal_used(Signal wanted, bool logprobs_returned) {
  const bool from_logprobs = wanted == Signal::kMinLogLikelihood || wanted == Signal::kPerplexity;
  return from_logprobs && !logprobs_returned ? Signal::kConfidence : wanted;
}

const char* signal_name(Signal signal) {
  switch (signal) {
    case Signal::kMinLogLikelihood:
      return "min_ll";
    case Signal::kPerplexity:
      return "ppl";
    case Signal::kConfidence:
      return "confidence";
    case Signal::kSurvival:
      break;
  }
  return "svr";
}

std::optional<Signal> signal_named(const std::string& name) {
  if (name == "min_ll") return Signal::kMinLogLikelihood;
  if (name == "ppl") return Signal::kPerplexity;
  if (name == "confidence") return Signal::kConfidence;
  if (name == "svr") return Signal::kSurvival;
  return std::nullopt;
}

Json number_or_null(double x) { return std::isfinite(x) ? Json(x) : Json(nullptr); }

struct Settings {
  int agents = 6;
  int communications = 2;  // S
  int challengers = 2;     // C
  double threshold = 1.0;  // τ, on the posterior's scale
  Signal prior = Signal::kMinLogLikelihood;
  Signal posterior = Signal::kSurvival;
};

// One agent's standing in Algorithm 1.
struct Standing {
  Seat seat;
  Turn pre_debate;      // its pre-debate reply: what it shows as a challenger
  std::string initial;  // y_i, its pre-debate answer ("" when unparsed)
  double prior = kMissing;
  int debates = 0;                       // D
  int retained = 0;                      // r
  int changed = 0;                       // c
  std::set<std::size_t> challenged_by;   // the distinct challengers it debated (App. A's C)
  double signal_sum = 0.0;               // App. B posteriors: the sum of the post-debate signal
  std::vector<std::string> post_debate;  // its answers after each debate, in order

  // The posterior-dominant rule (§4): the prior until debate evidence exists.
  double score(Signal posterior) const {
    if (debates == 0) return prior;
    if (posterior == Signal::kSurvival) return static_cast<double>(retained - changed) / debates;  // SVR
    return signal_sum / debates;  // App. B: the mean post-debate signal
  }
};

// The answers' grouping key, as the vote groups them.
std::string key_of(const Task& task, const std::string& answer) {
  return answer.empty() ? std::string() : vote_key(answer, task.answer_type);
}

class SvrMad final : public Protocol {
 public:
  explicit SvrMad(Settings settings) : settings_(settings) {}

  Async<std::optional<std::string>> run(Debate& debate) const override {
    const Task& task = debate.task();
    std::vector<Standing> agents = co_await pre_debate(debate);
    const bool logprobs_returned = std::any_of(
        agents.begin(), agents.end(), [](const Standing& a) { return a.pre_debate.logprobs.has_value(); });
    const Signal posterior = signal_used(settings_.posterior, logprobs_returned);

    std::vector<Answer> pre_debate_answers;
    for (const Standing& a : agents) pre_debate_answers.push_back(a.pre_debate.answer);
    if (unanimous(pre_debate_answers, task.answer_type)) {
      debate.event(0, "stop", Json{{"reason", "unanimous"}, {"answer", agents[0].initial}}.dump());
      co_return agents[0].initial;  // a unanimous pre-debate answer needs no debate (§5, App. A)
    }
    // Pre-debate clusters: k distinct answers, the largest of size m (App. A budget).
    std::map<std::string, int> clusters;
    for (const Standing& a : agents)
      if (!a.initial.empty()) ++clusters[key_of(task, a.initial)];
    const int largest = largest_agreement(pre_debate_answers, task.answer_type);
    int budget = settings_.communications * (static_cast<int>(clusters.size()) + largest);  // B = S·(k + m)
    debate.event(0, "budget",
                 Json{{"budget", budget}, {"clusters", clusters.size()}, {"largest", largest}}.dump());

    int round = 0;  // each pairwise debate is one round of the transcript
    while (budget > 0) {
      const std::optional<std::size_t> top = best(agents);
      if (!top) break;  // no agent has a pre-debate answer to defend
      const std::size_t receiver = *top;
      // Challengers: the top-S agents that disagree with the receiver's pre-debate answer
      // (Algorithm 1 line 7: y_j ≠ y_r; an agent without an answer holds no y_j to disagree with).
      std::vector<std::size_t> challengers;
      for (std::size_t i = 0; i < agents.size(); ++i)
        if (!agents[i].initial.empty() && key_of(task, agents[i].initial) != key_of(task, agents[receiver].initial))
          challengers.push_back(i);
      std::stable_sort(challengers.begin(), challengers.end(), [&](std::size_t a, std::size_t b) {
        return agents[a].score(settings_.posterior) > agents[b].score(settings_.posterior);
      });
      if (challengers.size() > static_cast<std::size_t>(settings_.communications))
        challengers.resize(static_cast<std::size_t>(settings_.communications));
      for (std::size_t challenger : challengers) {
        co_await challenge(debate, ++round, agents[receiver], agents[challenger], posterior);
        agents[receiver].challenged_by.insert(challenger);
        if (accepted(agents[receiver])) {
          debate.event(round, "stop",
                       Json{{"reason", "accepted"},
                            {"agent", agents[receiver].seat.agent.name},
                            {"answer", agents[receiver].initial},
                            {"score", agents[receiver].score(settings_.posterior)},
                            {"debates", agents[receiver].debates},
                            {"challengers", agents[receiver].challenged_by.size()}}
                           .dump());
          record_scores(debate, round, agents);
          co_return agents[receiver].initial;
        }
      }
      budget -= settings_.communications;  // line 16
      if (challengers.empty()) break;      // nobody disagrees with the receiver: no debate can change it
    }
    record_scores(debate, round, agents);
    co_return fallback(debate, round, agents);
  }

 private:
  // Round 0: every agent answers on its own, with log-probabilities for the priors.
  Async<std::vector<Standing>> pre_debate(Debate& debate) const {
    std::vector<Seat> seats = take_seats(debate, static_cast<std::size_t>(settings_.agents));
    co_await answer_independently(debate, seats, 0, /*logprobs=*/true);
    const bool logprobs_returned = std::any_of(
        seats.begin(), seats.end(), [](const Seat& seat) { return seat.latest.logprobs.has_value(); });
    const Signal prior = signal_used(settings_.prior, logprobs_returned);
    const Signal posterior = signal_used(settings_.posterior, logprobs_returned);  // as run() finds it
    if (prior != settings_.prior || posterior != settings_.posterior) {
      debate.event(
          0, "no_logprobs",
          Json{{"reason",
                "no pre-debate reply carried token log-probabilities: the stated confidence stands in"},
               {"prior", signal_name(prior)},
               {"posterior", signal_name(posterior)}}
              .dump());
    }
    std::vector<Standing> agents;
    Json priors = Json::array();
    for (std::size_t i = 0; i < seats.size(); ++i) {
      Standing a;
      a.seat = std::move(seats[i]);
      a.pre_debate = a.seat.latest;
      a.initial = a.pre_debate.answer.value.value_or("");
      a.prior = signal_of(prior, a.pre_debate);
      const Turn& t = a.pre_debate;
      priors.push_back(
          {{"agent", a.seat.agent.name},
           {"answer", a.initial},
           {"min_ll", t.logprobs ? number_or_null(t.logprobs->min_token_logprob) : Json(nullptr)},
           {"ppl", t.logprobs ? number_or_null(t.logprobs->perplexity) : Json(nullptr)},
           {"confidence", t.answer.confidence ? Json(*t.answer.confidence) : Json(nullptr)},
           {"prior", number_or_null(a.prior)},
           {"correct", !a.initial.empty() && answers_match(debate.task(), a.initial)}});
      agents.push_back(std::move(a));
    }
    debate.event(0, "priors", priors.dump());  // the pre-debate signals, for the difficulty analysis
    co_return agents;
  }

  // The final scores (posterior-dominant), for the difficulty analysis of Fig. 1.
  void record_scores(Debate& debate, int round, const std::vector<Standing>& agents) const {
    Json scores = Json::array();
    for (const Standing& a : agents)
      scores.push_back({{"agent", a.seat.agent.name},
                        {"score", number_or_null(a.score(settings_.posterior))},
                        {"debates", a.debates}});
    debate.event(round, "scores", scores.dump());
  }

  // The agent with the highest score; ties go to the first (agent order).
  // The receiver: the highest-scored agent with a pre-debate answer (the first on ties); an
  // agent whose pre-debate reply had no answer has no y_r to defend.
  std::optional<std::size_t> best(const std::vector<Standing>& agents) const {
    std::optional<std::size_t> top;
    for (std::size_t i = 0; i < agents.size(); ++i) {
      if (agents[i].initial.empty()) continue;
      if (!top || agents[i].score(settings_.posterior) > agents[*top].score(settings_.posterior)) top = i;
    }
    return top;
  }

  // App. A: "100% SVR for at least C challengers" -- distinct agents, so that debating the
  // same challenger again does not count twice. A receiver with fewer than C disagreeing
  // agents can never be accepted (docs/protocols.md).
  bool accepted(const Standing& a) const {
    return static_cast<int>(a.challenged_by.size()) >= settings_.challengers &&
           a.score(settings_.posterior) >= settings_.threshold;
  }

  // Debate(A_s → A_r): the challenger's pre-debate reply (its solution, and the answer and
  // confidence it stated there) is shown to the receiver in Du et al.'s format; the receiver's
  // conversation continues across its debates. The outcome is "retain" when its answer
  // afterwards is still its pre-debate answer y_r.
  Async<void> challenge(Debate& debate, int round, Standing& receiver, const Standing& challenger,
                        Signal posterior) const {
    Seat& seat = receiver.seat;
    seat.history.push_back(ChatMessage{"assistant", seat.latest.text});
    seat.history.push_back(ChatMessage{
        "user", peer_solutions_prompt(debate.task(),
                                      {PeerSolution{challenger.seat.agent.name, challenger.pre_debate.text}})});
    TurnInfo info;
    info.round = round;
    info.turn = "revise";
    info.logprobs = settings_.posterior != Signal::kSurvival;
    info.shown = {peer_view(challenger.pre_debate)};
    seat.latest = co_await debate.ask(seat.agent, seat.history, std::move(info));
    const std::string after = seat.latest.answer.value.value_or("");
    const bool retained =
        !after.empty() && key_of(debate.task(), after) == key_of(debate.task(), receiver.initial);
    ++receiver.debates;
    ++(retained ? receiver.retained : receiver.changed);
    if (posterior != Signal::kSurvival) {
      const double signal = signal_of(posterior, seat.latest);
      receiver.signal_sum += std::isfinite(signal) ? signal : 0.0;
    }
    receiver.post_debate.push_back(after);
    debate.event(round, "svr",
                 Json{{"receiver", seat.agent.name},
                      {"challenger", challenger.seat.agent.name},
                      {"outcome", retained ? "retain" : "change"},
                      {"answer", after},
                      {"D", receiver.debates},
                      {"r", receiver.retained},
                      {"c", receiver.changed},
                      {"score", number_or_null(receiver.score(settings_.posterior))}}
                     .dump());
  }

  // An agent's fallback vote: the most frequent of its post-debate answers, its pre-debate
  // answer when that is among the most frequent (the tiebreaker) or when it never debated.
  static std::string vote_of(const Task& task, const Standing& a) {
    std::map<std::string, int> count;
    std::vector<std::string> order;
    for (const std::string& answer : a.post_debate)
      if (!answer.empty() && count[key_of(task, answer)]++ == 0) order.push_back(answer);
    if (order.empty()) return a.initial;
    int most = 0;
    for (const auto& [key, n] : count) most = std::max(most, n);
    if (!a.initial.empty() && count[key_of(task, a.initial)] == most) return a.initial;
    for (const std::string& answer : order)
      if (count[key_of(task, answer)] == most) return answer;
    return a.initial;
  }

  // §4 fallback: each agent votes the majority of its post-debate answers (its pre-debate answer
  // breaking ties, and standing alone when it never debated); the majority of the N votes wins,
  // ties going to the answer with more pre-debate support.
  std::optional<std::string> fallback(Debate& debate, int round, const std::vector<Standing>& agents) const {
    const Task& task = debate.task();
    std::map<std::string, int> initial_support;
    for (const Standing& a : agents)
      if (!a.initial.empty()) ++initial_support[key_of(task, a.initial)];
    std::vector<std::string> votes;
    for (const Standing& a : agents) votes.push_back(vote_of(task, a));
    std::map<std::string, int> tally;
    std::map<std::string, std::string> spelled;
    for (const std::string& vote : votes) {
      if (vote.empty()) continue;
      ++tally[key_of(task, vote)];
      spelled.emplace(key_of(task, vote), vote);
    }
    std::optional<std::string> winner;
    int winner_votes = 0, winner_support = -1;
    for (const std::string& vote : votes) {  // agent order: the first of equals wins
      if (vote.empty()) continue;
      const std::string key = key_of(task, vote);
      const int support = initial_support.count(key) ? initial_support.at(key) : 0;
      if (tally[key] > winner_votes || (tally[key] == winner_votes && support > winner_support)) {
        winner = spelled[key];
        winner_votes = tally[key];
        winner_support = support;
      }
    }
    debate.event(
        round, "stop",
        Json{{"reason", "budget"}, {"votes", votes}, {"answer", winner ? Json(*winner) : Json(nullptr)}}
            .dump());
    return winner;
  }

  Settings settings_;
};

std::string check_signal(const ParamValue& value, bool allow_svr) {
  const auto* name = std::get_if<std::string>(&value);
  const auto signal = name ? signal_named(*name) : std::nullopt;
  if (!signal || (!allow_svr && *signal == Signal::kSurvival))
    return allow_svr ? "expected svr, min_ll, ppl or confidence" : "expected min_ll, ppl or confidence";
  return {};
}

}  // namespace

ProtocolInfo svr_mad_protocol() {
  ParamSpec prior{
      "prior",      ParamKind::kString, std::string("min_ll"),
      std::nullopt, std::nullopt,       "prior signal of the pre-debate answers: min_ll, ppl or confidence"};
  prior.check = [](const ParamValue& v) { return check_signal(v, false); };
  ParamSpec posterior{
      "posterior",
      ParamKind::kString,
      std::string("svr"),
      std::nullopt,
      std::nullopt,
      "posterior score: svr, or (App. B ablation) the mean post-debate min_ll, ppl or confidence"};
  posterior.check = [](const ParamValue& v) { return check_signal(v, true); };
  return {
      "svr_mad",
      "posterior-guided graph: receivers by score, top-S disagreeing challengers, accept on survival (SVR)",
      "Jiang et al. 2026, SVR-MAD: A Bayesian-Inspired Framework for Posterior-Guided Multi-Agent Debate",
      {{"agents", ParamKind::kInt, std::int64_t{6}, 2, 64, "agents N"},
       {"communications", ParamKind::kInt, std::int64_t{2}, 1, 64, "challengers per receiver S"},
       {"challengers", ParamKind::kInt, std::int64_t{2}, 1, 64,
        "distinct challengers C a receiver must survive to be accepted"},
       {"threshold", ParamKind::kDouble, 1.0, -1.0, 1.0,
        "acceptance threshold on the posterior score (1 = 100% SVR)"},
       std::move(prior),
       std::move(posterior)},
      [](const ProtocolParams& p) {
        Settings s;
        s.agents = static_cast<int>(p.integer("agents"));
        s.communications = static_cast<int>(p.integer("communications"));
        s.challengers = static_cast<int>(p.integer("challengers"));
        s.threshold = p.real("threshold");
        s.prior = *signal_named(p.text("prior"));
        s.posterior = *signal_named(p.text("posterior"));
        return std::make_unique<SvrMad>(s);
      }};
}

}  // namespace parley
