#include "llm/simulator_judge.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "llm/simulator_argument.h"

namespace parley::sim {
namespace {

using Json = nlohmann::json;

std::string label_of(const PeerView& shown) { return shown.label.empty() ? shown.agent : shown.label; }

// Whether the judge takes the response for correct: it sees the truth with probability
// σ(judge_slope · (a − d) + judge_bias), otherwise the opposite. An unparsed answer is wrong.
bool perceived_correct(const SimulatorParams& params, const SimulatorProfile& profile, const TaskLatents& task,
                       const Task& gold, const PeerView& shown, Rng& rng) {
  const bool correct = !shown.answer.empty() && matches_gold(gold, shown.answer);
  const double sees_truth = logistic(params.judge_slope * (profile.ability - task.difficulty) + params.judge_bias);
  return rng.uniform() < sees_truth ? correct : !correct;
}

std::string reason(const PeerView& shown, bool good) {
  const std::string answer = shown.answer.empty() ? "no clear answer" : "answer " + shown.answer;
  return fmt::format("{} reaches {}, {}.", label_of(shown), answer,
                     good ? "and the reasoning supports it" : "but the reasoning does not hold up");
}

// Likert 1–5: 4 or 5 for a response taken as right, 1–3 otherwise.
int likert(bool good, Rng& rng) {
  const double u = rng.uniform();
  if (good) return u < 0.5 ? 5 : 4;
  return u < 0.3 ? 1 : u < 0.8 ? 2 : 3;
}

// MAD's judge (iMAD App. A.1) over the affirmative and negative sides it was shown: which side
// it supports and whether it is confident enough to stop. Both sides stating one answer settle
// the debate; otherwise it prefers (Preference = Yes) the one side it takes for right, and when
// it takes both or neither for right it leans (Preference = No) to the more confident side, a
// coin between equals. An unparsed side is never taken for right nor chosen while the other
// side has an answer.
struct MadLean {
  bool preference = false;
  std::size_t side = 0;  // index into shown
  std::string answer;
};

MadLean mad_lean(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                 const TaskLatents& task, std::vector<bool> good, Rng& rng) {
  const std::vector<PeerView>& shown = note.shown;
  for (std::size_t i = 0; i < 2; ++i) good[i] = good[i] && !shown[i].answer.empty();
  MadLean lean;
  if (!shown[0].answer.empty() && shown[0].answer == shown[1].answer) {
    lean.preference = true;
  } else if (good[0] != good[1]) {
    lean.preference = true;
    lean.side = good[0] ? 0 : 1;
  } else {
    const double c0 = shown[0].confidence.value_or(0.0), c1 = shown[1].confidence.value_or(0.0);
    lean.side = c0 != c1 ? (c0 > c1 ? 0 : 1) : (rng.uniform() < 0.5 ? 0 : 1);
    if (shown[lean.side].answer.empty()) lean.side = 1 - lean.side;
  }
  lean.answer = shown[lean.side].answer;
  if (lean.answer.empty()) {
    // Neither side stated an answer: the judge answers the question itself.
    Annotations own = note;
    own.turn = "answer";
    own.shown.clear();
    lean.answer = decide(params, profile, own, 0.0, task).answer;
  }
  return lean;
}

// Eq. (19)'s constants (named here, not in the parameter file: see simulator_argument.cc).
constexpr double kCritNoise = 0.1;          // σ: one judge's reading of one criterion
constexpr double kCritFamilyBiasSd = 0.05;  // sd of b_f across judge families

// One clause of the CRIT justification, by how high the sub-score is.
const char* band(double score, const char* high, const char* middle, const char* low) {
  return score >= 0.7 ? high : score >= 0.4 ? middle : low;
}

}  // namespace

double crit_family_bias(std::string_view model) {
  Rng rng(HashBuilder().add("crit_family").add(model).value());
  return kCritFamilyBiasSd * rng.normal();
}

std::string write_crit_reply(std::string_view model, const Annotations& note, const TaskLatents& task,
                             bool format_error) {
  if (note.shown.empty() || !note.shown[0].argument || !note.task) return "There is nothing to judge.";
  if (format_error) return "The argument reads as fairly convincing; I would rate it well on all three criteria.";
  const PeerView& shown = note.shown[0];
  const int stance = shown.answer.empty() ? 0 : matches_gold(*note.task, shown.answer) ? 1 : -1;
  const ArgumentKey key{note.seed, note.task->id, shown.agent, shown.argument->round, shown.argument->index, stance};
  const double quality = argument_quality(key, task);
  const double bias = crit_family_bias(model);
  const char* const criteria[] = {"evidence", "logic", "relevance"};
  double scores[std::size(criteria)];
  for (std::size_t c = 0; c < std::size(criteria); ++c) {
    HashBuilder h;
    h.add("crit").add(note.seed).add(note.task->id).add(note.agent).add(note.round);
    h.add(key.agent).add(key.round).add(key.index).add(criteria[c]);
    Rng rng(h.value());
    scores[c] = std::round(std::clamp(quality + bias + kCritNoise * rng.normal(), 0.0, 1.0) * 100.0) / 100.0;
  }
  Json verdict;
  for (std::size_t c = 0; c < std::size(criteria); ++c) verdict[criteria[c]] = scores[c];
  verdict["composite"] = std::round((scores[0] + scores[1] + scores[2]) / 3.0 * 100.0) / 100.0;
  verdict["justification"] =
      fmt::format("The claim is {} by the cited evidence, the reasoning is {}, and it {} the question.",
                  band(scores[0], "well supported", "partly supported", "poorly supported"),
                  band(scores[1], "sound", "partly sound", "flawed"),
                  band(scores[2], "directly addresses", "partly addresses", "barely addresses"));
  return verdict.dump();
}

bool is_judge_turn(std::string_view turn) { return turn.rfind("judge", 0) == 0; }

std::string_view judge_kind(std::string_view turn) {
  constexpr std::string_view kReask = "_reask";
  if (turn.size() > kReask.size() && turn.substr(turn.size() - kReask.size()) == kReask)
    turn.remove_suffix(kReask.size());
  return turn;
}

std::string write_judge_reply(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                              const TaskLatents& task, bool format_error, Rng& rng) {
  const std::vector<PeerView>& shown = note.shown;
  std::vector<bool> good;
  for (const auto& s : shown) good.push_back(perceived_correct(params, profile, task, *note.task, s, rng));
  if (format_error || shown.empty()) {
    return shown.empty() ? "There is nothing to judge."
                         : fmt::format("Having read it carefully, I find {} convincing overall.", label_of(shown[0]));
  }
  const std::string_view kind = judge_kind(note.turn);
  Json verdict;
  if (kind == "judge_score") {
    verdict["score"] = likert(good[0], rng);
    verdict["reason"] = reason(shown[0], good[0]);
  } else if (kind == "judge_rubric") {
    const double value = good[0] ? rng.uniform(0.7, 1.0) : rng.uniform(0.0, 0.4);
    verdict["score"] = std::round(value * 100.0) / 100.0;
    verdict["reason"] = reason(shown[0], good[0]);
  } else if (kind == "judge_compare" && shown.size() == 2) {
    // The response taken as right wins; between equals, the more confident one, else a coin.
    std::size_t winner = good[0] != good[1] ? (good[0] ? 0 : 1) : (rng.uniform() < 0.5 ? 0 : 1);
    if (good[0] == good[1] && shown[0].confidence && shown[1].confidence &&
        *shown[0].confidence != *shown[1].confidence) {
      winner = *shown[0].confidence > *shown[1].confidence ? 0 : 1;
    }
    verdict["winner"] = label_of(shown[winner]);
    verdict["reason"] = reason(shown[winner], good[winner]);
  } else if (kind == "judge_rank") {
    // Responses taken as right first; within each group a random order.
    std::vector<double> key;
    for (std::size_t i = 0; i < shown.size(); ++i) key.push_back((good[i] ? 1.0 : 0.0) + rng.uniform() * 0.5);
    std::vector<std::size_t> order(shown.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] > key[b]; });
    for (std::size_t i : order) verdict["ranking"].push_back(label_of(shown[i]));
    verdict["reason"] = reason(shown[order[0]], good[order[0]]);
  } else if ((kind == "judge_mad" || kind == "judge_final") && shown.size() == 2) {
    const MadLean lean = mad_lean(params, profile, note, task, good, rng);
    const std::string why = shown[0].answer == shown[1].answer && !shown[0].answer.empty()
                                ? fmt::format("Both sides agree on {}.", lean.answer)
                                : reason(shown[lean.side], good[lean.side]);
    if (kind == "judge_mad") {
      verdict["Preference"] = lean.preference ? "Yes" : "No";
      verdict["Supported Side"] = lean.side == 0 ? "Affirmative" : "Negative";
    }
    verdict["Reason"] = why;
    verdict["Debate Answer"] = lean.answer;
  } else {
    verdict["verdict"] = "unsupported judge kind";
  }
  return verdict.dump();
}

}  // namespace parley::sim
