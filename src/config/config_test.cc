// Experiment-file validation: each kind of mistake gives one error line naming the key and
// line; overrides reach the tree; defaults are the documented ones.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "config/yaml_reader.h"
#include "parley/config.h"

namespace parley {
namespace {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("parley-config-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tasks.jsonl") << R"({"id":"q1","question":"2+2?","answer":4})" << "\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& yaml) {
    const auto path = dir_ / "exp.yaml";
    std::ofstream(path) << yaml;
    return path;
  }

  // A valid experiment; `extra` is appended at top level.
  std::string valid(const std::string& protocols = "  - {name: single}\n", const std::string& extra = "") {
    return "models:\n"
           "  - {name: sim, backend: simulator}\n"
           "agents:\n"
           "  - {name: a1, model: sim}\n"
           "dataset: {path: " + (dir_ / "tasks.jsonl").string() + "}\n"
           "protocols:\n" + protocols + extra;
  }

  std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    auto result = load_experiment(write(yaml), overrides);
    EXPECT_FALSE(result.ok());
    return result.ok() ? "" : result.error().message;
  }

  std::filesystem::path dir_;
};

TEST_F(ConfigTest, ValidFileGetsDocumentedDefaults) {
  auto c = load_experiment(write(valid("  - {name: debate}\n  - {name: self_consistency, samples: 7}\n")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->name, "exp");
  EXPECT_EQ(c->seeds, (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(c->concurrency, 256);
  EXPECT_EQ(c->reask_unparsed, 1);
  EXPECT_DOUBLE_EQ(c->metrics.u_intra_lambda, 0.5);
  EXPECT_FALSE(c->budget_tokens_per_task.has_value());
  EXPECT_DOUBLE_EQ(c->agents[0].sampling.temperature, 0.7);
  ASSERT_EQ(c->protocols.size(), 2u);
  EXPECT_EQ(c->protocols[0].params.integer("agents"), 3);
  EXPECT_EQ(c->protocols[0].params.integer("rounds"), 2);
  EXPECT_EQ(c->protocols[1].params.integer("samples"), 7);
  EXPECT_EQ(c->protocols[1].label, "self_consistency");
}

TEST_F(ConfigTest, UnknownTopLevelKeyNamesKeyAndLine) {
  const auto e = error_of(valid("  - {name: single}\n", "concurency: 5\n"));
  EXPECT_NE(e.find("exp.yaml:8: concurency: unknown key"), std::string::npos) << e;
}

TEST_F(ConfigTest, UnknownProtocolParameterIsRejected) {
  const auto e = error_of(valid("  - {name: debate, round: 3}\n"));
  EXPECT_NE(e.find("protocols[0].round: unknown key for protocol debate"), std::string::npos) << e;
  EXPECT_NE(e.find(":7:"), std::string::npos) << e;
}

TEST_F(ConfigTest, WrongTypeAndOutOfRange) {
  EXPECT_NE(error_of(valid("  - {name: debate, rounds: two}\n")).find("protocols[0].rounds: expected an integer, got 'two'"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: debate, agents: 1}\n")).find("protocols[0].agents: 1 is out of range [2, 64]"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: single}\n", "concurrency: 0\n")).find("concurrency: 0 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: single}\n", "seeds: 3\n")).find("seeds: expected a non-empty list"),
            std::string::npos);
}

TEST_F(ConfigTest, ProtocolParameterChecksRunAtLoad) {
  // mad's prompt templates: a placeholder mad does not fill is a config error on that key.
  const auto e = error_of(valid("  - name: mad\n    negative_prompt: \"Argue against {AFF_ANS}; see {IMAGE}.\"\n"));
  EXPECT_NE(e.find(":8: protocols[0].negative_prompt: unknown placeholder {IMAGE}"), std::string::npos) << e;
  // An opening is sent once: a placeholder whose value changes from round to round is refused.
  const auto opening = error_of(valid("  - name: mad\n    judge_opening_prompt: \"Round {ROUND} of {QUESTION}\"\n"));
  EXPECT_NE(opening.find(":8: protocols[0].judge_opening_prompt: an opening is sent once"), std::string::npos) << opening;
  auto c = load_experiment(write(valid("  - name: mad\n    negative_prompt: \"Round {ROUND}: argue against {AFF_ANS}.\"\n")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->protocols[0].params.text("negative_prompt"), "Round {ROUND}: argue against {AFF_ANS}.");
  EXPECT_EQ(c->protocols[0].params.integer("max_rounds"), 5);
}

TEST_F(ConfigTest, GroupDebateGroupsAndExchangeAreCheckedAtLoad) {
  auto c = load_experiment(write(valid("  - {name: group_debate, groups: 2-2-2, exchange: answers}\n")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->protocols[0].params.text("groups"), "2-2-2");
  auto e = error_of(valid("  - {name: group_debate, groups: 3-1}\n"));
  EXPECT_NE(e.find("protocols[0].groups: \"3-1\" has a group of 1; every group needs at least 2 agents"),
            std::string::npos)
      << e;
  e = error_of(valid("  - {name: group_debate, groups: three}\n"));
  EXPECT_NE(e.find("protocols[0].groups: expected group sizes joined by '-'"), std::string::npos) << e;
  e = error_of(valid("  - {name: group_debate}\n"), {"protocols.0.exchange=gossip"});
  EXPECT_NE(e.find("exchange: expected summary or answers, got \"gossip\""), std::string::npos) << e;
}

TEST_F(ConfigTest, MacisParametersAreCheckedTogetherAtLoad) {
  EXPECT_NE(error_of(valid("  - {name: maci, gate_max: 0.4}\n")).find("protocols[0].gate_max: is 0.4, below the gates'"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: maci, quality_low: 0.9}\n")).find("protocols[0].quality_low: 0.9 is above quality_high 0.7"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: maci, disagreement_high: 0.1}\n"))
                .find("protocols[0].disagreement_low: 0.3 is above disagreement_high 0.1"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: maci, scheduler: thompson}\n")).find("must be one of none, ucb, linucb"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: maci, scheduler: ucb, hold_contentiousness: 0.9}\n"))
                .find("protocols[0].hold_contentiousness: cannot hold CL while a scheduler sets it"),
            std::string::npos);
}

