// UDPO's diagnosis of debate collapse over a stored run (parley/diagnosis.h): failed against
// successful debates, the correlation matrix, selective prediction and difficulty strata.
#include "parley/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "parley/report.h"
#include "report/difficulty.h"

namespace parley {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kStrata = 5;                           // [0, 0.2), …, [0.8, 1.0] (§5.5, Fig. 5)
constexpr int kSelectiveStepPercent = 10;            // k = 10, 20, …, 100 (reading guide B.2)
constexpr std::string_view kStandardMad = "debate";  // the registry's flat Du et al. debate (UDPO §3.1)

// A U computed as a sum of shares lands a rounding error off a bin edge (0.6 / 3 is
// 0.19999999999999998, and a U of 0.2 must open [0.2, 0.4)): binned at 12 decimals, far finer
// than any share of a debate's turns and far coarser than the error.
double on_bin_grid(double u) { return std::round(u * 1e12) / 1e12; }

std::optional<double> metric_of(const Transcript& t, std::string_view name) {
  const auto found = t.metrics.find(std::string(name));
  if (found == t.metrics.end()) return std::nullopt;
  return found->second;
}

std::optional<double> share(std::int64_t part, std::int64_t whole) {
  if (whole == 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

GroupSummary group_summary(std::span<const double> values) {
  GroupSummary group;
  group.n = static_cast<std::int64_t>(values.size());
  if (!values.empty()) group.mean = mean(values);
  if (values.size() >= 2) group.sd = std::sqrt(sample_variance(values));
  return group;
}

// UDPO §3.2, Fig. 2: one U of the failed debates against the successful ones.
FailureSeparation failure_separation(const std::vector<const Transcript*>& debates, std::string_view metric) {
  std::vector<double> failed, successful;
  for (const Transcript* t : debates) {
    if (const std::optional<double> u = metric_of(*t, metric))
      (t->correct ? successful : failed).push_back(*u);
  }
  return FailureSeparation{std::string(metric),
                           group_summary(failed),
                           group_summary(successful),
                           welch_t_test(failed, successful),
                           student_t_test(failed, successful),
                           cohens_d(failed, successful)};
}

// UDPO §3.2, Fig. 3: the three U and correctness, over the debates that define all three.
CorrelationMatrix correlation_matrix(const std::vector<const Transcript*>& debates) {
  CorrelationMatrix matrix;
  matrix.variables.assign(kUncertaintyMetrics.begin(), kUncertaintyMetrics.end());
  matrix.variables.push_back("correct");
  std::vector<std::vector<double>> columns(matrix.variables.size());
  for (const Transcript* t : debates) {
    std::vector<double> row;
    for (std::string_view metric : kUncertaintyMetrics) {
      if (const std::optional<double> u = metric_of(*t, metric)) row.push_back(*u);
    }
    if (row.size() != kUncertaintyMetrics.size()) continue;
    row.push_back(t->correct ? 1.0 : 0.0);
    for (std::size_t i = 0; i < row.size(); ++i) columns[i].push_back(row[i]);
  }
  matrix.n = static_cast<std::int64_t>(columns.front().size());
  for (const std::vector<double>& x : columns) {
    std::vector<std::optional<CorrelationTest>>& cells = matrix.cells.emplace_back();
    for (const std::vector<double>& y : columns) cells.push_back(pearson_test(x, y));
  }
  return matrix;
}

// UDPO §3.2, Fig. 4: keep the ⌈k·n/100⌉ debates of lowest U, ties by task id, then seed.
SelectiveCurve selective_curve(const std::vector<const Transcript*>& debates, std::string_view metric) {
  struct Ranked {
    double u;
    const Transcript* debate;
  };
  std::vector<Ranked> ranked;
  for (const Transcript* t : debates) {
    if (const std::optional<double> u = metric_of(*t, metric)) ranked.push_back({*u, t});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    return std::tie(a.u, a.debate->task_id, a.debate->seed) <
           std::tie(b.u, b.debate->task_id, b.debate->seed);
  });
  SelectiveCurve curve{std::string(metric), static_cast<std::int64_t>(ranked.size()), {}};
  if (ranked.empty()) return curve;
  std::vector<std::int64_t> correct_before(ranked.size() + 1, 0);  // correct among the first i
  for (std::size_t i = 0; i < ranked.size(); ++i)
    correct_before[i + 1] = correct_before[i] + ranked[i].debate->correct;
  for (int k = kSelectiveStepPercent; k <= 100; k += kSelectiveStepPercent) {
    const std::int64_t kept = (k * curve.n + 99) / 100;  // ⌈k·n/100⌉ in integers
    const std::int64_t correct = correct_before[static_cast<std::size_t>(kept)];
    curve.points.push_back({k, kept, correct, static_cast<double>(correct) / static_cast<double>(kept)});
  }
  return curve;
}

using UnitDebates = std::map<UnitKey, const Transcript*>;

// §5.5, Fig. 5 (App. C.4, Fig. 11): the baseline's units binned by its U; in each bin, every
// other protocol on the units it ran, against the baseline on the same units.
DifficultyStrata difficulty_strata(std::string_view metric, const std::string& baseline,
                                   const std::map<std::string, UnitDebates>& units_of,
                                   std::int64_t baseline_failed, const std::vector<std::string>& others) {
  DifficultyStrata out{std::string(metric), baseline, 0, 0, baseline_failed, {}};
  for (int b = 0; b < kStrata; ++b) {
    Stratum& stratum = out.strata.emplace_back();
    stratum.low = b / static_cast<double>(kStrata);
    stratum.high = (b + 1) / static_cast<double>(kStrata);
    for (const std::string& other : others) stratum.protocols.push_back({.protocol = other});
  }
  for (const auto& [unit, debate] : units_of.at(baseline)) {
    const std::optional<double> u = metric_of(*debate, metric);
    if (!u) {
      ++out.without_metric;
      continue;
    }
    ++out.units;
    Stratum& stratum = out.strata[static_cast<std::size_t>(calibration_bin(on_bin_grid(*u), kStrata))];
    ++stratum.units;
    stratum.baseline_correct += debate->correct;
    for (StratumAccuracy& entry : stratum.protocols) {
      const UnitDebates& theirs = units_of.at(entry.protocol);
      const auto found = theirs.find(unit);
      if (found == theirs.end()) continue;
      ++entry.units;
      entry.correct += found->second->correct;
      entry.baseline_correct += debate->correct;
    }
  }
  for (Stratum& stratum : out.strata) {
    stratum.baseline_accuracy = share(stratum.baseline_correct, stratum.units);
    for (StratumAccuracy& entry : stratum.protocols) {
      entry.accuracy = share(entry.correct, entry.units);
      entry.baseline_accuracy = share(entry.baseline_correct, entry.units);
      if (entry.accuracy) entry.gain_pp = 100.0 * (*entry.accuracy - *entry.baseline_accuracy);
    }
  }
  return out;
}

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// ---- Rendering --------------------------------------------------------------------------------

constexpr std::string_view kUndefinedText = "—";

std::string display_name(std::string_view metric) {
  if (metric == "u_intra") return "U_intra";
  if (metric == "u_inter") return "U_inter";
  if (metric == "u_sys") return "U_sys";
  return std::string(metric);
}

std::string fixed(std::optional<double> x, int digits = 3) {
  return x ? fmt::format("{:.{}f}", *x, digits) : std::string(kUndefinedText);
}

// p-values: three significant digits, small ones in scientific notation (p < 0.001 is the
// paper's threshold; the JSON holds the full value).
std::string p_text(double p) {
  if (p == 0.0) return "0";  // below the smallest double (a perfect line)
  return p < 1e-3 ? fmt::format("{:.1e}", p) : fmt::format("{:.3g}", p);
}

std::string t_text(const std::optional<TTest>& test) {
  return test ? fmt::format("{:.3f}", test->t) : std::string(kUndefinedText);
}

std::string df_text(const std::optional<TTest>& test) {
  return test ? fmt::format("{:.1f}", test->df) : std::string(kUndefinedText);
}

std::string test_p_text(const std::optional<TTest>& test) {
  return test ? p_text(test->p) : std::string(kUndefinedText);
}

std::string correlation_text(const std::optional<CorrelationTest>& cell) {
  return cell ? fmt::format("{:.3f} (p {})", cell->r, p_text(cell->p)) : std::string(kUndefinedText);
}

// Pads to `width` columns; fmt counts "—" as one.
std::string cell(const std::string& text, std::size_t width) { return fmt::format("{:<{}}", text, width); }

// Ends a table row without the padding of its last cell.
void end_row(std::string& out) {
  out.erase(out.find_last_not_of(' ') + 1);
  out += '\n';
}

void render_protocol(std::string& out, const ProtocolDiagnosis& p) {
  out += fmt::format("{}: {} debates, {} correct (accuracy {})", p.protocol, p.debates, p.correct,
                     fixed(share(p.correct, p.debates)));
  if (p.failed_status > 0) out += fmt::format("; {} of status failed left out", p.failed_status);
  end_row(out);

  out +=
      "  Failed vs successful debates (Fig. 2): Welch's t-test (main), Student's pooled t-test, two-sided;\n"
      "  Cohen's d = (mean failed - mean successful) / pooled SD\n";
  out += fmt::format("    {}{}{}{}{}{}{}{}{}{}Cohen's d\n", cell("", 10), cell("failed n", 10),
                     cell("mean", 8), cell("succ. n", 9), cell("mean", 8), cell("Welch t", 10), cell("df", 8),
                     cell("p", 10), cell("Student t", 11), cell("p", 10));
  for (const FailureSeparation& s : p.separation) {
    out += fmt::format("    {}{}{}{}{}{}{}{}{}{}{}\n", cell(display_name(s.metric), 10),
                       cell(fmt::format("{}", s.failed.n), 10), cell(fixed(s.failed.mean), 8),
                       cell(fmt::format("{}", s.successful.n), 9), cell(fixed(s.successful.mean), 8),
                       cell(t_text(s.welch), 10), cell(df_text(s.welch), 8), cell(test_p_text(s.welch), 10),
                       cell(t_text(s.student), 11), cell(test_p_text(s.student), 10), fixed(s.cohens_d));
  }

  const CorrelationMatrix& m = p.correlations;
  out += fmt::format(
      "  Pearson r (two-sided p) over the {} debates defining all three U (Fig. 3); "
      "with correct (0/1) it is point-biserial\n",
      m.n);
  out += "    " + cell("", 10);
  for (const std::string& variable : m.variables) out += cell(display_name(variable), 22);
  end_row(out);
  for (std::size_t i = 0; i < m.variables.size(); ++i) {
    out += "    " + cell(display_name(m.variables[i]), 10);
    for (const std::optional<CorrelationTest>& c : m.cells[i]) out += cell(correlation_text(c), 22);
    end_row(out);
  }

  out +=
      "  Selective prediction (Fig. 4): accuracy (kept) of the k% debates of lowest U, ties by task id, then "
      "seed\n";
  out += "    " + cell("k%", 6);
  for (const SelectiveCurve& curve : p.selective)
    out += cell(fmt::format("{} (n {})", display_name(curve.metric), curve.n), 18);
  end_row(out);
  for (std::size_t row = 0; row * kSelectiveStepPercent < 100; ++row) {
    out += "    " + cell(fmt::format("{}", (row + 1) * kSelectiveStepPercent), 6);
    for (const SelectiveCurve& curve : p.selective) {
      out += cell(row < curve.points.size()
                      ? fmt::format("{:.3f} ({})", curve.points[row].accuracy, curve.points[row].kept)
                      : std::string(kUndefinedText),
                  18);
    }
    end_row(out);
  }
}

void render_strata(std::string& out, const DifficultyStrata& d) {
  out += fmt::format("Difficulty strata by {}'s {} on the same (task, seed) (Fig. 5): {} units", d.baseline,
                     display_name(d.metric), d.units);
  if (d.without_metric > 0)
    out += fmt::format("; {} without {} left out", d.without_metric, display_name(d.metric));
  if (d.baseline_failed > 0) out += fmt::format("; {} of status failed left out", d.baseline_failed);
  out +=
      "\n  accuracy (gain over the baseline on the same units, percentage points) [units run, when fewer]\n";
  out += "    " + cell(fmt::format("{} bin", display_name(d.metric)), 14) + cell("units", 7) +
         cell(d.baseline, 12);
  if (!d.strata.empty()) {
    for (const StratumAccuracy& entry : d.strata.front().protocols) out += cell(entry.protocol, 22);
  }
  end_row(out);
  for (const Stratum& s : d.strata) {
    const bool last = &s == &d.strata.back();
    out += "    " + cell(fmt::format("[{:.1f}, {:.1f}{}", s.low, s.high, last ? "]" : ")"), 14) +
           cell(fmt::format("{}", s.units), 7) + cell(fixed(s.baseline_accuracy), 12);
    for (const StratumAccuracy& entry : s.protocols) {
      std::string text = entry.gain_pp ? fmt::format("{} ({:+.1f})", fixed(entry.accuracy), *entry.gain_pp)
                                       : std::string(kUndefinedText);
      if (entry.units != s.units) text += fmt::format(" [{}]", entry.units);  // ran only some of the units
      out += cell(text, 22);
    }
    end_row(out);
  }
}

Json optional_json(const std::optional<double>& x) { return x ? Json(*x) : Json(nullptr); }

Json group_json(const GroupSummary& g) {
  return Json{{"n", g.n}, {"mean", optional_json(g.mean)}, {"sd", optional_json(g.sd)}};
}

Json test_json(const std::optional<TTest>& test) {
  if (!test) return nullptr;
  return Json{{"t", test->t}, {"df", test->df}, {"p", test->p}};
}

Json protocol_json(const ProtocolDiagnosis& p) {
  Json separation = Json::array();
  for (const FailureSeparation& s : p.separation) {
    separation.push_back({{"metric", s.metric},
                          {"failed", group_json(s.failed)},
                          {"successful", group_json(s.successful)},
                          {"welch", test_json(s.welch)},
                          {"student", test_json(s.student)},
                          {"cohens_d", optional_json(s.cohens_d)}});
  }
  Json r = Json::array(), p_values = Json::array();
  for (const auto& row : p.correlations.cells) {
    Json r_row = Json::array(), p_row = Json::array();
    for (const std::optional<CorrelationTest>& c : row) {
      r_row.push_back(c ? Json(c->r) : Json(nullptr));
      p_row.push_back(c ? Json(c->p) : Json(nullptr));
    }
    r.push_back(std::move(r_row));
    p_values.push_back(std::move(p_row));
  }
  Json selective = Json::array();
  for (const SelectiveCurve& curve : p.selective) {
    Json points = Json::array();
    for (const SelectivePoint& point : curve.points)
      points.push_back({{"k", point.percent},
                        {"kept", point.kept},
                        {"correct", point.correct},
                        {"accuracy", point.accuracy}});
    selective.push_back({{"metric", curve.metric}, {"n", curve.n}, {"points", std::move(points)}});
  }
  return Json{{"protocol", p.protocol},
              {"debates", p.debates},
              {"failed_status", p.failed_status},
              {"correct", p.correct},
              {"accuracy", optional_json(share(p.correct, p.debates))},
              {"failure_separation", std::move(separation)},
              {"correlations",
               {{"n", p.correlations.n}, {"variables", p.correlations.variables}, {"r", r}, {"p", p_values}}},
              {"selective_prediction", std::move(selective)}};
}

Json strata_json(const DifficultyStrata& d) {
  Json strata = Json::array();
  for (const Stratum& s : d.strata) {
    Json protocols = Json::array();
    for (const StratumAccuracy& e : s.protocols)
      protocols.push_back({{"protocol", e.protocol},
                           {"units", e.units},
                           {"correct", e.correct},
                           {"accuracy", optional_json(e.accuracy)},
                           {"baseline_correct", e.baseline_correct},
                           {"baseline_accuracy", optional_json(e.baseline_accuracy)},
                           {"gain_pp", optional_json(e.gain_pp)}});
    strata.push_back({{"low", s.low},
                      {"high", s.high},
                      {"units", s.units},
                      {"baseline_correct", s.baseline_correct},
                      {"baseline_accuracy", optional_json(s.baseline_accuracy)},
                      {"protocols", std::move(protocols)}});
  }
  return Json{{"metric", d.metric},
              {"baseline", d.baseline},
              {"units", d.units},
              {"without_metric", d.without_metric},
              {"baseline_failed", d.baseline_failed},
              {"strata", std::move(strata)}};
}

}  // namespace

Result<Diagnosis> diagnose(const std::vector<Transcript>& transcripts,
                           const std::vector<std::string>& protocol_order, const DiagnosisOptions& options) {
  const std::vector<std::string> protocols = protocols_in_order(transcripts, protocol_order);
  if (protocols.empty()) return Error{"no debates in this run"};
  const auto unknown = [&](const std::string& what, const std::string& name) {
    return Error{fmt::format("{}'{}' is not a protocol of this run (protocols: {})", what, name,
                             fmt::join(protocols, ", "))};
  };
  if (!options.protocol.empty() && !contains(protocols, options.protocol))
    return unknown("", options.protocol);
  Diagnosis diagnosis;
  diagnosis.simulated = options.simulated;
  diagnosis.baseline = !options.baseline.empty()           ? options.baseline
                       : contains(protocols, kStandardMad) ? std::string(kStandardMad)
                                                           : protocols.front();
  if (!contains(protocols, diagnosis.baseline)) return unknown("the baseline ", diagnosis.baseline);

  // Debates of status failed (an infrastructure error) say nothing about the debate: left out
  // and counted. Budget-halted ones are outcomes like any other.
  std::map<std::string, std::vector<const Transcript*>> debates_of;
  std::map<std::string, UnitDebates> units_of;
  std::map<std::string, std::int64_t> failed_of;
  for (const std::string& protocol : protocols) units_of[protocol];  // also one with only failed debates
  for (const Transcript& t : transcripts) {
    if (t.status == DebateStatus::kFailed) {
      ++failed_of[t.protocol];
      continue;
    }
    debates_of[t.protocol].push_back(&t);
    units_of[t.protocol][{t.task_id, t.seed}] = &t;
  }

  std::vector<std::string> others;  // the diagnosed protocols the strata compare with the baseline
  for (const std::string& protocol : protocols) {
    if (!options.protocol.empty() && protocol != options.protocol) continue;
    if (protocol != diagnosis.baseline) others.push_back(protocol);
    const std::vector<const Transcript*>& debates = debates_of[protocol];
    ProtocolDiagnosis& p = diagnosis.protocols.emplace_back();
    p.protocol = protocol;
    p.debates = static_cast<std::int64_t>(debates.size());
    p.failed_status = failed_of[protocol];
    p.correct = std::count_if(debates.begin(), debates.end(), [](const Transcript* t) { return t->correct; });
    for (std::string_view metric : kUncertaintyMetrics) {
      p.separation.push_back(failure_separation(debates, metric));
      p.selective.push_back(selective_curve(debates, metric));
    }
    p.correlations = correlation_matrix(debates);
  }
  for (std::string_view metric : {"u_sys", "u_intra", "u_inter"}) {
    diagnosis.strata.push_back(
        difficulty_strata(metric, diagnosis.baseline, units_of, failed_of[diagnosis.baseline], others));
  }
  return diagnosis;
}

std::string render_diagnosis(const Diagnosis& diagnosis) {
  std::string out;
  if (diagnosis.simulated) out += "SIMULATED: these numbers come from parley's built-in simulator.\n";
  out +=
      "UDPO's diagnosis of debate collapse (§3.2): failed = not correct; debates of status failed left out\n";
  for (const ProtocolDiagnosis& p : diagnosis.protocols) {
    out += "\n";
    render_protocol(out, p);
  }
  for (const DifficultyStrata& d : diagnosis.strata) {
    if (d.metric != "u_sys") continue;  // by U_intra and U_inter (Fig. 11): in the JSON
    out += "\n";
    render_strata(out, d);
  }
  return out;
}

std::string diagnosis_to_json(const Diagnosis& diagnosis) {
  Json protocols = Json::array(), strata = Json::array();
  for (const ProtocolDiagnosis& p : diagnosis.protocols) protocols.push_back(protocol_json(p));
  for (const DifficultyStrata& d : diagnosis.strata) strata.push_back(strata_json(d));
  return Json{{"simulated", diagnosis.simulated},
              {"baseline", diagnosis.baseline},
              {"protocols", std::move(protocols)},
              {"difficulty_strata", std::move(strata)}}
      .dump(2);
}

}  // namespace parley
