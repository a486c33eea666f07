// `parley features` (why a debate was or was not triggered) and `parley train-trigger` (the
// classifier from a run's self-critique responses, iMAD §4.2 and §5 "Classifier Configurations").
#include "cli/trigger_commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/output.h"
#include "core/files.h"
#include "parley/runner.h"
#include "parley/self_critique.h"
#include "parley/trigger.h"

namespace parley::cli {
namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

// A file's text, or standard input for "-".
Result<std::string> read_text(const std::string& path) {
  if (path == "-") {
    std::ostringstream all;
    all << std::cin.rdbuf();
    return all.str();
  }
  return read_input_file(path);
}

nlohmann::ordered_json evaluation_json(const TriggerEvaluation& ev, double threshold) {
  const auto number_or_null = [](double x) {
    return std::isnan(x) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(x);
  };
  return {{"examples", ev.n},
          {"threshold", threshold},
          {"auc", number_or_null(ev.auc)},
          {"ece", ev.ece},
          {"debate_rate", ev.decisions.debate_rate()},
          {"beneficial_rate", ev.decisions.judged() ? nlohmann::ordered_json(ev.decisions.beneficial_rate())
                                                    : nlohmann::ordered_json(nullptr)},
          {"judged", ev.decisions.judged()}};
}

std::string describe(const TriggerEvaluation& ev) {
  std::string out =
      fmt::format("AUC {}, ECE {:.3f}, debate rate {:.1f}%",
                  std::isnan(ev.auc) ? std::string("n/a (one class only)") : fmt::format("{:.3f}", ev.auc),
                  ev.ece, 100.0 * ev.decisions.debate_rate());
  if (ev.decisions.judged() > 0) {
    out +=
        fmt::format(", beneficial decisions {:.1f}% ({} of {} judged)",
                    100.0 * ev.decisions.beneficial_rate(), ev.decisions.beneficial(), ev.decisions.judged());
  } else {
    out += ", beneficial decisions n/a (no MAD outcomes in the run)";
  }
  return out;
}

}  // namespace

void add_trigger_commands(CLI::App& app, TriggerCommands& c) {
  c.features = app.add_subcommand(
      "features", "Print iMAD's 41 features of a self-critique response (and the trigger's score)");
  c.features->add_option("--question", c.features_args.question, "The question text (without the options)")
      ->required();
  c.features
      ->add_option("--response", c.features_args.response_file,
                   "File with the self-critique response ('-' = stdin)")
      ->required();
  c.features->add_option("--model", c.features_args.model,
                         "Also score it with this trigger model (parley train-trigger)");

  TrainTriggerArgs& t = c.train_args;
  c.train = app.add_subcommand("train-trigger",
                               "Train iMAD's debate-decision classifier on a run's self-critique responses");
  c.train->add_option("run_dir", t.run_dir, "Run directory with self_critique or imad debates");
  c.train->add_option("--out", t.out, "Model file to write (JSON)")->required();
  c.train
      ->add_option(
          "--loss", t.options.loss,
          "Loss: focuscal (= af+cp+ece), bce, mse, or terms joined by '+' from af, cp, ece, bce, mse, "
          "optionally weighted (af+6*cp+5*ece)")
      ->capture_default_str();
  c.train->add_option("--epochs", t.options.epochs, "Training epochs")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  c.train->add_option("--learning-rate", t.options.learning_rate, "Adam learning rate")
      ->capture_default_str();
  c.train->add_option("--batch-size", t.options.batch_size, "Mini-batch size")
      ->capture_default_str()
      ->check(CLI::Range(2, 1 << 20));
  c.train->add_option("--seed", t.options.seed, "Seed of the initialisation, shuffling, dropout and split")
      ->capture_default_str();
  c.train->add_option("--layers", t.options.shape.layers, "Encoder layers")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  c.train->add_option("--hidden", t.options.shape.hidden, "Units per encoder layer")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  c.train->add_option("--dropout", t.options.shape.dropout, "Dropout rate")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.95));
  c.train
      ->add_option("--alpha0", t.options.focus.alpha0,
                   "FocusCal alpha_0 (weight of incorrect answers, eq. 6)")
      ->capture_default_str();
  c.train->add_option("--alpha1", t.options.focus.alpha1, "FocusCal alpha_1 (eq. 6)")->capture_default_str();
  c.train->add_option("--gamma", t.options.focus.gamma, "FocusCal gamma (eq. 6)")->capture_default_str();
  c.train
      ->add_option("--lambda", t.options.focus.lambda,
                   "FocusCal lambda, weight of the confidence penalty (eq. 5)")
      ->capture_default_str();
  c.train->add_option("--mu", t.options.focus.mu, "FocusCal mu, weight of the ECE term (eq. 5)")
      ->capture_default_str();
  c.train->add_option("--bins", t.options.focus.bins, "ECE bins B (eq. 8)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  c.train
      ->add_option("--threshold", t.options.focus.threshold,
                   "Debate threshold tau stored in the model (debate when p < tau), also the tau of the "
                   "confidence penalty (eq. 7)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  c.train
      ->add_option("--penalty-threshold", t.options.focus.penalty_threshold,
                   "A tau for the confidence penalty (eq. 7) other than --threshold")
      ->check(CLI::Range(0.0, 1.0));
  c.train->add_option("--validation", t.validation, "Share of tasks held out for validation")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 0.9));
  c.train
      ->add_option("--mad-reference", t.mad_reference,
                   "Protocol label whose outcome stands for MAD's on skipped units")
      ->capture_default_str();
  c.train->add_option("--examples-out", t.examples_out,
                      "Also write every example (unit, split, label, MAD outcome, features) as JSON lines");
  c.train->add_option(
      "--examples-in", t.examples_in,
      "Train on examples written by --examples-out instead of a run (skips feature extraction)");
  c.train->add_flag("--quiet", t.quiet, "Print nothing but errors");
}

