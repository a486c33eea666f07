// Black-box tests of the `parley` binary: commands, exit codes, error lines, outputs.
#include <gtest/gtest.h>

#include <csignal>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/cli_support.h"

namespace parley::testing {
namespace {

std::string small_experiment(const std::filesystem::path& data, const std::string& extra = "") {
  return "models:\n  - {name: sim, backend: simulator}\n"
         "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n"
         "dataset: {path: " + data.string() + ", limit: 6}\n"
         "protocols:\n  - {name: single}\n  - {name: self_consistency, samples: 3}\n"
         "  - {name: debate, agents: 3, rounds: 2}\n"
         "seeds: [1, 2]\n" + extra;
}

std::filesystem::path mc_sample() { return source_dir() / "examples/data/mc-sample.jsonl"; }

TEST(Cli, VersionAndHelp) {
  const auto dir = scratch_dir("version");
  const auto version = run_parley({"--version"}, dir);
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("parley "), std::string::npos);
  const auto help = run_parley({"--help"}, dir);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  EXPECT_NE(help.out.find("report"), std::string::npos);
  const auto run_help = run_parley({"run", "--help"}, dir);
  EXPECT_EQ(run_help.exit_code, 0);
  EXPECT_NE(run_help.out.find("--resume"), std::string::npos);
  EXPECT_EQ(run_parley({"frobnicate"}, dir).exit_code, 2);
}

TEST(Cli, ProtocolsListsRegistry) {
  const auto r = run_parley({"protocols"}, scratch_dir("protocols"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("self_consistency"), std::string::npos);
  EXPECT_NE(r.out.find("rounds (int, default 2)"), std::string::npos);
  // A prompt template's default is an indented block under its parameter.
  EXPECT_NE(r.out.find("negative_opening_prompt (string, default below)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("     | You are the negative debater in a debate about the question below.\n"), std::string::npos)
      << r.out;
}

TEST(Cli, ConfigErrorIsOneLineWithExitCode2) {
  const auto dir = scratch_dir("bad-config");
  write_file(dir / "bad.yaml", small_experiment(mc_sample(), "concurency: 3\n"));
  const auto r = run_parley({"run", "bad.yaml", "--out", "out"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("bad.yaml:11: concurency: unknown key"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));

  const auto missing = run_parley({"run", "nope.yaml"}, dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.yaml: file not found"), std::string::npos);

  // A directory where the experiment file should be: one clear line, not an internal error.
  std::filesystem::create_directories(dir / "experiments");
  const auto directory = run_parley({"run", "experiments"}, dir);
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_EQ(directory.err, "parley: experiments: is a directory, not a file\n") << directory.err;

  const auto bad_set = run_parley({"run", "bad.yaml", "--set", "protocols.0.name=nope"}, dir);
  EXPECT_EQ(bad_set.exit_code, 2);
}

TEST(Cli, RunWritesOutputsAndReportReprintsTheTable) {
  const auto dir = scratch_dir("run");
  write_file(dir / "exp.yaml", small_experiment(mc_sample()));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SIMULATED"), std::string::npos);
  for (const char* name : {"results.sqlite", "transcripts.jsonl", "summary.json", "report.html"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / "out" / name)) << name;
  }
  EXPECT_EQ(r.err.find("\r"), std::string::npos) << "no progress bar when stderr is not a terminal";

  const auto summary = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  EXPECT_TRUE(summary["simulated"].get<bool>());
  ASSERT_EQ(summary["protocols"].size(), 3u);
  EXPECT_EQ(summary["protocols"][0]["name"], "single");
  EXPECT_EQ(summary["protocols"][2]["name"], "debate");
  for (const auto& p : summary["protocols"]) {
    EXPECT_EQ(p["n"], 12);  // 6 tasks × 2 seeds
    for (const char* key : {"accuracy", "accuracy_ci", "tokens_in_mean", "tokens_out_mean", "calls_mean", "apt",
                            "unparsed_rate", "failed"}) {
      EXPECT_TRUE(p.contains(key)) << key;
    }
  }
  EXPECT_NEAR(summary["protocols"][0]["calls_mean"].get<double>(), 1.0, 0.2);  // re-asks are rare
  EXPECT_GE(summary["protocols"][2]["calls_mean"].get<double>(), 9.0);
  // iMAD's breakdown against single, on every other protocol, over all 12 matched units.
  EXPECT_FALSE(summary["protocols"][0].contains("vs_single"));
  for (int i : {1, 2}) {
    const auto& vs = summary["protocols"][i]["vs_single"];
    EXPECT_EQ(vs["baseline"], "single");
    EXPECT_EQ(vs["right_right"].get<int>() + vs["right_wrong"].get<int>() + vs["wrong_right"].get<int>() +
                  vs["wrong_wrong"].get<int>(),
              12);
  }
  EXPECT_NE(r.out.find("vs single on the same task x seed units"), std::string::npos) << r.out;

  // One JSONL line per debate, each unit exactly once.
  std::set<std::string> units;
  std::istringstream lines(read_file(dir / "out/transcripts.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto t = nlohmann::json::parse(line);
    EXPECT_TRUE(units.insert(t["task_id"].get<std::string>() + "|" + t["protocol"].get<std::string>() + "|" +
                             std::to_string(t["seed"].get<int>()))
                    .second);
    for (const char* key : {"gold", "final_answer", "correct", "status", "messages"}) EXPECT_TRUE(t.contains(key)) << key;
    for (const auto& m : t["messages"]) {
      for (const char* key : {"round", "agent", "role", "prompt_tokens", "completion_tokens", "cached_tokens",
                              "tokens_estimated", "text", "answer", "confidence", "latency_ms"}) {
        EXPECT_TRUE(m.contains(key)) << key;
      }
    }
  }
  EXPECT_EQ(units.size(), 36u);

  const auto report = run_parley({"report", "out"}, dir);
  EXPECT_EQ(report.exit_code, 0);
  const auto table_start = r.out.find("SIMULATED");
  EXPECT_EQ(report.out, r.out.substr(table_start, report.out.size()));

  // The HTML report again from the store: the same page as the run wrote, with the same data.
  const auto html = run_parley({"report", "out", "--html", "again.html"}, dir);
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(html.out, "wrote again.html (SIMULATED run)\n");
  EXPECT_EQ(read_file(dir / "again.html"), read_file(dir / "out/report.html"));
  // Never over one of the run's own files; an empty name or --json beside it is a usage error.
  const std::string store_before = read_file(dir / "out/results.sqlite");
  for (const char* own : {"out/results.sqlite", "out/../out/results.sqlite-wal", "./out/summary.json",
                          "out/transcripts.jsonl", "out/run.lock"}) {
    const auto refused = run_parley({"report", "out", "--html", own}, dir);
    EXPECT_EQ(refused.exit_code, 2) << own;
    EXPECT_NE(refused.err.find("is one of the run's own files"), std::string::npos) << refused.err;
  }
  EXPECT_EQ(read_file(dir / "out/results.sqlite"), store_before);
  EXPECT_EQ(run_parley({"report", "out", "--html", ""}, dir).exit_code, 2);
  EXPECT_EQ(run_parley({"report", "out", "--html", "x.html", "--json"}, dir).exit_code, 2);

  // The same --out without --resume is refused rather than overwritten.
  const auto again = run_parley({"run", "exp.yaml", "--out", "out"}, dir);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos);
}

TEST(Cli, MetricsLambdaReachesTheStoredMetrics) {
  const auto dir = scratch_dir("lambda");
  write_file(dir / "exp.yaml", small_experiment(mc_sample(), "metrics: {u_intra_lambda: 1}\n"));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // λ = 1: U_intra = F in every debate that defines it, also where F and M differ.
  int with_u_intra = 0, flips_differ_from_revision = 0;
  std::istringstream lines(read_file(dir / "out/transcripts.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto metrics = nlohmann::json::parse(line)["metrics"];
    if (!metrics.contains("u_intra")) continue;
    ++with_u_intra;
    EXPECT_DOUBLE_EQ(metrics["u_intra"].get<double>(), metrics["flip_rate"].get<double>());
    flips_differ_from_revision += metrics["flip_rate"] != metrics["belief_revision"];
  }
  EXPECT_EQ(with_u_intra, 12);  // the debate's 6 tasks × 2 seeds
  EXPECT_GT(flips_differ_from_revision, 0);
}

TEST(Cli, CompareReportsPairedStatisticsForTheRequestedPairs) {
  const auto dir = scratch_dir("compare");
  write_file(dir / "exp.yaml", small_experiment(mc_sample()));
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir).exit_code, 0);
  const auto table = run_parley({"compare", "out"}, dir);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("debate vs single"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("(family: pair"), std::string::npos) << table.out;
  const auto json = run_parley({"compare", "out", "--baseline", "debate", "--metric", "accuracy", "--json"}, dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["family"], "pair");
  ASSERT_EQ(j["comparisons"].size(), 2u);  // single and self_consistency, one metric
  EXPECT_EQ(j["comparisons"][0]["first"], "single");
  EXPECT_EQ(j["comparisons"][0]["second"], "debate");
  EXPECT_EQ(j["comparisons"][0]["n"], 12);

  const auto listed = run_parley(
      {"compare", "out", "--pairs", "debate:single,self_consistency:debate", "--family", "all", "--json"}, dir);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto l = nlohmann::json::parse(listed.out);
  EXPECT_EQ(l["family"], "all");
  ASSERT_EQ(l["comparisons"].size(), 6u);  // two pairs, three default metrics
  EXPECT_EQ(l["comparisons"][3]["first"], "self_consistency");
  EXPECT_EQ(l["comparisons"][3]["second"], "debate");
  EXPECT_EQ(l["comparisons"][3]["family_size"], 6);
  const auto every = run_parley({"compare", "out", "--all-pairs", "--metric", "tokens", "--json"}, dir);
  ASSERT_EQ(every.exit_code, 0) << every.err;
  EXPECT_EQ(nlohmann::json::parse(every.out)["comparisons"].size(), 3u);  // 3 protocols: 3 pairs

  const auto bad = run_parley({"compare", "out", "--metric", "speed"}, dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown metric 'speed'"), std::string::npos);
  const auto bad_pair = run_parley({"compare", "out", "--pairs", "debate-single"}, dir);
  EXPECT_EQ(bad_pair.exit_code, 2);
  EXPECT_NE(bad_pair.err.find("--pairs: 'debate-single' is not FIRST:SECOND"), std::string::npos) << bad_pair.err;
  const auto unknown = run_parley({"compare", "out", "--baseline", "cot"}, dir);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("'cot' is not a protocol of this run"), std::string::npos) << unknown.err;
  EXPECT_EQ(run_parley({"compare", "out", "--all-pairs", "--baseline", "single"}, dir).exit_code, 2);
  EXPECT_EQ(run_parley({"compare", "out", "--family", "metric"}, dir).exit_code, 2);
}

// UDPO's reference trainer end to end: train on one half of the sample, then run the trained
// agents with `models[].policy` on the other half — SIMULATED.
TEST(Cli, TrainUdpoWritesACurveCheckpointsAndAPolicyThatARunReads) {
  const auto dir = scratch_dir("train-udpo");
  const std::string tasks = read_file(mc_sample());
  std::string first, second;
  int line = 0;
  for (std::size_t at = 0, end; at < tasks.size(); at = end + 1) {
    end = tasks.find('\n', at);
    if (end == std::string::npos) end = tasks.size();
    ((line++ % 2 == 0) ? first : second) += tasks.substr(at, end - at) + "\n";
  }
  write_file(dir / "train.jsonl", first);
  write_file(dir / "test.jsonl", second);
  const std::string agents =
      "agents:\n  - {name: a1, model: sim, temperature: 0.7}\n  - {name: a2, model: sim, temperature: 0.7}\n"
      "  - {name: a3, model: sim, temperature: 0.7}\n";
  write_file(dir / "train.yaml", "models:\n  - {name: sim, backend: simulator}\n" + agents +
                                     "dataset: {path: test.jsonl}\nprotocols:\n  - {name: debate}\n"
                                     "training: {dataset: train.jsonl, rounds: 2, iterations: 6, batch: 8,"
                                     " replay_draws: 4, checkpoint_every: 3}\n");
  const auto trained = run_parley({"train-udpo", "train.yaml", "--out", "tr"}, dir);
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  EXPECT_EQ(trained.out.rfind("SIMULATED:", 0), 0u) << trained.out;
  EXPECT_EQ(trained.err.find("evaluation tasks"), std::string::npos) << trained.err;  // separate training tasks
  // Three warm-up debates that all end alike define no Cohen's d: equal bases, said on stderr.
  EXPECT_NE(trained.err.find("warning: no warm-up Cohen's d is defined and positive"), std::string::npos)
      << trained.err;
  int rows = 0;
  const std::string curve = read_file(dir / "tr/training.jsonl");
  for (char c : curve) rows += c == '\n';
  EXPECT_EQ(rows, 7);  // the header, then one row per iteration
  const auto header = nlohmann::json::parse(curve.substr(0, curve.find('\n')))["training"];
  EXPECT_EQ(header["learning_rate"], 0.05);
  EXPECT_EQ(header["batch"], 8);
  EXPECT_EQ(header["replay"]["draws"], 4);
  EXPECT_EQ(header["replay"]["correction_start"], 0.4);
  EXPECT_EQ(header["dataset"]["tasks"], 30);
  EXPECT_EQ(header["evaluation_dataset"]["shared_tasks"], 0);
  EXPECT_TRUE(header["bases"]["rule"].is_string());
  EXPECT_EQ(header["bases"]["cohens_d"].size(), 3u);
  EXPECT_EQ(header["agents"].size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir / "tr/policy-iter3.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "tr/policy-iter6.json"));
  const auto policy = nlohmann::json::parse(read_file(dir / "tr/policy.json"));
  EXPECT_EQ(policy["format"], "parley-revision-policy-1");
  EXPECT_EQ(policy["agents"].size(), 3u);
  EXPECT_EQ(policy["training"]["method"], "udpo");
  EXPECT_EQ(policy["training"]["ablation"], "none");
  EXPECT_EQ(policy["training"]["coefficients"].size(), 3u);
  EXPECT_EQ(policy["training"]["bases"], header["bases"]);

  write_file(dir / "eval.yaml", "models:\n  - {name: sim, backend: simulator, policy: tr/policy.json}\n" + agents +
                                    "dataset: {path: test.jsonl}\nprotocols:\n  - {name: debate}\n");
  const auto evaluated = run_parley({"run", "eval.yaml", "--out", "ev", "--quiet"}, dir);
  EXPECT_EQ(evaluated.exit_code, 0) << evaluated.err;
  // A policy trained for other agents is an error, not silently unused.
  write_file(dir / "renamed.yaml", "models:\n  - {name: sim, backend: simulator, policy: tr/policy.json}\n"
                                   "agents:\n  - {name: b1, model: sim}\n  - {name: b2, model: sim}\n"
                                   "dataset: {path: test.jsonl}\nprotocols:\n  - {name: debate, agents: 2}\n");
  const auto renamed = run_parley({"run", "renamed.yaml", "--out", "rn", "--quiet"}, dir);
  EXPECT_NE(renamed.exit_code, 0);
  EXPECT_NE(renamed.err.find("the policy is for agent 'a1', which this model does not serve (its agents: b1, b2)"),
            std::string::npos)
      << renamed.err;

  // Errors: no training section; a non-simulator debater; a bad training key.
  write_file(dir / "none.yaml", "models:\n  - {name: sim, backend: simulator}\n" + agents +
                                    "dataset: {path: test.jsonl}\nprotocols:\n  - {name: debate}\n");
  const auto none = run_parley({"train-udpo", "none.yaml", "--out", "x"}, dir);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no training: section"), std::string::npos) << none.err;
  const auto bad = run_parley({"train-udpo", "train.yaml", "--out", "x", "--set", "training.method=ppo"}, dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("training.method: 'ppo' is not one of udpo, mappo"), std::string::npos) << bad.err;
  write_file(dir / "http.yaml",
             "models:\n  - {name: sim, backend: simulator}\n  - {name: web, backend: openai, base_url: "
             "'http://127.0.0.1:9/v1', model: m}\nagents:\n  - {name: a1, model: sim}\n  - {name: a2, model: web}\n"
             "dataset: {path: test.jsonl}\nprotocols:\n  - {name: debate}\ntraining: {iterations: 1}\n");
  const auto http = run_parley({"train-udpo", "http.yaml", "--out", "x"}, dir);
  EXPECT_EQ(http.exit_code, 2);
  EXPECT_NE(http.err.find("model web is not a simulator"), std::string::npos) << http.err;
}

// train-udpo's settings edges: training.limit without training.dataset, training on the
// evaluation tasks (a warning), T = 1 (refused, or U_intra null on the curve), MAPPO's metadata.
TEST(Cli, TrainUdpoLimitsWarnsOfEvaluationTasksAndRefusesAnUndefinedReward) {
  const auto dir = scratch_dir("train-udpo-edges");
  write_file(dir / "train.yaml",
             "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
             "  - {name: a2, model: sim}\n  - {name: a3, model: sim}\ndataset: {path: " +
                 mc_sample().string() +
                 "}\nprotocols:\n  - {name: debate}\n"
                 "training: {limit: 5, rounds: 2, iterations: 2, batch: 4, replay_draws: 2}\n");
  const auto limited = run_parley({"train-udpo", "train.yaml", "--out", "tr"}, dir);
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  EXPECT_NE(limited.err.find("warning: 5 of the 5 training tasks are also the experiment's evaluation tasks"),
            std::string::npos)
      << limited.err;
  const auto policy = nlohmann::json::parse(read_file(dir / "tr/policy.json"))["training"];
  EXPECT_EQ(policy["dataset"]["tasks"], 5);
  EXPECT_EQ(policy["dataset"]["limit"], 5);
  EXPECT_EQ(policy["evaluation_dataset"]["shared_tasks"], 5);
  // A second run into the same --out is refused, and the first run's files stay as they were.
  const std::string first_policy = read_file(dir / "tr/policy.json");
  const auto again = run_parley({"train-udpo", "train.yaml", "--out", "tr", "--set", "training.iterations=1"}, dir);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("tr: holds an earlier training run"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(dir / "tr/policy.json"), first_policy);
  // Training on more of the file than the run evaluates: only the evaluated tasks are shared.
  write_file(dir / "wide.yaml",
             "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
             "  - {name: a2, model: sim}\n  - {name: a3, model: sim}\ndataset: {path: " +
                 mc_sample().string() +
                 ", limit: 3}\nprotocols:\n  - {name: debate}\n"
                 "training: {limit: 8, rounds: 2, iterations: 1, batch: 2}\n");
  const auto wide = run_parley({"train-udpo", "wide.yaml", "--out", "wide"}, dir);
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(wide.err.find("warning: 3 of the 8 training tasks are also the experiment's evaluation tasks"),
            std::string::npos)
      << wide.err;

  const auto one_round =
      run_parley({"train-udpo", "train.yaml", "--out", "x", "--set", "training.rounds=1", "training.bases=equal"}, dir);
  EXPECT_EQ(one_round.exit_code, 2);
  EXPECT_NE(one_round.err.find("rounds: 1 leaves r_intra undefined"), std::string::npos) << one_round.err;
  const auto no_warmup = run_parley(
      {"train-udpo", "train.yaml", "--out", "x", "--set", "training.rounds=1", "training.warmup_share=0"}, dir);
  EXPECT_EQ(no_warmup.exit_code, 2) << no_warmup.err;
  const auto all = run_parley({"train-udpo", "train.yaml", "--out", "all", "--set", "training.rounds=1",
                               "training.intra_reward=all_transitions"},
                              dir);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const std::string curve = read_file(dir / "all/training.jsonl");
  const std::size_t row_start = curve.find('\n') + 1;
  const auto first_row = nlohmann::json::parse(curve.substr(row_start, curve.find('\n', row_start) - row_start));
  EXPECT_TRUE(first_row["u_intra"].is_null()) << curve;
  EXPECT_TRUE(first_row["u_inter"].is_number()) << curve;

  const auto mappo = run_parley({"train-udpo", "train.yaml", "--out", "mappo", "--set", "training.method=mappo",
                                 "training.ablation=sys"},
                                dir);
  ASSERT_EQ(mappo.exit_code, 0) << mappo.err;
  EXPECT_NE(mappo.err.find("warning: training.ablation: sys does not apply to method mappo"), std::string::npos)
      << mappo.err;
  const auto m = nlohmann::json::parse(read_file(dir / "mappo/policy.json"))["training"];
  EXPECT_EQ(m["method"], "mappo");
  EXPECT_FALSE(m.contains("ablation"));
  EXPECT_FALSE(m.contains("bases"));
  EXPECT_FALSE(m.contains("replay"));
}

TEST(Cli, DiagnosePrintsUdpoDiagnosisAndJson) {
  const auto dir = scratch_dir("diagnose");
  write_file(dir / "exp.yaml", small_experiment(mc_sample()));
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir).exit_code, 0);
  const auto table = run_parley({"diagnose", "out"}, dir);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("SIMULATED:", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("debate: 12 debates"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Welch t"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Difficulty strata by debate's U_sys"), std::string::npos) << table.out;

  const auto json = run_parley({"diagnose", "out", "--json"}, dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["simulated"], true);
  EXPECT_EQ(j["baseline"], "debate");  // Standard MAD, present in the run
  ASSERT_EQ(j["protocols"].size(), 3u);
  const auto& debate = j["protocols"][2];
  EXPECT_EQ(debate["protocol"], "debate");
  EXPECT_EQ(debate["debates"], 12);
  EXPECT_EQ(debate["correlations"]["n"], 12);  // 3 agents, 2 rounds: every U defined
  const auto& curve = debate["selective_prediction"][2];
  EXPECT_EQ(curve["metric"], "u_sys");
  ASSERT_EQ(curve["points"].size(), 10u);
  EXPECT_EQ(curve["points"][9]["kept"], 12);
  EXPECT_EQ(curve["points"][9]["accuracy"], debate["accuracy"]);
  EXPECT_EQ(j["protocols"][0]["selective_prediction"][0]["n"], 0);  // single: no U
  ASSERT_EQ(j["difficulty_strata"].size(), 3u);
  std::int64_t binned = 0;
  for (const auto& stratum : j["difficulty_strata"][0]["strata"]) binned += stratum["units"].get<int>();
  EXPECT_EQ(binned, 12);

  const auto one =
      run_parley({"diagnose", "out", "--protocol", "single", "--baseline", "self_consistency", "--json"}, dir);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto o = nlohmann::json::parse(one.out);
  EXPECT_EQ(o["protocols"].size(), 1u);
  EXPECT_EQ(o["baseline"], "self_consistency");
  EXPECT_EQ(o["difficulty_strata"][0]["without_metric"], 12);  // one agent: no U_sys to bin by

  const auto unknown = run_parley({"diagnose", "out", "--protocol", "udpo"}, dir);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("'udpo' is not a protocol of this run"), std::string::npos) << unknown.err;
  const auto baseline = run_parley({"diagnose", "out", "--baseline", "mappo"}, dir);
  EXPECT_EQ(baseline.exit_code, 2);
  EXPECT_NE(baseline.err.find("the baseline 'mappo' is not a protocol of this run"), std::string::npos);
  const auto missing = run_parley({"diagnose", "nowhere"}, dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no results.sqlite"), std::string::npos) << missing.err;
}

TEST(Cli, ResumeOfADifferentExperimentIsRefused) {
  const auto dir = scratch_dir("resume-mismatch");
  write_file(dir / "exp.yaml", small_experiment(mc_sample()));
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "out", "--set", "dataset.limit=2"}, dir).exit_code, 0);
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--resume", "--set", "dataset.limit=3"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("different experiment"), std::string::npos) << r.err;
}

