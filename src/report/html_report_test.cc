// The HTML report's data (Pareto front, per-round signals, harmed units, the plot list) against
// values worked out by hand, and the page's safety: hostile model text cannot end the data
// block, and the Content-Security-Policy hashes are those of the inlined bytes (recomputed here
// with OpenSSL, independently of the build's hashing).
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <string>

#include <nlohmann/json.hpp>

#include "parley/html_report.h"
#include "web/assets.h"

namespace parley {
namespace {

using Json = nlohmann::json;

ProtocolSummary point(const std::string& name, double accuracy, double tokens) {
  ProtocolSummary p;
  p.name = name;
  p.n = 10;
  p.graded = 10;
  p.accuracy = accuracy;
  p.tokens_in_mean = tokens * 0.75;
  p.tokens_out_mean = tokens * 0.25;
  return p;
}

TEST(ParetoFront, KeepsOnlyTheUndominated) {
  // b is dominated by a (as accurate, dearer); d by c (less accurate, as dear); e ties a exactly
  // and neither dominates the other.
  const std::vector<ProtocolSummary> protocols = {point("a", 0.8, 100), point("b", 0.8, 150), point("c", 0.9, 300),
                                                  point("d", 0.85, 300), point("e", 0.8, 100), point("f", 0.5, 20)};
  EXPECT_EQ(pareto_front(protocols), (std::vector<bool>{true, false, true, false, true, true}));
}

TEST(ParetoFront, OneProtocolIsOnIt) { EXPECT_EQ(pareto_front({point("a", 0.1, 5)}), std::vector<bool>{true}); }

// Without gold a protocol has no accuracy: it is not on the front, and dominates nothing (its
// accuracy of 0 and its cost are not weighed).
TEST(ParetoFront, AProtocolWithoutGoldIsNotOnItAndDominatesNothing) {
  std::vector<ProtocolSummary> protocols = {point("served", 0.0, 10), point("a", 0.5, 100)};
  protocols[0].graded = 0;
  EXPECT_EQ(pareto_front(protocols), (std::vector<bool>{false, true}));
  protocols[0].accuracy = 0.9;  // whatever it holds
  EXPECT_EQ(pareto_front(protocols), (std::vector<bool>{false, true}));
}

MessageRecord answer(int id, int round, const std::string& agent, std::optional<std::string> parsed) {
  MessageRecord m;
  m.id = id;
  m.round = round;
  m.agent = agent;
  m.role = round == 0 ? "answer" : "revise";
  m.answer = std::move(parsed);
  m.prompt_tokens = 100;
  m.completion_tokens = 20;
  return m;
}

Transcript unit(const std::string& protocol, const std::string& task, bool correct, std::optional<std::string> final_answer) {
  Transcript t;
  t.protocol = protocol;
  t.task_id = task;
  t.seed = 7;
  t.gold = "B";
  t.correct = correct;
  t.final_answer = std::move(final_answer);
  t.messages.push_back(answer(0, 0, "a1", t.final_answer));
  return t;
}

EventRecord maci_round(int round, double contentiousness, double disagreement) {
  return {round, "maci_round",
          Json{{"contentiousness", contentiousness}, {"disagreement", disagreement}, {"stop", ""}}.dump()};
}

TEST(RoundSignals, MeanAndMiddleHalfOfTheDebatesThatReachedEachRound) {
  std::vector<Transcript> run;
  // Four debates; CL at round 1 is 0.9, 0.8, 0.6, 0.5 and the last stops before round 2.
  const double round1[] = {0.9, 0.8, 0.6, 0.5};
  for (int i = 0; i < 4; ++i) {
    Transcript t = unit("maci", "q" + std::to_string(i), true, "B");
    t.events.push_back(maci_round(1, round1[i], 0.1 * i));
    if (i < 3) t.events.push_back(maci_round(2, 0.4, 0.2));
    run.push_back(t);
  }
  run.push_back(unit("single", "q0", true, "B"));  // another protocol: not counted
  const auto signals = round_signals(run, "maci");
  ASSERT_EQ(signals.size(), 2u);  // contentiousness, disagreement; one round of answers: no plurality share
  EXPECT_EQ(signals[0].name, "contentiousness");
  EXPECT_EQ(signals[0].label, "CL (contentiousness)");
  ASSERT_EQ(signals[0].points.size(), 2u);
  const RoundPoint& first = signals[0].points[0];
  EXPECT_EQ(first.round, 1);
  EXPECT_EQ(first.n, 4);
  EXPECT_DOUBLE_EQ(first.mean, 0.7);
  // Type 7 on 0.5, 0.6, 0.8, 0.9: h = 0.75 → 0.5 + 0.75·0.1 = 0.575; h = 2.25 → 0.8 + 0.25·0.1 = 0.825.
  EXPECT_NEAR(first.low, 0.575, 1e-12);
  EXPECT_NEAR(first.high, 0.825, 1e-12);
  EXPECT_EQ(signals[0].points[1].n, 3);
  EXPECT_DOUBLE_EQ(signals[0].points[1].mean, 0.4);
  EXPECT_EQ(signals[1].name, "disagreement");
  EXPECT_NEAR(signals[1].points[0].mean, (0.0 + 0.1 + 0.2 + 0.3) / 4, 1e-12);
}

TEST(RoundSignals, PluralityShareCountsOnlyParsedAnswersOfAnsweringAgents) {
  Transcript t = unit("debate", "q1", true, "B");
  t.messages = {answer(0, 0, "a1", "A"), answer(1, 0, "a2", "B"), answer(2, 0, "a3", "B"), answer(3, 0, "a4", std::nullopt),
                answer(4, 1, "a1", "B"), answer(5, 1, "a2", "B"), answer(6, 1, "a3", "B"), answer(7, 1, "a4", "C")};
  MessageRecord judge = answer(8, 1, "judge", "A");  // not an agent's answer
  judge.role = "judge";
  t.messages.push_back(judge);
  const auto signals = round_signals({t}, "debate");
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].name, "plurality_share");
  ASSERT_EQ(signals[0].points.size(), 2u);
  EXPECT_NEAR(signals[0].points[0].mean, 2.0 / 3.0, 1e-12);  // B by 2 of the 3 that parsed
  EXPECT_NEAR(signals[0].points[1].mean, 3.0 / 4.0, 1e-12);
}