int command_features(const FeaturesArgs& args) {
  const auto response = read_text(args.response_file);
  if (!response) {
    fmt::print(stderr, "parley: {}: cannot read the response file: {}\n", args.response_file,
               response.error().message);
    return kExitUsage;
  }
  std::optional<TriggerModel> model;
  if (!args.model.empty()) {
    auto loaded = TriggerModel::load(args.model, &trigger_feature_names());
    if (!loaded) {
      fmt::print(stderr, "parley: {}\n", loaded.error().message);
      return kExitUsage;
    }
    model = std::move(loaded).value();
  }
  const FeatureInput input = self_critique_feature_input(args.question, response.value());
  // Every section but the optional alternative answer missing: there is nothing to measure,
  // and 41 defaults would score like a real response.
  if (input.missing_sections.size() + 1 >= kCritiqueSectionLabels.size()) {
    fmt::print(stderr,
               "parley: {}: no section of a self-critique response could be read (an answer, its reasoning, "
               "the critique or a confidence); nothing to extract\n",
               args.response_file);
    return kExitUsage;
  }
  const FeatureExtractor extractor;
  const std::vector<double> values = extractor.extract(input);
  nlohmann::ordered_json out;
  out["features"] = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < values.size(); ++i) out["features"][trigger_feature_names()[i]] = values[i];
  // The sections the response lacks: their features are defaults, not measurements.
  out["missing_sections"] = input.missing_sections;
  if (!input.missing_sections.empty()) {
    fmt::print(stderr, "parley: {}: missing or unreadable sections: {} (their features are defaults)\n",
               args.response_file, fmt::join(input.missing_sections, ", "));
  }
  if (model) {
    const TriggerScore score = model->score(values);
    out["trigger"] = {{"p", score.p},
                      {"u", score.u},
                      {"threshold", model->threshold()},
                      {"decision", model->trigger(score) ? "debate" : "skip"}};
  }
  print_out("{}\n", out.dump(2));
  return 0;
}

// Examples as --examples-out wrote them; Error names the line.
Result<std::vector<TriggerExample>> read_examples(const std::string& path, bool& simulated) {
  auto text = read_input_file(path);
  if (!text) return Error{fmt::format("{}: {}", path, text.error().message)};
  std::istringstream in(*text);
  std::vector<TriggerExample> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    const auto bad = [&](const std::string& why) {
      return Error{fmt::format("{}:{}: {}", path, number, why)};
    };
    if (!j.is_object() || !j.contains("features") || !j["features"].is_object() || !j.contains("label"))
      return bad("expected an object with \"features\" and \"label\" (as --examples-out writes)");
    TriggerExample e;
    e.task_id = j.value("task_id", "");
    e.seed = j.value("seed", std::uint64_t{0});
    e.protocol = j.value("protocol", "");
    e.label = j["label"].is_number_integer() ? j["label"].get<int>() : -1;
    if (e.label != 0 && e.label != 1) return bad("label must be 0 or 1");
    if (j.contains("mad_correct") && j["mad_correct"].is_boolean())
      e.mad_correct = j["mad_correct"].get<bool>();
    for (const auto& name : trigger_feature_names()) {
      const auto it = j["features"].find(name);
      if (it == j["features"].end() || !it->is_number()) return bad("feature " + name + " is missing");
      e.features.push_back(it->get<double>());
    }
    simulated = simulated || j.value("simulated", false);
    out.push_back(std::move(e));
  }
  return out;
}