// A command's output that cannot be written is a failure (exit 1, saying why), never exit 0
// with a truncated table; a reader that went away is not worth a message, whether SIGPIPE
// kills parley or is ignored and the write fails with EPIPE.
TEST(Cli, FailedOutputWritesAreErrorsAndABrokenPipeIsQuiet) {
  const auto dir = scratch_dir("output-fails");
  write_file(dir / "exp.yaml", small_experiment(mc_sample()));
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "out", "--set", "dataset.limit=2"}, dir).exit_code, 0);
  const std::vector<std::vector<std::string>> commands = {
      {"report", "out"}, {"report", "out", "--json"}, {"compare", "out"}, {"protocols"}};
  for (const auto& command : commands) {
    const std::string name = command[0] + (command.size() > 2 ? " " + command[2] : "");
    const auto full = run_parley(command, dir, StdoutTo::kFullDisk);
    EXPECT_EQ(full.exit_code, 1) << name;
    EXPECT_EQ(full.err, "parley: cannot write the output: No space left on device\n") << name;
    for (auto to : {StdoutTo::kClosedPipe, StdoutTo::kClosedPipeSigpipeIgnored}) {
      const auto broken = run_parley(command, dir, to);
      EXPECT_EQ(broken.exit_code, 128 + SIGPIPE) << name;
      EXPECT_EQ(broken.err, "") << name;
    }
  }
  // A run whose table cannot be printed has still stored everything; it says so by its exit code.
  const auto run = run_parley({"run", "exp.yaml", "--out", "again", "--set", "dataset.limit=2"}, dir, StdoutTo::kFullDisk);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(std::filesystem::exists(dir / "again/summary.json"));
}