TEST_F(ConfigTest, UnknownProtocolListsKnownOnes) {
  const auto e = error_of(valid("  - {name: socratic}\n"));
  EXPECT_NE(e.find("protocols[0].name: unknown protocol 'socratic' (known: single, self_consistency, debate"),
            std::string::npos)
      << e;
}

TEST_F(ConfigTest, AgentNamingUndefinedModel) {
  const auto e = error_of(
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: gpt}\n"
      "dataset: {path: x}\nprotocols:\n  - {name: single}\n");
  EXPECT_NE(e.find(":4: agents[0].model: no model named 'gpt'"), std::string::npos) << e;
}

TEST_F(ConfigTest, ABaseUrlNeedsAHostAndAPossiblePortAndKeepsItsPasswordOutOfErrors) {
  const auto with_url = [&](const std::string& url) {
    return error_of("models:\n  - {name: m, backend: openai, model: q, base_url: '" + url +
                    "'}\nagents:\n  - {name: a1, model: m}\ndataset: {path: x}\nprotocols:\n  - {name: single}\n");
  };
  EXPECT_NE(with_url("http://127.0.0.1:99999/v1").find("base_url: 'http://127.0.0.1:99999/v1' has port '99999'"),
            std::string::npos);
  EXPECT_NE(with_url("http://localhost:0/v1").find("has port '0'"), std::string::npos);
  EXPECT_NE(with_url("http://localhost:80a/v1").find("has port '80a'"), std::string::npos);
  EXPECT_NE(with_url("http:///v1").find("'http:///v1' has no host"), std::string::npos);
  // A colon or bracket left in the host is not a host: the port checked would be the wrong one.
  EXPECT_NE(with_url("http://127.0.0.1:80:90/v1").find("has host '127.0.0.1:80': not a host name"), std::string::npos);
  EXPECT_NE(with_url("http://[::1]x:80/v1").find("has host '[::1]x'"), std::string::npos);
  EXPECT_NE(with_url("http://[]:80/v1").find("has host '[]'"), std::string::npos);
  for (const char* fine : {"http://[::1]:8080/v1", "http://[fe80::1%25eth0]:80", "https://api.example.com/v1",
                           "http://10.0.0.2:8000"})
    EXPECT_EQ(with_url(fine).find("base_url"), std::string::npos) << fine << ": " << with_url(fine);
  const std::string leaked = with_url("ftp://admin:hunter2@example.com/v1");
  EXPECT_NE(leaked.find("got 'ftp://admin:***@example.com/v1'"), std::string::npos) << leaked;
  EXPECT_EQ(leaked.find("hunter2"), std::string::npos) << leaked;
  EXPECT_EQ(with_url("http://admin:hunter2@example.com:70000/v1").find("hunter2"), std::string::npos);
  // An unencoded '@' in the password: the userinfo ends at the last '@' of the authority.
  const std::string at_sign = with_url("http://alice:S3cr@tPw@127.0.0.1:1810x/v1");
  EXPECT_NE(at_sign.find("'http://alice:***@127.0.0.1:1810x/v1' has port '1810x'"), std::string::npos) << at_sign;
}

TEST_F(ConfigTest, BackendSpecificKeys) {
  const auto e = error_of(
      "models:\n  - {name: sim, backend: simulator, base_url: 'http://x'}\nagents:\n  - {name: a1, model: sim}\n"
      "dataset: {path: x}\nprotocols:\n  - {name: single}\n");
  EXPECT_NE(e.find("models[0].base_url: unknown key for backend simulator"), std::string::npos) << e;
  const auto missing_url = error_of(
      "models:\n  - {name: m, backend: openai, model: q}\nagents:\n  - {name: a1, model: m}\n"
      "dataset: {path: x}\nprotocols:\n  - {name: single}\n");
  EXPECT_NE(missing_url.find("models[0].base_url: missing required key"), std::string::npos) << missing_url;
}