int command_train_trigger(const TrainTriggerArgs& args) {
  if (args.run_dir.empty() == args.examples_in.empty()) {
    fmt::print(stderr, "parley: train-trigger needs a run directory or --examples-in, not both\n");
    return kExitUsage;
  }
  std::vector<TriggerExample> examples;
  bool simulated = false;
  const std::string source = args.examples_in.empty() ? args.run_dir : args.examples_in;
  if (!args.examples_in.empty()) {
    auto read = read_examples(args.examples_in, simulated);
    if (!read) {
      fmt::print(stderr, "parley: {}\n", read.error().message);
      return kExitUsage;
    }
    examples = std::move(read).value();
  } else {
    auto run = read_run(args.run_dir);
    if (!run) {
      fmt::print(stderr, "parley: {}\n", run.error().message);
      return kExitUsage;
    }
    simulated = run->simulated;
    const FeatureExtractor extractor;
    examples = trigger_examples(run->transcripts, extractor, args.mad_reference);
  }
  if (examples.empty()) {
    fmt::print(
        stderr,
        "parley: {}: no self-critique responses to learn from; run the self_critique (or imad) protocol on a "
        "labelled dataset first\n",
        source);
    return kExitUsage;
  }
  const TriggerSplit split = split_by_task(examples, args.validation, args.options.seed);
  if (!args.examples_out.empty()) {
    OutputFile out(args.examples_out);
    for (const auto* part : {&split.train, &split.validation}) {
      for (const TriggerExample& e : *part) {
        nlohmann::ordered_json line{
            {"task_id", e.task_id},   {"seed", e.seed},
            {"protocol", e.protocol}, {"split", part == &split.train ? "train" : "validation"},
            {"label", e.label},       {"simulated", simulated}};
        line["mad_correct"] =
            e.mad_correct ? nlohmann::ordered_json(*e.mad_correct) : nlohmann::ordered_json(nullptr);
        for (std::size_t i = 0; i < e.features.size(); ++i)
          line["features"][trigger_feature_names()[i]] = e.features[i];
        out.append(line.dump() + "\n");
      }
    }
    if (auto ok = out.commit(); !ok) {
      fmt::print(stderr, "parley: {}: {}\n", args.examples_out, ok.error().message);
      return kExitRuntime;
    }
  }
  std::vector<EpochLog> log;
  auto trained = TriggerModel::train(training_set(split.train), args.options, &log);
  if (!trained) {
    fmt::print(stderr, "parley: {}\n", trained.error().message);
    return kExitUsage;
  }
  TriggerModel model = std::move(trained).value();  // its threshold: --threshold

  std::int64_t correct = 0;
  for (const auto& e : examples) correct += e.label;
  const TriggerEvaluation on_train = evaluate_trigger(model, split.train);
  std::optional<TriggerEvaluation> on_validation;
  if (!split.validation.empty()) on_validation = evaluate_trigger(model, split.validation);

  nlohmann::json& meta = model.metadata();
  meta["trained_on"] = source;
  meta["simulated"] = simulated;
  meta["examples"] = static_cast<std::int64_t>(examples.size());
  meta["correct"] = correct;
  meta["mad_reference"] = args.mad_reference;
  meta["validation_fraction"] = args.validation;
  meta["training"] = nlohmann::json::parse(evaluation_json(on_train, model.threshold()).dump());
  if (on_validation)
    meta["validation"] = nlohmann::json::parse(evaluation_json(*on_validation, model.threshold()).dump());
  nlohmann::json losses = nlohmann::json::array();
  for (const EpochLog& e : log) losses.push_back(e.loss);
  meta["epoch_loss"] = losses;
  if (auto saved = model.save(args.out); !saved) {
    fmt::print(stderr, "parley: {}\n", saved.error().message);
    return kExitRuntime;
  }
  if (args.quiet) return 0;
  print_out("{}{} self-critique responses from {} ({} correct), {} for training, {} for validation\n",
             simulated ? "SIMULATED: " : "", examples.size(), source, correct, split.train.size(),
             split.validation.size());
  if (!log.empty())
    print_out("loss {}, {} epochs: {:.4f} -> {:.4f}\n", args.options.loss, log.size(), log.front().loss,
               log.back().loss);
  print_out("training:   {}\n", describe(on_train));
  if (on_validation) print_out("validation: {}\n", describe(*on_validation));
  print_out("threshold {} (debate when p < threshold); model written to {}\n", model.threshold(), args.out);
  return 0;
}

}  // namespace parley::cli