// A run where debate harms one unit the single agent got right, and helps another.
std::vector<Transcript> two_protocols(const std::string& hostile) {
  return {unit("single", "q1", true, "B"), unit("single", "q2", false, "A"), unit("single", "q3", true, "B"),
          unit("debate", "q1", false, hostile), unit("debate", "q2", true, "B"), unit("debate", "q3", true, "B")};
}

TEST(ReportData, HoldsTheSummaryComparisonHarmedUnitsAndPlots) {
  auto data = report_data_json(two_protocols("C"), {"single", "debate"}, true, {.title = "run-1"});
  ASSERT_TRUE(data) << data.error().message;
  const Json j = Json::parse(*data);
  EXPECT_EQ(j["format"], "parley-report-1");
  EXPECT_EQ(j["title"], "run-1");
  EXPECT_EQ(j["simulated"], true);
  ASSERT_EQ(j["summary"]["protocols"].size(), 2u);
  EXPECT_EQ(j["summary"]["protocols"][1]["vs_single"]["right_wrong"], 1);
  // Both are 2/3 accurate at 120 tokens a task: neither dominates.
  EXPECT_EQ(j["pareto_front"], Json::array({"single", "debate"}));
  ASSERT_EQ(j["harmed"]["debate"].size(), 1u);
  EXPECT_EQ(j["harmed"]["debate"][0]["task_id"], "q1");
  EXPECT_EQ(j["harmed"]["debate"][0]["single_answer"], "B");
  EXPECT_EQ(j["harmed"]["debate"][0]["answer"], "C");
  EXPECT_EQ(j["harmed"]["debate"][0]["seed"], "7");
  ASSERT_EQ(j["comparison"]["comparisons"].size(), 3u);  // accuracy, tokens, calls
  EXPECT_EQ(j["comparison"]["comparisons"][0]["first"], "debate");
  EXPECT_EQ(j["comparison"]["comparisons"][0]["second"], "single");
  EXPECT_TRUE(j["diagnosis"].is_null());  // no U metric in these transcripts
  EXPECT_EQ(j["plots"], Json::array({"accuracy-tokens", "calls", "decisions", "comparison-accuracy",
                                     "comparison-tokens", "comparison-calls"}));
}

TEST(ReportData, AddsUncertaintyAndRoundPlotsWhenTheRunHasThem) {
  std::vector<Transcript> run = two_protocols("C");
  for (Transcript& t : run) {
    t.metrics["u_sys"] = t.correct ? 0.1 : 0.7;
    t.metrics["u_intra"] = 0.2;
    if (t.protocol == "debate") t.events.push_back(maci_round(1, 0.5, 0.3));
  }
  auto data = report_data_json(run, {"single", "debate"}, false);
  ASSERT_TRUE(data) << data.error().message;
  const Json j = Json::parse(*data);
  const Json plots = j["plots"];
  const auto has = [&](const std::string& id) { return std::find(plots.begin(), plots.end(), id) != plots.end(); };
  EXPECT_TRUE(has("uncertainty"));
  EXPECT_TRUE(has("separation"));  // both protocols have failed and successful debates
  EXPECT_TRUE(has("selective-prediction-u_sys"));
  EXPECT_TRUE(has("selective-prediction-u_intra"));
  EXPECT_FALSE(has("selective-prediction-u_inter"));
  ASSERT_EQ(j["rounds"].size(), 1u);  // only debate records maci_round
  EXPECT_EQ(j["rounds"][0]["protocol"], "debate");
  EXPECT_TRUE(has("rounds-0-contentiousness"));
  EXPECT_TRUE(has("rounds-0-disagreement"));
  EXPECT_TRUE(has("trace-0"));
  EXPECT_FALSE(has("agreement"));  // one round of answers: no plurality share
  EXPECT_EQ(j["rounds"][0]["traces"].size(), 3u);
  EXPECT_EQ(j["rounds"][0]["traces"][0]["signals"]["contentiousness"], Json::parse("[[1, 0.5]]"));
}