// An export that cannot be written (here summary.json is a directory) is a clear failure, exit 1.
TEST(Cli, AnExportThatCannotBeWrittenIsAFailure) {
  const auto dir = scratch_dir("export-fails");
  write_file(dir / "exp.yaml", small_experiment(mc_sample()));
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "out", "--set", "dataset.limit=1"}, dir).exit_code, 0);
  std::filesystem::remove(dir / "out/summary.json");
  std::filesystem::create_directories(dir / "out/summary.json/occupied");
  const auto r = run_parley({"run", "exp.yaml", "--out", "out", "--set", "dataset.limit=1", "--resume"}, dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("out/summary.json: cannot write: Is a directory"), std::string::npos) << r.err;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "out"))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path() << " left behind";
}

// A task with 30 options has golds "AA".."AD"; the simulator's replies name them and every
// reply parses (before option labels went past Z, "Answer: AA" was never read).
TEST(Cli, TasksWithMoreThan26OptionsParseTwoLetterLabels) {
  const auto dir = scratch_dir("wide-options");
  std::string rows;
  for (int t = 0; t < 4; ++t) {
    nlohmann::json row = {{"id", t}, {"question", "Which code is right for case " + std::to_string(t) + "?"},
                          {"answer", std::string("A") + "ABCD"[t]}};
    for (int i = 0; i < 30; ++i) row["options"].push_back("code " + std::to_string(i));
    rows += row.dump() + "\n";
  }
  write_file(dir / "wide.jsonl", rows);
  write_file(dir / "exp.yaml", small_experiment(dir / "wide.jsonl"));
  const auto r = run_parley({"run", "exp.yaml", "--out", "out"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int two_letter_answers = 0;
  std::istringstream lines(read_file(dir / "out/transcripts.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto transcript = nlohmann::json::parse(line);
    for (const auto& m : transcript["messages"]) {
      ASSERT_FALSE(m["answer"].is_null()) << m["text"];
      two_letter_answers += m["answer"].get<std::string>().size() == 2;
    }
  }
  EXPECT_GT(two_letter_answers, 0);
  const auto summary = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  for (const auto& p : summary["protocols"])
    EXPECT_EQ(p["unparsed_rate"].get<double>(), 0.0) << p["name"];
}

// The same experiment named another way (./exp/x.yaml, an absolute path) resolves its files to
// other strings; files enter the fingerprint by content, so it resumes.
TEST(Cli, TheSameExperimentNamedAnotherWayResumes) {
  const auto dir = scratch_dir("resume-paths");
  std::filesystem::create_directories(dir / "exp");
  std::filesystem::copy_file(mc_sample(), dir / "exp/tasks.jsonl");
  write_file(dir / "exp/x.yaml", small_experiment("tasks.jsonl"));
  ASSERT_EQ(run_parley({"run", "exp/x.yaml", "--out", "out", "--set", "dataset.limit=2"}, dir).exit_code, 0);
  for (const std::string& name : std::vector<std::string>{"./exp/x.yaml", (dir / "exp/x.yaml").string()}) {
    const auto r = run_parley({"run", name, "--out", "out", "--set", "dataset.limit=2", "--resume"}, dir);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  }
}

// The hint printed after failed debates runs as printed: with the run's --set overrides, and
// words the shell would split quoted.
TEST(Cli, TheResumeHintRepeatsTheOverrides) {
  const auto dir = scratch_dir("resume-hint");
  // Nothing listens on port 1: every debate fails at once (no retries).
  write_file(dir / "exp.yaml",
             "models:\n  - {name: m, backend: openai, base_url: 'http://127.0.0.1:1/v1', model: q, max_retries: 0}\n"
             "agents:\n  - {name: a1, model: m}\n"
             "dataset: {path: " + mc_sample().string() + "}\nprotocols:\n  - {name: single}\n");
  const std::vector<std::string> settings = {"--set", "dataset.limit=1", "--set", "seeds=[4]"};
  std::vector<std::string> first = {"run", "exp.yaml", "--out", "my out", "--quiet"};
  first.insert(first.end(), settings.begin(), settings.end());
  const auto r = run_parley(first, dir);
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const std::string hint =
      "parley run exp.yaml --out 'my out' --set dataset.limit=1 --set 'seeds=[4]' --resume --retry-failed";
  EXPECT_NE(r.err.find(hint), std::string::npos) << r.err;
  std::vector<std::string> again = first;
  again.insert(again.end(), {"--resume", "--retry-failed"});
  const auto retried = run_parley(again, dir);
  EXPECT_EQ(retried.exit_code, 3) << retried.err;  // accepted as the same experiment; the server is still down
  EXPECT_NE(retried.err.find("1 of 1 debates failed"), std::string::npos) << retried.err;
}

TEST(Cli, ReportOfMissingRunIsAnError) {
  const auto r = run_parley({"report", "nowhere"}, scratch_dir("report-missing"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no results.sqlite"), std::string::npos);
}

// Label tasks end to end: the label set and the evidence corpus are read, every reply is read as
// a label of the set, and both files are inputs a resume checks.
TEST(Cli, LabelTasksRunWithTheirLabelSetAndEvidence) {
  const auto dir = scratch_dir("label-tasks");
  write_file(dir / "labels.yaml",
             "labels:\n  - Dengue fever\n  - {name: Hepatitis C, synonyms: [HCV]}\n  - Malaria\n  - Influenza\n");
  write_file(dir / "corpus.jsonl", "{\"id\": \"d1\", \"text\": \"Dengue: fever, rash, retro-orbital pain.\"}\n");
  write_file(dir / "tasks.jsonl",
             "{\"id\": \"c1\", \"question\": \"Fever and rash after travel.\", \"answer\": \"Dengue fever\", \"answer_type\": \"label\"}\n"
             "{\"id\": \"c2\", \"question\": \"Jaundice, IV drug use.\", \"answer\": \"hcv\", \"answer_type\": \"label\"}\n"
             "{\"id\": \"c3\", \"question\": \"Cyclic fevers.\", \"answer\": \"Typhoid\", \"answer_type\": \"label\"}\n");
  const std::string experiment =
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
      "dataset: {path: tasks.jsonl, labels: labels.yaml, evidence: corpus.jsonl}\n"
      "protocols:\n  - {name: single}\n  - {name: debate, agents: 3, rounds: 1}\n";
  write_file(dir / "exp.yaml", experiment);
  const auto r = run_parley({"run", "exp.yaml", "--out", "out"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tasks.jsonl:3: skipped row: answer 'Typhoid' is not one of the 4 labels"), std::string::npos) << r.err;
  const std::set<std::string> labels = {"Dengue fever", "Hepatitis C", "Malaria", "Influenza"};
  int answers = 0;
  std::istringstream lines(read_file(dir / "out/transcripts.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    const auto transcript = nlohmann::json::parse(line);
    for (const auto& m : transcript["messages"]) {
      ASSERT_FALSE(m["answer"].is_null()) << m["text"];
      EXPECT_TRUE(labels.count(m["answer"].get<std::string>())) << m["answer"];
      ++answers;
    }
  }
  EXPECT_GE(answers, 2 * (1 + 3 * 2));

  write_file(dir / "labels.yaml", "labels: [Dengue fever, Hepatitis C, Malaria, Influenza, Measles]\n");
  const auto changed = run_parley({"run", "exp.yaml", "--out", "out", "--resume"}, dir);
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_NE(changed.err.find("the label set (dataset.labels)"), std::string::npos) << changed.err;

  write_file(dir / "plain.jsonl", "{\"question\": \"Fever?\", \"answer\": \"HCV\"}\n");
  write_file(dir / "plain.yaml", experiment);
  const auto unlabelled = run_parley({"run", "plain.yaml", "--out", "out3", "--set", "dataset.path=plain.jsonl"}, dir);
  EXPECT_EQ(unlabelled.exit_code, 2);
  EXPECT_NE(unlabelled.err.find("dataset.labels is given, but no task of"), std::string::npos) << unlabelled.err;

  write_file(dir / "corpus.jsonl", "{\"id\": \"d1\"}\n");
  const auto broken = run_parley({"run", "exp.yaml", "--out", "out2"}, dir);
  EXPECT_NE(broken.exit_code, 0);
  EXPECT_NE(broken.err.find("corpus.jsonl: line 1: missing text"), std::string::npos) << broken.err;
}

}  // namespace
}  // namespace parley::testing
