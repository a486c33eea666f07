// Equations (1)–(9) of docs/simulator.md. Each function names the equations it implements.
#include "llm/simulator_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "core/hash.h"
#include "llm/simulator_policy.h"

namespace parley::sim {
namespace {

double clamp01(double x, double margin) { return std::clamp(x, margin, 1.0 - margin); }

// A standard logistic draw: σ(x) = P(x + ℓ > 0).
double logistic_noise(Rng& rng) {
  const double u = clamp01(rng.uniform(), 1e-12);
  return std::log(u / (1.0 - u));
}

// Share of the per-sample noise in ε, eq. (3).
double sample_weight(const SimulatorParams& params, double temperature) {
  return params.sample_noise_weight * std::clamp(temperature, 0.0, 1.0);
}

// Eq. (5): Beta draw around the profile's mean for a correct or a wrong answer, written as a
// whole percentage in [1, 99].
double draw_confidence(const SimulatorParams& params, const SimulatorProfile& profile, bool correct,
                       double difficulty, Rng& rng) {
  const double base = correct ? profile.confidence_correct_mean : profile.confidence_wrong_mean;
  const double mean = clamp01(base - params.confidence_difficulty_slope * difficulty, 0.02);
  const double c = rng.beta(mean * params.confidence_concentration, (1.0 - mean) * params.confidence_concentration);
  return std::clamp(std::round(100.0 * c), 1.0, 99.0) / 100.0;
}

double round_percent(double c) { return std::clamp(std::round(100.0 * c), 1.0, 99.0) / 100.0; }

// Eq. (4): the attractor with probability ρ, otherwise another wrong answer.
std::string draw_wrong_answer(const SimulatorParams& params, const AnswerSpace& space, Rng& rng) {
  if (space.wrong.empty()) return space.gold;  // a task with no wrong answer (one option)
  if (space.wrong.size() == 1 || rng.uniform() < params.attractor_probability) return space.wrong[0];
  return space.wrong[1 + rng.below(space.wrong.size() - 1)];
}

// Eqs. (3)–(5).
Decision decide_initial(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                        double temperature, const TaskLatents& task) {
  Rng agent_task(HashBuilder().add(params.version).add("agent-task").add(note.seed).add(note.task->id)
                     .add(note.agent).value());
  Rng rng(stream_seed(params, note, temperature, "initial"));
  const double w = sample_weight(params, temperature);
  const double epsilon = std::sqrt(1.0 - w) * logistic_noise(agent_task) + std::sqrt(w) * logistic_noise(rng);
  const double skill = params.correctness_slope * (profile.ability - task.difficulty) + task.shared;

  Decision d;
  d.latent = skill + epsilon;
  d.correct = d.latent > 0.0 || task.answers.wrong.empty();
  d.answer = d.correct ? task.answers.gold : draw_wrong_answer(params, task.answers, rng);
  d.confidence = draw_confidence(params, profile, d.correct, task.difficulty, rng);
  return d;
}

RevisionOption& option_for(std::vector<RevisionOption>& options, std::string_view answer, const Task& task) {
  for (auto& o : options)
    if (o.answer == answer) return o;
  options.push_back(RevisionOption{std::string(answer), matches_gold(task, answer)});
  return options.back();
}

// Eqs. (6)–(9), the draw of a RevisionChoice under `weights` (null: the simulator's own).
Decision decide_revision(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                         double temperature, const TaskLatents& task, const PolicyWeights* weights) {
  const RevisionChoice choice = revision_choice(params, profile, note, temperature, task);
  Decision d;
  d.previous = choice.previous;
  Rng rng(stream_seed(params, note, temperature, "revise"));
  const bool verified = choice.own_correct && rng.uniform() < choice.keep_probability;
  std::size_t chosen = 0;  // options[0] is the own answer
  if (!verified) {
    std::vector<double> utility(choice.options.size());
    for (std::size_t i = 0; i < utility.size(); ++i) {
      utility[i] = choice.options[i].base_utility;
      if (weights != nullptr)
        for (std::size_t f = 0; f < kPolicyFeatures; ++f) utility[i] += (*weights)[f] * choice.options[i].features[f];
    }
    const double highest = *std::max_element(utility.begin(), utility.end());
    double total = 0.0;
    for (const double u : utility) total += std::exp(u - highest);
    double u = rng.uniform() * total;
    for (std::size_t i = 0; i < utility.size(); ++i) {
      u -= std::exp(utility[i] - highest);
      chosen = i;
      if (u < 0.0) break;
    }
  }

  const RevisionOption& pick = choice.options[chosen];
  d.answer = pick.answer;
  d.correct = pick.gold;
  d.switched = chosen != 0;
  if (d.switched) {
    double best = -1.0;
    for (const auto& peer : note.shown) {
      const double c = peer.confidence.value_or(params.missing_peer_confidence);
      if (peer.answer == pick.answer && c > best) {
        best = c;
        d.persuader = peer.label.empty() ? peer.agent : peer.label;  // as the prompt named it
      }
    }
  }
  const double base = draw_confidence(params, profile, d.correct, task.difficulty, rng);
  const double share = choice.total_peer_support > 0.0 ? pick.peer_support / choice.total_peer_support : base;
  d.confidence = round_percent((1.0 - params.agreement_pull) * base + params.agreement_pull * share);
  return d;
}

// MAD's negative (iMAD App. A.1: "Disagree when warranted"). Its own view is an initial answer
// in round 1 and a revision after what it was shown later. A view that differs from the
// affirmative's answer y is what it argues; a view equal to y is kept (explicit agreement)
// unless, with probability negative_dissent, it argues another answer of the task's answer
// space instead, drawn uniformly (the gold among them when y is wrong).
Decision decide_negative(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                         double temperature, const TaskLatents& task, const PolicyWeights* weights) {
  Decision own = note.round <= 1 ? decide_initial(params, profile, note, temperature, task)
                                 : decide_revision(params, profile, note, temperature, task, weights);
  const auto affirmative = std::find_if(note.shown.begin(), note.shown.end(),
                                        [](const PeerView& p) { return p.label == "Affirmative"; });
  if (affirmative == note.shown.end() || affirmative->answer != own.answer) return own;
  Rng rng(stream_seed(params, note, temperature, "dissent"));
  if (rng.uniform() >= params.negative_dissent) return own;
  std::vector<std::string_view> others;
  if (task.answers.gold != own.answer) others.push_back(task.answers.gold);
  for (const auto& wrong : task.answers.wrong)
    if (wrong != own.answer) others.push_back(wrong);
  if (others.empty()) return own;
  Decision d;
  d.answer = std::string(others[rng.below(others.size())]);
  d.correct = matches_gold(*note.task, d.answer);
  d.confidence = draw_confidence(params, profile, d.correct, task.difficulty, rng);
  d.previous = own.answer;
  return d;
}

// MAD's affirmative opened from a single agent's answer (imad, down) restates that answer,
// which the request carries as the agent's own previous answer.
Decision restate_stance(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                        double temperature, const TaskLatents& task) {
  Rng rng(stream_seed(params, note, temperature, "restate"));
  Decision d;
  d.answer = *note.own_previous;
  d.previous = d.answer;
  d.correct = matches_gold(*note.task, d.answer);
  d.confidence = draw_confidence(params, profile, d.correct, task.difficulty, rng);
  return d;
}

// A compromised agent (UDPO §3.1; docs/simulator.md, "Compromised agents") argues the task's
// attractor, the plausible wrong answer honest agents drift to as well, in every turn of every
// kind, never revising it, at a high stated confidence: persuasive to peers that weigh support
// by confidence (eq. 6), and wrong.
Decision decide_adversary(const SimulatorParams& params, const Annotations& note, double temperature,
                          const TaskLatents& task) {
  Rng rng(stream_seed(params, note, temperature, "adversary"));
  Decision d;
  d.answer = task.answers.wrong.front();
  d.correct = false;
  const double mean = params.adversary_confidence_mean;
  d.confidence = round_percent(
      rng.beta(mean * params.confidence_concentration, (1.0 - mean) * params.confidence_concentration));
  if (turn_model(note) != TurnModel::kRevise) return d;
  d.previous = note.own_previous.value_or(d.answer);
  if (!d.previous.empty() && d.previous != d.answer) {
    d.answer = d.previous;  // (26b) it yielded in an earlier round and does not go back
  } else if (!note.shown.empty()) {
    // (26b) It yields to the plurality of what it was shown, when that is not its own answer,
    // with probability adversary_yield × the plurality's share of the shown peers.
    std::map<std::string_view, int> shown_by;
    for (const PeerView& peer : note.shown)
      if (!peer.answer.empty()) ++shown_by[peer.answer];
    const auto plurality = std::max_element(shown_by.begin(), shown_by.end(),
                                            [](const auto& a, const auto& b) { return a.second < b.second; });
    if (plurality != shown_by.end() && plurality->first != d.answer) {
      const double share = plurality->second / static_cast<double>(note.shown.size());
      if (rng.uniform() < params.adversary_yield * share) {
        d.answer = std::string(plurality->first);
        d.switched = true;
        for (const PeerView& peer : note.shown)  // the first shown holder, as the prompt named it
          if (peer.answer == d.answer && d.persuader.empty()) d.persuader = peer.label.empty() ? peer.agent : peer.label;
      }
    }
  }
  d.correct = matches_gold(*note.task, d.answer);
  return d;
}

}  // namespace

// Eqs. (6)–(8) before the draw: the options, their utilities and features, and eq. (7)'s
// probability of keeping a correct answer outright.
RevisionChoice revision_choice(const SimulatorParams& params, const SimulatorProfile& profile,
                               const Annotations& note, double temperature, const TaskLatents& task) {
  RevisionChoice choice;
  if (note.own_previous && !note.own_previous->empty()) {
    choice.previous = *note.own_previous;
  } else {
    // The agent's earlier reply was unparsed: it still holds what it meant in its first turn
    // (round 0; round 1 for MAD's debaters, whose debate starts there).
    Annotations initial = note;
    initial.round = is_mad_debater(note) ? 1 : 0;
    initial.shown.clear();
    choice.previous = decide_initial(params, profile, initial, temperature, task).answer;
  }
  choice.own_correct = matches_gold(*note.task, choice.previous);
  const double margin = profile.ability - task.difficulty;
  choice.keep_probability = choice.own_correct ? logistic(params.verify_slope * margin + params.verify_bias) : 0.0;

  std::vector<RevisionOption>& options = choice.options;
  options.reserve(note.shown.size() + 2);
  RevisionOption& own = option_for(options, choice.previous, *note.task);
  const double own_support =
      profile.self_trust * (choice.own_correct ? profile.confidence_correct_mean : profile.confidence_wrong_mean);
  own.features[kSupport] = own_support;
  std::map<std::string_view, int> shown_by;
  for (const auto& peer : note.shown) {
    if (peer.answer.empty()) continue;
    const double c = std::clamp(peer.confidence.value_or(params.missing_peer_confidence), 0.0, 1.0);
    RevisionOption& target = option_for(options, peer.answer, *note.task);
    target.features[kSupport] += c;
    target.peer_support += c;
    choice.total_peer_support += c;
    ++shown_by[peer.answer];
  }
  int most_shown = 0;
  for (const auto& [answer, count] : shown_by) most_shown = std::max(most_shown, count);

  bool gold_present = false;
  for (auto& o : options) {
    if (o.answer == choice.previous) o.features[kKeep] = 1.0;
    if (o.gold && !choice.own_correct) o.features[kRecognition] = params.recognize_slope * margin + params.recognize_bias;
    const auto shown = shown_by.find(o.answer);
    if (shown != shown_by.end() && shown->second == most_shown) o.features[kPlurality] = 1.0;
    o.base_utility = params.persuasion * o.features[kSupport] + profile.stubbornness * o.features[kKeep] +
                     o.features[kRecognition];
    gold_present = gold_present || o.gold;
  }
  if (!gold_present) {
    // Reflection: an unshown gold answer can still be found, rarely.
    RevisionOption gold{task.answers.gold, true};
    gold.features[kRecognition] = params.recognize_slope * margin + params.reflect_bias;
    gold.base_utility = gold.features[kRecognition];
    options.push_back(std::move(gold));
  }
  return choice;
}

bool is_self_critique_turn(const Annotations& note) {
  return note.turn == "self_critique" || note.turn == "self_critique_reask";
}

// Eqs. (13)–(16). Hesitation peaks where the margin z of eq. (3) is near 0: an agent that is
// clearly right, or coherently wrong (iMAD §4.1: "confidently incorrect"), argues weakly against
// itself; a borderline one writes a strong critique and sometimes changes its answer.
Critique decide_self_critique(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                              double temperature, const TaskLatents& task) {
  Annotations initial_note = note;
  initial_note.turn = "self_critique";
  initial_note.round = 0;
  Critique c;
  c.initial = decide_initial(params, profile, initial_note, temperature, task);
  Rng rng(stream_seed(params, initial_note, temperature, "critique"));
  const double width = params.critique_hesitation_width;
  c.hesitation = std::clamp(std::exp(-c.initial.latent * c.initial.latent / (2.0 * width * width)) +
                                params.critique_hesitation_noise * rng.normal(),
                            0.0, 1.0);
  c.critique_confidence = round_percent(params.critique_confidence_base +
                                        params.critique_confidence_slope * c.hesitation + 0.05 * rng.normal());
  // The alternative: a wrong answer against a right initial one; against a wrong one the gold
  // with probability critique_alternative_gold, else another wrong answer.
  std::vector<std::string_view> wrong_others;
  for (const auto& w : task.answers.wrong)
    if (w != c.initial.answer) wrong_others.push_back(w);
  if (c.initial.correct) {
    if (!task.answers.wrong.empty()) c.alternative = draw_wrong_answer(params, task.answers, rng);
  } else if (rng.uniform() < params.critique_alternative_gold || wrong_others.empty()) {
    c.alternative = task.answers.gold;
  } else {
    c.alternative = std::string(wrong_others[rng.below(wrong_others.size())]);
  }
  c.final = c.initial;
  c.final.previous = c.initial.answer;
  // Eq. (15): a hesitant agent recognises a correct alternative more readily than it adopts a
  // wrong one (iMAD App. C.1: self-critique improves accuracy).
  const bool alternative_gold = !c.alternative.empty() && matches_gold(*note.task, c.alternative);
  const double switch_probability =
      params.critique_switch * c.hesitation * (alternative_gold ? 1.0 : params.critique_switch_wrong);
  if (!c.alternative.empty() && rng.uniform() < switch_probability) {
    c.final.answer = c.alternative;
    c.final.correct = matches_gold(*note.task, c.alternative);
    c.final.switched = true;
    c.final.confidence = c.critique_confidence;
  } else {
    c.final.confidence = round_percent(c.initial.confidence * (1.0 - params.critique_confidence_drop * c.hesitation));
  }
  return c;
}

bool is_mad_debater(const Annotations& note) {
  const std::string_view turn = modelled_turn(note);
  return turn == "affirmative" || turn == "negative";
}

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Eqs. (1)–(2) and the attractor of eq. (4): properties of the task alone.
TaskLatents task_latents(const SimulatorParams& params, const Task& task) {
  TaskLatents latents;
  const std::uint64_t task_hash = HashBuilder().add(params.version).add("task").add(task.id).value();
  Rng rng(task_hash);
  const double drawn = rng.beta(params.difficulty_alpha, params.difficulty_beta);
  latents.difficulty = std::clamp(task.difficulty.value_or(drawn), 0.0, 1.0);
  latents.shared = params.shared_difficulty_sd * rng.normal();
  latents.answers = answer_space(task, rng.next());
  return latents;
}

std::string_view modelled_turn(const Annotations& note) {
  return note.turn == "reask" && !note.repeats.empty() ? std::string_view(note.repeats) : std::string_view(note.turn);
}

TurnModel turn_model(const Annotations& note) {
  const std::string_view turn = modelled_turn(note);
  if (turn == "revise" || turn == "negative") return TurnModel::kRevise;
  if (turn == "affirmative") return note.round > 1 ? TurnModel::kRevise : TurnModel::kInitial;
  // A first answer given after reading peers (same-round visibility) is that agent's own
  // initial opinion revised in the light of what it was shown.
  if (turn == "answer" && !note.shown.empty()) return TurnModel::kRevise;
  if (turn == "reask" && note.round >= 1) return TurnModel::kRevise;
  return TurnModel::kInitial;  // "answer", "sample", a round-0 "reask", and unknown kinds
}

std::uint64_t stream_seed(const SimulatorParams& params, const Annotations& note, double temperature,
                          std::string_view stream) {
  const bool sampled = temperature > 0.0;
  HashBuilder h;
  h.add(params.version).add(stream).add(note.seed).add(note.task ? std::string_view(note.task->id) : "")
      .add(note.agent).add(note.round);
  h.add(sampled ? note.sample : 0).add(sampled ? temperature : 0.0);
  return h.value();
}

Decision decide(const SimulatorParams& params, const SimulatorProfile& profile, const Annotations& note,
                double temperature, const TaskLatents& task, const PolicyWeights* weights) {
  if (note.compromised && !task.answers.wrong.empty()) return decide_adversary(params, note, temperature, task);
  if (modelled_turn(note) == "negative") return decide_negative(params, profile, note, temperature, task, weights);
  if (modelled_turn(note) == "affirmative" && note.round <= 1 && note.own_previous && !note.own_previous->empty())
    return restate_stance(params, profile, note, temperature, task);
  return turn_model(note) == TurnModel::kRevise ? decide_revision(params, profile, note, temperature, task, weights)
                                                : decide_initial(params, profile, note, temperature, task);
}

}  // namespace parley::sim