TEST(ReportData, AgreementIsOnePlotAndProtocolsWithoutControllerSignalsHaveNoTrace) {
  Transcript t = unit("debate", "q1", true, "B");
  t.messages = {answer(0, 0, "a1", "A"), answer(1, 0, "a2", "B"), answer(2, 1, "a1", "B"), answer(3, 1, "a2", "B")};
  auto data = report_data_json({t}, {}, false);
  ASSERT_TRUE(data) << data.error().message;
  const Json j = Json::parse(*data);
  EXPECT_EQ(j["plots"], Json::array({"accuracy-tokens", "calls", "agreement"}));
  EXPECT_EQ(j["rounds"][0]["signals"][0]["name"], "plurality_share");
}

TEST(ReportData, OnlyMaciRoundEventsThatParseGiveControllerSignals) {
  Transcript t = unit("maci", "q1", true, "B");
  t.events.push_back({1, "maci_schedule", Json{{"contentiousness", 0.9}}.dump()});  // a dial, not the state
  t.events.push_back({1, "maci_round", "not json {"});
  auto data = report_data_json({t}, {}, false);
  ASSERT_TRUE(data) << data.error().message;
  EXPECT_TRUE(Json::parse(*data)["rounds"].empty());
  t.events.push_back(maci_round(2, 0.4, 0.1));
  EXPECT_EQ(round_signals({t}, "maci")[0].points.size(), 1u);
}

TEST(ReportData, HarmedUnitsAreCappedAtTenAndListedOnlyWhereThereAreSome) {
  std::vector<Transcript> run;
  for (int i = 0; i < 12; ++i) {
    const std::string task = "q" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    run.push_back(unit("single", task, true, "B"));
    run.push_back(unit("debate", task, false, "C"));  // harmed on all 12
    run.push_back(unit("vote", task, true, "B"));     // on none
  }
  auto data = report_data_json(run, {"single", "debate", "vote"}, false);
  ASSERT_TRUE(data) << data.error().message;
  const Json j = Json::parse(*data);
  ASSERT_EQ(j["harmed"].size(), 1u);
  ASSERT_EQ(j["harmed"]["debate"].size(), 10u);
  EXPECT_EQ(j["harmed"]["debate"][9]["task_id"], "q09");  // the first ten by task id
}

TEST(ReportData, PlotsNeedDataBehindThem) {
  // debate shares no unit with single (no decisions plot); every debate is wrong (no
  // successful group to separate from).
  std::vector<Transcript> run = {unit("single", "q1", false, "A"), unit("debate", "q2", false, "A")};
  for (Transcript& t : run) t.metrics["u_sys"] = 0.5;
  auto data = report_data_json(run, {"single", "debate"}, false);
  ASSERT_TRUE(data) << data.error().message;
  const Json plots = Json::parse(*data)["plots"];
  EXPECT_EQ(std::count(plots.begin(), plots.end(), "decisions"), 0);
  EXPECT_EQ(std::count(plots.begin(), plots.end(), "separation"), 0);
  EXPECT_EQ(std::count(plots.begin(), plots.end(), "uncertainty"), 1);
}

TEST(ReportData, TracesAreCappedAndARunWithoutDebatesIsAnError) {
  std::vector<Transcript> run;
  for (int i = 0; i < 5; ++i) {
    Transcript t = unit("maci", "q" + std::to_string(i), true, "B");
    t.events.push_back(maci_round(1, 0.5, 0.1));
    run.push_back(t);
  }
  auto data = report_data_json(run, {}, false, {.traces = 2});
  ASSERT_TRUE(data);
  EXPECT_EQ(Json::parse(*data)["rounds"][0]["traces"].size(), 2u);
  EXPECT_FALSE(report_data_json({}, {}, false));
}

std::string sha256_csp_source(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr);
  unsigned char encoded[64] = {};
  EVP_EncodeBlock(encoded, digest, static_cast<int>(size));
  return "'sha256-" + std::string(reinterpret_cast<char*>(encoded)) + "'";
}