TEST_F(ConfigTest, ASimulatorPolicyFileIsResolvedRequiredAndFingerprintedByContent) {
  const std::filesystem::path policy = dir_ / "policy.json";
  {
    std::ofstream(policy) << R"({"format": "parley-revision-policy-1", "agents": {"a1": {"support": 0, "keep": 0, "recognition": 1, "plurality": 0}}})";
  }
  const auto with_policy = [&](const std::string& file) {
    return "models:\n  - {name: sim, backend: simulator, policy: " + file + "}\nagents:\n  - {name: a1, model: sim}\n"
           "dataset: {path: " + (dir_ / "tasks.jsonl").string() + "}\nprotocols:\n  - {name: single}\n";
  };
  // Beside the experiment file, like the dataset.
  const auto path = write(with_policy("policy.json"));
  auto c = load_experiment(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->models[0].simulator_policy, policy);
  const auto inputs = c->input_files();
  EXPECT_TRUE(std::any_of(inputs.begin(), inputs.end(), [&](const InputFile& f) { return f.path == policy; }));
  EXPECT_NE(c->fingerprint(), load_experiment(write(valid()))->fingerprint());
  EXPECT_NE(error_of(with_policy("nowhere.json")).find("models[0].policy: file not found: nowhere.json"),
            std::string::npos);
}

TEST_F(ConfigTest, TrainingIsOptionalCheckedAndLeavesTheFingerprintAlone) {
  const std::string two = "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
                          "  - {name: a2, model: sim}\ndataset: {path: " + (dir_ / "tasks.jsonl").string() +
                          "}\nprotocols:\n  - {name: single}\n";
  auto plain = load_experiment(write(two));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(plain->training);
  auto c = load_experiment(write(two + "training: {method: mappo, compromised: 1, clip: 0.1}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->training);
  EXPECT_EQ(c->training->method, "mappo");
  EXPECT_EQ(c->training->compromised, 1);
  EXPECT_EQ(c->training->clip, 0.1);
  EXPECT_EQ(c->training->rounds, 5);   // T (§3.1)
  EXPECT_EQ(c->training->batch, 32);   // App. A.1
  EXPECT_EQ(c->training->kappa, 1.5);  // App. A.2
  EXPECT_EQ(c->training->warmup_share, 0.1);
  EXPECT_EQ(c->training->replay_correction_start, 0.4);  // β_IS annealed from 0.4 (Schaul et al. 2016)…
  EXPECT_EQ(c->training->replay_correction, 1.0);        // …to 1
  EXPECT_TRUE(c->training->dataset.empty());
  EXPECT_EQ(c->fingerprint(), plain->fingerprint());  // `parley run` ignores it
  // One agent in the experiment: nothing to debate.
  EXPECT_NE(error_of(valid("  - {name: single}\n", "training: {}\n"))
                .find("training.agents: training needs at least two debaters"),
            std::string::npos);
  EXPECT_NE(error_of(two + "training: {compromised: 2}\n").find("training.compromised"), std::string::npos);
  EXPECT_NE(error_of(two + "training: {ablation: all}\n").find("'all' is not one of none, intra, inter, sys"),
            std::string::npos);
  EXPECT_NE(error_of(two + "training: {agents: [a1, a9]}\n").find("no agent named 'a9'"), std::string::npos);
  EXPECT_NE(error_of(two + "training: {epoch: 3}\n").find("training.epoch: unknown key"), std::string::npos);
  EXPECT_NE(error_of(two + "training: {dataset: missing.jsonl}\n").find("training.dataset: file not found"),
            std::string::npos);
}

TEST_F(ConfigTest, OpenAiModelIsRead) {
  auto c = load_experiment(write(
      "models:\n  - {name: local, backend: openai, base_url: 'http://127.0.0.1:8000/v1', model: qwen3-8b,\n"
      "     api_key_env: OPENAI_API_KEY, max_concurrency: 64, timeout_s: 60}\n"
      "agents:\n  - {name: a1, model: local, temperature: 0.2}\n"
      "dataset: {path: " + (dir_ / "tasks.jsonl").string() + ", limit: 50}\n"
      "protocols:\n  - {name: single}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->models[0].backend, Backend::kOpenAi);
  EXPECT_EQ(c->models[0].endpoint.model, "qwen3-8b");
  EXPECT_EQ(c->models[0].endpoint.api_key_env, "OPENAI_API_KEY");
  EXPECT_EQ(c->models[0].endpoint.max_reply_bytes, 64u << 20);
  EXPECT_EQ(c->dataset.limit, 50u);
}

TEST_F(ConfigTest, MaxReplySizeIsInMebibytes) {
  const auto with_limit = [this](const std::string& value) {
    return load_experiment(write(
        "models:\n  - {name: local, backend: openai, base_url: 'http://127.0.0.1:8000/v1', model: q, max_reply_mb: " +
        value + "}\nagents:\n  - {name: a1, model: local}\ndataset: {path: " + (dir_ / "tasks.jsonl").string() +
        "}\nprotocols:\n  - {name: single}\n"));
  };
  auto two = with_limit("2");
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->models[0].endpoint.max_reply_bytes, 2u << 20);
  for (const char* bad : {"0", "4097", "1.5"}) {
    auto refused = with_limit(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message.find("models[0].max_reply_mb"), std::string::npos) << refused.error().message;
  }
}

TEST_F(ConfigTest, InvalidYamlAndMissingFile) {
  EXPECT_NE(error_of("models: [\n").find("exp.yaml:2: invalid YAML"), std::string::npos);
  auto missing = load_experiment(dir_ / "nope.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.yaml: file not found"), std::string::npos);
  EXPECT_NE(error_of("- just\n- a list\n").find("expected a mapping"), std::string::npos);
}

TEST_F(ConfigTest, ADuplicateKeyIsAnErrorNamingBothLines) {
  // YAML forbids a key twice in one mapping; yaml-cpp keeps the first silently.
  EXPECT_EQ(error_of("seeds: [1]\nconcurrency: 4\nseeds: [2]\n"),
            (dir_ / "exp.yaml").string() + ":3: key 'seeds' given twice (first on line 1)");
  EXPECT_NE(error_of("models:\n  - {name: sim, backend: simulator, name: other}\n")
                .find("exp.yaml:2: key 'name' given twice (first on line 2)"),
            std::string::npos);
  EXPECT_NE(error_of("protocols:\n  - name: debate\n    rounds: 2\n    rounds: 3\n")
                .find("exp.yaml:4: key 'rounds' given twice (first on line 3)"),
            std::string::npos);
}

TEST_F(ConfigTest, MissingDatasetFile) {
  const auto e = error_of(
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
      "dataset: {path: /nonexistent/tasks.jsonl}\nprotocols:\n  - {name: single}\n");
  EXPECT_NE(e.find(":5: dataset.path: file not found: /nonexistent/tasks.jsonl"), std::string::npos) << e;
}

TEST_F(ConfigTest, DuplicateLabelsAndSeeds) {
  EXPECT_NE(error_of(valid("  - {name: single}\n  - {name: single}\n")).find("label 'single' is used twice"),
            std::string::npos);
  EXPECT_NE(error_of(valid("  - {name: single}\n", "seeds: [1, 1]\n")).find("seed 1 is listed twice"), std::string::npos);
}

TEST_F(ConfigTest, OverridesApplyBeforeValidation) {
  auto c = load_experiment(write(valid("  - {name: debate}\n")),
                           {"concurrency=8", "protocols.0.rounds=4", "seeds=[3, 4]", "dataset.limit=1"});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->concurrency, 8);
  EXPECT_EQ(c->protocols[0].params.integer("rounds"), 4);
  EXPECT_EQ(c->seeds, (std::vector<std::uint64_t>{3, 4}));
  EXPECT_EQ(c->dataset.limit, 1u);
  EXPECT_NE(error_of(valid(), {"protocols.5.rounds=1"}).find("--set protocols.5.rounds"), std::string::npos);
  EXPECT_NE(error_of(valid(), {"noequals"}).find("expected key.path=value"), std::string::npos);
  EXPECT_NE(error_of(valid(), {"concurency=3"}).find("concurency: unknown key"), std::string::npos);
}

TEST_F(ConfigTest, FingerprintIgnoresConcurrencyButNotProtocols) {
  const auto path = write(valid("  - {name: debate}\n"));
  const auto a = load_experiment(path)->fingerprint();
  EXPECT_EQ(a, load_experiment(path, {"concurrency=3"})->fingerprint());
  EXPECT_NE(a, load_experiment(path, {"protocols.0.rounds=3"})->fingerprint());
  EXPECT_NE(a, load_experiment(path, {"seeds=[9]"})->fingerprint());
}

TEST_F(ConfigTest, InputFilesAreEveryFileTheExperimentReads) {
  std::filesystem::copy_file(std::filesystem::path(PARLEY_SOURCE_DIR) / "examples/imad-trigger.json",
                             dir_ / "trigger.json");
  auto c = load_experiment(write(
      "models:\n  - {name: sim, backend: simulator, params: own.json}\n  - {name: plain, backend: simulator}\n"
      "agents:\n  - {name: a1, model: sim}\n  - {name: a2, model: plain}\n"
      "dataset: {path: tasks.jsonl}\n"
      "protocols:\n  - {name: single}\n  - {name: imad, label: gated, trigger_model: trigger.json}\n"
      "  - {name: imad, trigger_model: trigger.json}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<std::pair<std::string, std::string>> files;
  for (const InputFile& file : c->input_files()) files.emplace_back(file.what, file.path.string());
  EXPECT_EQ(files, (std::vector<std::pair<std::string, std::string>>{
                       {"the simulator parameters of model 'sim'", "own.json"},
                       {"the dataset", (dir_ / "tasks.jsonl").string()},
                       {"the trigger_model file of protocol 'gated'", (dir_ / "trigger.json").string()},
                       {"the trigger_model file of protocol 'imad'", (dir_ / "trigger.json").string()}}));
}

TEST_F(ConfigTest, LabelSetAndEvidenceAreInputFilesAndEnterTheFingerprintOnlyWhenGiven) {
  std::ofstream(dir_ / "labels.yaml") << "labels: [Flu, Cold]\n";
  std::ofstream(dir_ / "corpus.jsonl") << "{\"id\": 1, \"text\": \"Flu: fever.\"}\n";
  const std::string head =
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n";
  auto c = load_experiment(
      write(head + "dataset: {path: tasks.jsonl, labels: labels.yaml, evidence: corpus.jsonl}\nprotocols:\n  - {name: single}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->dataset.labels, dir_ / "labels.yaml");
  EXPECT_EQ(c->dataset.evidence, dir_ / "corpus.jsonl");
  ASSERT_EQ(c->input_files().size(), 3u);
  EXPECT_EQ(c->input_files()[1].what, "the label set (dataset.labels)");
  EXPECT_EQ(c->input_files()[2].what, "the evidence corpus (dataset.evidence)");
  auto labels_only = load_experiment(write(head + "dataset: {path: tasks.jsonl, labels: labels.yaml}\nprotocols:\n  - {name: single}\n"));
  ASSERT_TRUE(labels_only.ok());
  EXPECT_NE(labels_only->fingerprint(), c->fingerprint());
  auto plain = load_experiment(write(head + "dataset: {path: tasks.jsonl}\nprotocols:\n  - {name: single}\n"));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->input_files().size(), 1u);
  EXPECT_NE(plain->fingerprint(), labels_only->fingerprint());
  const auto missing = error_of(head + "dataset: {path: tasks.jsonl, labels: nope.yaml}\nprotocols:\n  - {name: single}\n");
  EXPECT_NE(missing.find("dataset.labels: file not found: nope.yaml"), std::string::npos) << missing;
}

TEST_F(ConfigTest, MetricsLambdaIsReadCheckedAndFingerprinted) {
  auto c = load_experiment(write(valid("  - {name: debate}\n", "metrics: {u_intra_lambda: 0.25}\n")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->metrics.u_intra_lambda, 0.25);
  auto bounds = load_experiment(write(valid("  - {name: debate}\n", "metrics: {u_intra_lambda: 1}\n")));
  ASSERT_TRUE(bounds.ok()) << bounds.error().message;
  EXPECT_DOUBLE_EQ(bounds->metrics.u_intra_lambda, 1.0);

  const auto too_big = error_of(valid("  - {name: single}\n", "metrics:\n  u_intra_lambda: 1.5\n"));
  EXPECT_NE(too_big.find("exp.yaml:9: metrics.u_intra_lambda: 1.5 is out of range [0, 1]"), std::string::npos)
      << too_big;
  const auto negative = error_of(valid(), {"metrics.u_intra_lambda=-0.1"});
  EXPECT_NE(negative.find("metrics.u_intra_lambda: -0.1 is out of range [0, 1]"), std::string::npos) << negative;
  const auto unknown = error_of(valid("  - {name: single}\n", "metrics: {lambda: 0.3}\n"));
  EXPECT_NE(unknown.find("metrics.lambda: unknown key"), std::string::npos) << unknown;
  EXPECT_NE(error_of(valid("  - {name: single}\n", "metrics: 0.3\n")).find("metrics: expected a mapping"),
            std::string::npos);

  // λ changes the stored metrics, so it changes the fingerprint; the default leaves it as it was.
  const auto path = write(valid("  - {name: debate}\n"));
  const auto plain = load_experiment(path)->fingerprint();
  EXPECT_EQ(plain, load_experiment(path, {"metrics={u_intra_lambda: 0.5}"})->fingerprint());
  EXPECT_NE(plain, load_experiment(path, {"metrics={u_intra_lambda: 0.7}"})->fingerprint());
}

TEST_F(ConfigTest, EmbeddingsNameAModelForProtocolsThatUseThem) {
  const std::string models =
      "models:\n  - {name: sim, backend: simulator}\n"
      "  - {name: embedder, backend: openai, base_url: 'http://127.0.0.1:9/v1', model: text-embedding-3-small}\n"
      "agents:\n  - {name: a1, model: sim}\ndataset: {path: " + (dir_ / "tasks.jsonl").string() + "}\nprotocols:\n";
  auto c = load_experiment(write(models + "  - {name: s2_mad, embeddings: embedder, similarity_threshold: 0.85}\n"
                                          "  - {name: s2_mad, label: plain}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->protocols[0].embedding_model, "embedder");
  EXPECT_DOUBLE_EQ(c->protocols[0].params.real("similarity_threshold"), 0.85);
  EXPECT_EQ(c->protocols[1].embedding_model, "");
  EXPECT_DOUBLE_EQ(c->protocols[1].params.real("similarity_threshold"), 0.9);

  EXPECT_NE(error_of(models + "  - {name: s2_mad, embeddings: nowhere}\n")
                .find("protocols[0].embeddings: no model named 'nowhere' is defined under models"),
            std::string::npos);
  // A protocol that never embeds refuses the key rather than ignoring it.
  EXPECT_NE(error_of(models + "  - {name: debate, embeddings: embedder}\n").find("protocols[0].embeddings: unknown key"),
            std::string::npos);
  // The embedding model changes results, so it is part of the fingerprint.
  const auto path = write(models + "  - {name: s2_mad}\n");
  EXPECT_NE(load_experiment(path)->fingerprint(),
            load_experiment(path, {"protocols.0.embeddings=embedder"})->fingerprint());
}

TEST_F(ConfigTest, ProtocolAgentsIsACountOrAListOfNames) {
  const std::string two_agents =
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n"
      "  - {name: a2, model: sim, temperature: 0.2}\ndataset: {path: " + (dir_ / "tasks.jsonl").string() +
      "}\nprotocols:\n";
  auto listed = load_experiment(write(two_agents + "  - {name: debate, agents: [a2, a1]}\n"));
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(listed->protocols[0].agents, (std::vector<std::string>{"a2", "a1"}));
  EXPECT_EQ(listed->protocols[0].params.integer("agents"), 2);
  EXPECT_NE(error_of(two_agents + "  - {name: debate, agents: [a1]}\n").find("1 agents listed; protocol debate takes 2 to 64"),
            std::string::npos);
  EXPECT_NE(error_of(two_agents + "  - {name: single, agents: 2}\n").find("protocols[0].agents: expected a list of agent names"),
            std::string::npos);
  EXPECT_NE(error_of(two_agents + "  - {name: single, agents: [a9]}\n").find("no agent named 'a9'"), std::string::npos);
}

TEST_F(ConfigTest, JudgesJudgeBlockAndBestOf) {
  const std::string two_agents =
      "models:\n  - {name: sim, backend: simulator}\n  - {name: other, backend: simulator, profile: strong}\n"
      "agents:\n  - {name: a1, model: sim}\n  - {name: j1, model: other}\ndataset: {path: " +
      (dir_ / "tasks.jsonl").string() + "}\nprotocols:\n";
  auto c = load_experiment(write(two_agents +
                                 "  - {name: single, agents: [a1], judges: [j1, a1], best_of: 2,\n"
                                 "     judge: {reasks: 1, masking: false, scale: rubric, aggregation: median}}\n"
                                 "  - {name: debate}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  const ProtocolConfig& judged = c->protocols[0];
  EXPECT_EQ(judged.judges, (std::vector<std::string>{"j1", "a1"}));
  EXPECT_EQ(judged.best_of, 2);
  EXPECT_EQ(judged.judging.reasks, 1);
  EXPECT_FALSE(judged.judging.mask_identities);
  EXPECT_EQ(judged.judging.scale, JudgeScale::kRubric);
  EXPECT_EQ(judged.judging.aggregation, JudgeAggregation::kMedian);
  // Defaults: no judges listed (the pool's first agent judges), Likert, mean, masking, 2 re-asks.
  const ProtocolConfig& plain = c->protocols[1];
  EXPECT_TRUE(plain.judges.empty());
  EXPECT_EQ(plain.best_of, 1);
  EXPECT_EQ(plain.judging.reasks, 2);
  EXPECT_TRUE(plain.judging.mask_identities);
  EXPECT_EQ(plain.judging.scale, JudgeScale::kLikert);

  EXPECT_NE(error_of(two_agents + "  - {name: single, judges: [j9]}\n").find("protocols[0].judges: no agent named 'j9'"),
            std::string::npos);
  EXPECT_NE(error_of(two_agents + "  - {name: single, best_of: 0}\n").find("protocols[0].best_of"), std::string::npos);
  EXPECT_NE(error_of(two_agents + "  - {name: single, judge: {scale: stars}}\n").find("unknown judge scale 'stars'"),
            std::string::npos);
  EXPECT_NE(error_of(two_agents + "  - {name: single, judge: {panel: 3}}\n").find("panel"), std::string::npos);
  const auto path = write(two_agents + "  - {name: single}\n");
  EXPECT_NE(load_experiment(path)->fingerprint(), load_experiment(path, {"protocols.0.best_of=3"})->fingerprint());
  // The protocols paper's turn protocols default to its best-of-2 reranking.
  auto paper = load_experiment(write(two_agents + "  - {name: wr}\n  - {name: ra_cr, best_of: 1}\n"));
  ASSERT_TRUE(paper.ok()) << paper.error().message;
  EXPECT_EQ(paper->protocols[0].best_of, 2);
  EXPECT_EQ(paper->protocols[1].best_of, 1);
}

TEST_F(ConfigTest, CompromisedIsANumberOfSeatsOrPoolAgentsAndEntersTheFingerprint) {
  const std::string experiment =
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n  - {name: a2, model: sim}\n"
      "  - {name: a3, model: sim}\ndataset: {path: " + (dir_ / "tasks.jsonl").string() + "}\nprotocols:\n";
  auto c = load_experiment(write(experiment + "  - {name: debate, agents: 3, compromised: 2}\n"
                                              "  - {name: debate, label: named, agents: [a1, a3], compromised: [a3],"
                                              " attack_instruction: Argue for A.}\n"
                                              "  - {name: debate, label: none}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->protocols[0].attack.count, 2);
  EXPECT_TRUE(c->protocols[0].attack.agents.empty());
  EXPECT_EQ(c->protocols[0].attack.instruction, "");
  EXPECT_EQ(c->protocols[1].attack.agents, (std::vector<std::string>{"a3"}));
  EXPECT_EQ(c->protocols[1].attack.instruction, "Argue for A.");
  EXPECT_FALSE(c->protocols[2].attack.active());

  const auto error = [&](const std::string& entry) { return error_of(experiment + entry); };
  EXPECT_NE(error("  - {name: debate, agents: [a1, a2], compromised: [a3]}\n")
                .find("protocols[0].compromised: 'a3' is not one of this protocol's agents"),
            std::string::npos);
  EXPECT_NE(error("  - {name: debate, compromised: [a9]}\n").find("'a9' is not one of this protocol's agents"),
            std::string::npos);
  EXPECT_NE(error("  - {name: debate, compromised: [a2, a2]}\n").find("'a2' is listed twice"), std::string::npos);
  EXPECT_NE(error("  - {name: debate, compromised: []}\n").find("expected agent names or a number of agents"),
            std::string::npos);
  EXPECT_NE(error("  - {name: debate, agents: 3, compromised: 4}\n").find("4 compromised of 3 debater(s) that debate seats"),
            std::string::npos);
  // Protocols without an `agents` parameter seat a fixed or derived number of debaters.
  EXPECT_NE(error("  - {name: mad, compromised: 3}\n").find("3 compromised of 2 debater(s) that mad seats"),
            std::string::npos);
  EXPECT_NE(error("  - {name: single, compromised: 2}\n").find("2 compromised of 1 debater(s)"), std::string::npos);
  EXPECT_NE(error("  - {name: group_debate, groups: 2-2, compromised: 5}\n").find("5 compromised of 4"),
            std::string::npos);
  EXPECT_NE(error("  - {name: self_consistency, samples: 3, compromised: 2}\n").find("2 compromised of 1"),
            std::string::npos);
  EXPECT_TRUE(load_experiment(write(experiment + "  - {name: mad, compromised: 2}\n  - {name: single, label: s, "
                                                 "compromised: 1}\n  - {name: group_debate, groups: 2-2, compromised: "
                                                 "4}\n  - {name: self_consistency, label: sc, samples: 3, "
                                                 "one_per_agent: true, compromised: 3}\n"))
                  .ok());
  // A named agent is compromised where it is seated: the pool is seated in order, so an agent
  // past the debaters would never debate.
  EXPECT_NE(error("  - {name: debate, agents: 2, compromised: [a3]}\n")
                .find("protocols[0].compromised: 'a3' is never seated: debate seats 2 debater(s), the first of a1, a2, a3"),
            std::string::npos);
  EXPECT_NE(error("  - {name: mad, agents: [a3, a2, a1], compromised: [a1]}\n").find("'a1' is never seated"),
            std::string::npos);
  EXPECT_TRUE(load_experiment(write(experiment + "  - {name: mad, agents: [a3, a2, a1], compromised: [a2]}\n")).ok());
  EXPECT_NE(error("  - {name: debate, compromised: -1}\n").find("protocols[0].compromised"), std::string::npos);
  EXPECT_NE(error("  - {name: debate, compromised: many}\n").find("protocols[0].compromised"), std::string::npos);
  EXPECT_NE(error("  - {name: debate, attack_instruction: Argue.}\n")
                .find("protocols[0].attack_instruction: needs 'compromised' in the same protocol entry"),
            std::string::npos);
  EXPECT_NE(error("  - {name: debate, compromised: 1, attack_instruction: ''}\n")
                .find("expected a non-empty instruction"),
            std::string::npos);

  // The attack changes results: it enters the fingerprint, and so does its instruction; no
  // attack (including `compromised: 0`) leaves the fingerprint of a run without the key.
  const auto path = write(experiment + "  - {name: debate}\n");
  const std::string plain = load_experiment(path)->fingerprint();
  const std::string one = load_experiment(path, {"protocols.0.compromised=1"})->fingerprint();
  EXPECT_NE(plain, one);
  EXPECT_NE(one, load_experiment(path, {"protocols.0.compromised=2"})->fingerprint());
  EXPECT_NE(one, load_experiment(path, {"protocols.0.compromised=1", "protocols.0.attack_instruction=x"})->fingerprint());
  EXPECT_EQ(plain, load_experiment(path, {"protocols.0.compromised=0"})->fingerprint());
}

TEST_F(ConfigTest, BestOfJitterIsThePapersUnlessSetAndZeroIsAllowed) {
  const std::string experiment =
      "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\ndataset: {path: " +
      (dir_ / "tasks.jsonl").string() + "}\nprotocols:\n";
  auto c =
      load_experiment(write(experiment + "  - {name: wr}\n  - {name: cr, label: cr0, best_of_jitter: 0}\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->protocols[0].best_of_jitter, 0.15);
  EXPECT_EQ(c->protocols[1].best_of_jitter, 0.0);
  EXPECT_NE(
      error_of(experiment + "  - {name: wr, best_of_jitter: -0.1}\n").find("protocols[0].best_of_jitter"),
      std::string::npos);
  EXPECT_NE(
      error_of(experiment + "  - {name: wr, best_of_jitter: 1.5}\n").find("protocols[0].best_of_jitter"),
      std::string::npos);
  EXPECT_NE(
      error_of(experiment + "  - {name: wr, best_of_jitter: often}\n").find("protocols[0].best_of_jitter"),
      std::string::npos);
  // Runs stored before the key existed used the paper's 0.15: saying so keeps the fingerprint.
  const auto path = write(experiment + "  - {name: wr}\n");
  EXPECT_EQ(load_experiment(path)->fingerprint(),
            load_experiment(path, {"protocols.0.best_of_jitter=0.15"})->fingerprint());
  EXPECT_NE(load_experiment(path)->fingerprint(),
            load_experiment(path, {"protocols.0.best_of_jitter=0"})->fingerprint());
}

// A serve file: models, agents and `serve:`, no dataset or protocols.
std::string serve_file(const std::string& serve) {
  return "models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n  - {name: a2, model: sim}\n"
         "serve:\n" + serve;
}

TEST_F(ConfigTest, AServeFileNamesServedModelsAndLimitsWithDocumentedDefaults) {
  auto c = load_experiment(write(serve_file("  models:\n"
                                            "    - {model: debate-2x3, protocol: debate, agents: [a1, a2], rounds: 3}\n"
                                            "    - {protocol: single, agents: [a1]}\n")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->serve.has_value());
  const ServeConfig& serve = *c->serve;
  ASSERT_EQ(serve.models.size(), 2u);
  EXPECT_EQ(serve.models[0].name, "debate");
  EXPECT_EQ(serve.models[0].label, "debate-2x3");
  EXPECT_EQ(serve.models[0].params.integer("rounds"), 3);
  EXPECT_EQ(serve.models[0].agents, (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(serve.models[1].label, "single");  // the protocol's name when no model name is given
  EXPECT_EQ(serve.store, "served");
  EXPECT_EQ(serve.host, "127.0.0.1");
  EXPECT_EQ(serve.port, 8080);
  EXPECT_EQ(serve.max_debates, 64);
  EXPECT_EQ(serve.max_waiting, 256);
  EXPECT_EQ(serve.retry_after_s, 1.0);
  EXPECT_EQ(serve.max_request_bytes, 1 << 20);
  EXPECT_EQ(serve.max_connections, 10000);
  EXPECT_FALSE(serve.budget_tokens.has_value());
  EXPECT_EQ(serve.deadline_s, 600.0);
  EXPECT_TRUE(c->protocols.empty());
  EXPECT_TRUE(c->dataset.path.empty());
  EXPECT_TRUE(c->input_files().empty());

  const ExperimentConfig served = c->served_experiment();
  ASSERT_EQ(served.protocols.size(), 2u);
  EXPECT_EQ(served.protocols[0].label, "debate-2x3");
  EXPECT_EQ(served.seeds, std::vector<std::uint64_t>{0});
  EXPECT_EQ(served.fingerprint(), c->served_experiment().fingerprint());
  auto changed = load_experiment(write(serve_file("  models:\n"
                                                  "    - {model: debate-2x3, protocol: debate, agents: [a1, a2], rounds: 2}\n"
                                                  "    - {protocol: single, agents: [a1]}\n")));
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(changed->served_experiment().fingerprint(), served.fingerprint());
}

TEST_F(ConfigTest, ServeSettingsAreRead) {
  auto c = load_experiment(write(serve_file("  store: out/gw\n  host: 0.0.0.0\n  port: 0\n  api_key_env: GW_KEY\n"
                                            "  max_debates: 8\n  max_waiting: 0\n  retry_after_s: 2.5\n"
                                            "  max_request_bytes: 4096\n  max_connections: 32\n  budget_tokens: 30000\n"
                                            "  deadline_s: 45\n"
                                            "  models:\n    - {protocol: single, agents: [a1]}\n")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  const ServeConfig& serve = *c->serve;
  EXPECT_EQ(serve.store, "out/gw");
  EXPECT_EQ(serve.host, "0.0.0.0");
  EXPECT_EQ(serve.port, 0);
  EXPECT_EQ(serve.api_key_env, "GW_KEY");
  EXPECT_EQ(serve.max_debates, 8);
  EXPECT_EQ(serve.max_waiting, 0);
  EXPECT_EQ(serve.retry_after_s, 2.5);
  EXPECT_EQ(serve.max_request_bytes, 4096);
  EXPECT_EQ(serve.max_connections, 32);
  EXPECT_EQ(serve.budget_tokens, 30000);
  EXPECT_EQ(serve.deadline_s, 45.0);
  EXPECT_EQ(c->served_experiment().budget_tokens_per_task, 30000);
}

TEST_F(ConfigTest, ServeMistakesNameTheKey) {
  const std::string single = "  models:\n    - {protocol: single, agents: [a1]}\n";
  EXPECT_NE(error_of(serve_file("  models:\n    - {model: x, protocol: nope}\n")).find("serve.models[0].protocol"),
            std::string::npos);
  EXPECT_NE(error_of(serve_file("  models:\n    - {model: x, name: single}\n")).find("serve.models[0]"),
            std::string::npos);
  EXPECT_NE(error_of(serve_file("  models:\n    - {model: x, protocol: single, agents: [zed]}\n")).find("serve.models[0].agents"),
            std::string::npos);
  EXPECT_NE(error_of(serve_file("  models:\n    - {model: x, protocol: single}\n    - {model: x, protocol: debate}\n"))
                .find("served twice"),
            std::string::npos);
  EXPECT_NE(error_of(serve_file("  models: []\n")).find("serve.models"), std::string::npos);
  EXPECT_NE(error_of(serve_file(single + "  port: 70000\n")).find("serve.port"), std::string::npos);
  EXPECT_NE(error_of(serve_file(single + "  max_debates: 0\n")).find("serve.max_debates"), std::string::npos);
  EXPECT_NE(error_of(serve_file(single + "  deadline_s: 0\n")).find("serve.deadline_s"), std::string::npos);
  EXPECT_NE(error_of(serve_file(single + "  max_request_bytes: 10\n")).find("serve.max_request_bytes"), std::string::npos);
  EXPECT_NE(error_of(serve_file(single + "  max_connections: 0\n")).find("serve.max_connections"), std::string::npos);
  EXPECT_NE(error_of(serve_file(single + "  max_connections: many\n")).find("serve.max_connections"), std::string::npos);
  EXPECT_NE(error_of(serve_file(single + "  stor: x\n")).find("serve"), std::string::npos);
  // Without serve: a dataset and protocols are still required.
  EXPECT_NE(error_of("models:\n  - {name: sim, backend: simulator}\nagents:\n  - {name: a1, model: sim}\n").find("dataset"),
            std::string::npos);
}

TEST_F(ConfigTest, AnExperimentFileMayAlsoServe) {
  auto c = load_experiment(write(valid("  - {name: single}\n", "serve:\n  models:\n    - {protocol: single, agents: [a1]}\n")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->protocols.size(), 1u);
  EXPECT_EQ(c->serve->models.size(), 1u);
}

}  // namespace
}  // namespace parley