TEST(HtmlReport, TheCspAdmitsExactlyTheInlinedScriptsAndStyle) {
  auto html = render_html_report(two_protocols("C"), {}, true);
  ASSERT_TRUE(html) << html.error().message;
  // The bodies of every `<open>…</close>` element (std::regex is too slow on 200 KB).
  const auto bodies = [&](const std::string& open, const std::string& close) {
    std::vector<std::string> found;
    for (auto at = html->find(open); at != std::string::npos; at = html->find(open, at + 1)) {
      const auto end = html->find(close, at);
      found.push_back(html->substr(at + open.size(), end - at - open.size()));
    }
    return found;
  };
  const std::vector<std::string> scripts = bodies("<script>", "</script>");
  ASSERT_EQ(scripts.size(), 2u);  // Chart.js and report.js
  const std::vector<std::string> styles = bodies("<style>", "</style>");
  ASSERT_EQ(styles.size(), 1u);
  const std::string expected = "default-src 'none'; script-src " + sha256_csp_source(scripts[0]) + " " +
                               sha256_csp_source(scripts[1]) + "; style-src " + sha256_csp_source(styles[0]) +
                               "; img-src data:; base-uri 'none'; form-action 'none'";
  EXPECT_EQ(html_report_csp(), expected);
  EXPECT_NE(html->find("<meta http-equiv=\"Content-Security-Policy\" content=\"" + expected + "\">"), std::string::npos);
  EXPECT_NE(html->find("<body data-simulated=\"true\">"), std::string::npos);
  EXPECT_NE(html->find("<meta name=\"referrer\" content=\"no-referrer\">"), std::string::npos);
  EXPECT_NE(html->find("<meta charset=\"utf-8\">"), std::string::npos);
}

TEST(HtmlReport, HostileModelTextStaysInsideTheDataBlockAndReadsBackUnchanged) {
  const std::string hostile = "</script><script>window.__pwned=1</script><!-- <img src=x onerror=alert(1)> & \"q\"";
  std::vector<Transcript> run = two_protocols(hostile);
  run[3].task_id = "q1</SCRIPT>";
  run[0].task_id = "q1</SCRIPT>";
  auto html = render_html_report(run, {}, false, {.title = "<b>run</b>"});
  ASSERT_TRUE(html) << html.error().message;
  // The only script elements are the data block and the two inlined scripts.
  std::size_t opened = 0;
  for (std::size_t at = html->find("<script"); at != std::string::npos; at = html->find("<script", at + 1)) ++opened;
  EXPECT_EQ(opened, 3u);
  EXPECT_EQ(html->find("<script>window.__pwned"), std::string::npos);  // only its escaped form is there
  EXPECT_NE(html->find("\\u003cscript\\u003ewindow.__pwned"), std::string::npos);
  EXPECT_EQ(html->find("<img"), std::string::npos);
  EXPECT_EQ(html->find("<!-- <img"), std::string::npos);
  EXPECT_EQ(html->find("<b>run"), std::string::npos);
  EXPECT_EQ(html->find("</SCRIPT>"), std::string::npos);
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const auto begin = html->find(open) + open.size();
  const auto end = html->find("</script>", begin);
  const Json data = Json::parse(html->substr(begin, end - begin));
  EXPECT_EQ(data["harmed"]["debate"][0]["answer"], hostile);
  EXPECT_EQ(data["harmed"]["debate"][0]["task_id"], "q1</SCRIPT>");
  EXPECT_EQ(data["title"], "<b>run</b>");
  EXPECT_EQ(data["simulated"], false);
}

TEST(HtmlReport, InvalidUtf8InModelTextIsReplacedNotFatal) {
  auto html = render_html_report(two_protocols(std::string("caf\xC3", 4)), {}, false);
  ASSERT_TRUE(html) << html.error().message;
  EXPECT_NE(html->find("caf\xEF\xBF\xBD"), std::string::npos);  // U+FFFD
}

TEST(WebAssets, InlinedFilesCannotCloseTheirOwnElements) {
  for (const char* name : {"chart.js", "report.js"}) {
    const web::Asset* asset = web::find_asset(name);
    ASSERT_NE(asset, nullptr) << name;
    std::string lower(asset->content);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(lower.find("</script"), std::string::npos) << name;
    EXPECT_EQ(lower.find("<!--"), std::string::npos) << name;
  }
  const web::Asset* css = web::find_asset("report.css");
  ASSERT_NE(css, nullptr);
  EXPECT_EQ(std::string(css->content).find("</style"), std::string::npos);
  EXPECT_EQ(web::find_asset("../results.sqlite"), nullptr);
}

}  // namespace
}  // namespace parley
