// Kill-and-resume: a run killed with SIGKILL at arbitrary moments and resumed with --resume
// ends with exactly the summary and transcripts of an uninterrupted run (simulator: identical).
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

#include "integration/cli_support.h"

namespace parley::testing {
namespace {

std::string experiment(int delay_ms = 2, int concurrency = 8) {
  return "models:\n  - {name: sim, backend: simulator, delay_ms: " + std::to_string(delay_ms) + "}\n"
         "agents:\n  - {name: a1, model: sim}\n"
         "dataset: {path: " + (source_dir() / "examples/data/mc-sample.jsonl").string() + ", limit: 20}\n"
         "protocols:\n  - {name: single}\n  - {name: self_consistency, samples: 3}\n  - {name: debate}\n"
         "seeds: [1, 2, 3]\nconcurrency: " + std::to_string(concurrency) + "\n";
}

// The rows `sql` gives on the store at `db`, one line per row with columns separated by '|';
// nullopt when the store cannot be read (yet).
std::optional<std::string> query(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  std::optional<std::string> rows;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(handle, 100);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      std::string text;
      int rc;
      while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (int column = 0; column < sqlite3_column_count(stmt); ++column) {
          const auto* value = sqlite3_column_text(stmt, column);
          text += (column > 0 ? "|" : "") + std::string(value ? reinterpret_cast<const char*>(value) : "");
        }
        text += "\n";
      }
      if (rc == SQLITE_DONE) rows = text;
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(handle);
  return rows;
}

std::int64_t stored_debates(const std::filesystem::path& db) {
  const auto count = query(db, "SELECT COUNT(*) FROM debates");
  return count ? std::stoll(*count) : -1;
}

// Every stored debate, whole, to see that a refused run left the store as it was.
std::string stored_rows(const std::filesystem::path& db) {
  return query(db, "SELECT task_id, protocol, seed, status, transcript FROM debates ORDER BY task_id, protocol, seed")
      .value_or("(unreadable)");
}

// Starts `parley run` and sends it `signal` once at least `after` debates are stored; returns
// whether it was signalled before finishing, and its wait status in `*status_out`.
bool run_and_signal(const std::filesystem::path& dir, std::int64_t after, bool resume, int signal,
                    int* status_out) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    const std::string binary = parley_binary().string();
    if (!freopen("/dev/null", "w", stdout) || !freopen("run.stderr", "w", stderr)) ::_exit(127);
    if (resume) {
      ::execl(binary.c_str(), binary.c_str(), "run", "exp.yaml", "--out", "killed", "--resume", nullptr);
    } else {
      ::execl(binary.c_str(), binary.c_str(), "run", "exp.yaml", "--out", "killed", nullptr);
    }
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      *status_out = status;
      return false;  // finished on its own
    }
    if (stored_debates(dir / "killed/results.sqlite") >= after) {
      ::kill(pid, signal);
      ::waitpid(pid, &status, 0);
      *status_out = status;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  ADD_FAILURE() << "run neither finished nor reached " << after << " stored debates";
  return false;
}

bool run_and_kill(const std::filesystem::path& dir, std::int64_t after, bool resume) {
  int status = 0;
  return run_and_signal(dir, after, resume, SIGKILL, &status);
}

TEST(Resume, KilledRunsResumeToTheUninterruptedResult) {
  const auto dir = scratch_dir("resume");
  write_file(dir / "exp.yaml", experiment());

  const auto reference = run_parley({"run", "exp.yaml", "--out", "reference"}, dir);
  ASSERT_EQ(reference.exit_code, 0) << reference.err;

  // 20 tasks × 3 protocols × 3 seeds = 180 debates; kill three times at growing counts.
  int kills = 0;
  kills += run_and_kill(dir, 10, false);
  kills += run_and_kill(dir, 70, true);
  kills += run_and_kill(dir, 130, true);
  EXPECT_GE(kills, 2) << "the run was too fast to be interrupted";

  const auto resumed = run_parley({"run", "exp.yaml", "--out", "killed", "--resume"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(stored_debates(dir / "killed/results.sqlite"), 180);
  EXPECT_EQ(read_file(dir / "killed/summary.json"), read_file(dir / "reference/summary.json"));

  // Transcripts match too, apart from measured wall-clock fields.
  auto strip_wall = [](std::string text) {
    std::string out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find("\"wall_ms\":");
      if (at != std::string::npos) {
        const auto end = line.find_first_of(",}", at);
        line.erase(at, end - at);
      }
      out += line + "\n";
    }
    return out;
  };
  EXPECT_EQ(strip_wall(read_file(dir / "killed/transcripts.jsonl")),
            strip_wall(read_file(dir / "reference/transcripts.jsonl")));
}

TEST(Resume, SigintStopsCleanlyAndTheRunResumes) {
  const auto dir = scratch_dir("sigint");
  // Slow enough (about 5 s in all) that the signal always lands mid-run.
  write_file(dir / "exp.yaml", experiment(50, 4));
  int status = 0;
  const bool interrupted = run_and_signal(dir, 20, false, SIGINT, &status);
  ASSERT_TRUE(interrupted) << "the run ended before it could be interrupted; status " << status << ", stderr: "
                           << read_file(dir / "run.stderr");
  ASSERT_TRUE(WIFEXITED(status)) << "SIGINT must end the run through its exit path, not kill it";
  EXPECT_EQ(WEXITSTATUS(status), 130);
  // Debates that finished were stored (those cut short were not); the exports describe them.
  const auto stored = stored_debates(dir / "killed/results.sqlite");
  EXPECT_GE(stored, 20);
  EXPECT_LT(stored, 180);
  EXPECT_TRUE(std::filesystem::exists(dir / "killed/summary.json"));

  const auto resumed = run_parley({"run", "exp.yaml", "--out", "killed", "--resume"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(stored_debates(dir / "killed/results.sqlite"), 180);
  EXPECT_NE(resumed.out.find("resumed from the store"), std::string::npos);
}

// An experiment reading three files besides itself: simulator parameters, the dataset and
// iMAD's trigger model, each a copy in `dir` that a test may edit.
void write_experiment_with_input_files(const std::filesystem::path& dir) {
  std::filesystem::copy_file(source_dir() / "data/simulator/params-v1.json", dir / "params.json");
  std::filesystem::copy_file(source_dir() / "examples/data/mc-sample.jsonl", dir / "tasks.jsonl");
  std::filesystem::copy_file(source_dir() / "examples/imad-trigger.json", dir / "trigger.json");
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator, params: params.json}\n"
             "agents:\n  - {name: a1, model: sim}\n  - {name: a2, model: sim}\n"
             "dataset: {path: tasks.jsonl, limit: 4}\n"
             "protocols:\n  - {name: single}\n  - {name: imad, agents: [a1, a2], trigger_model: trigger.json}\n"
             "seeds: [1, 2]\n");
}

TEST(Resume, AnEditedInputFileIsRefusedUntilRestored) {
  const auto dir = scratch_dir("resume-inputs");
  write_experiment_with_input_files(dir);
  const auto db = dir / "out/results.sqlite";
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "out", "--quiet"}, dir).exit_code, 0);
  const std::string uninterrupted = read_file(dir / "out/summary.json");
  // As a kill would: the debates of seed 2 are not stored.
  ASSERT_TRUE(query(db, "DELETE FROM debates WHERE seed = 2"));
  ASSERT_EQ(stored_debates(db), 8);  // 4 tasks × 2 protocols
  const std::string before = stored_rows(db);

  // One byte more in any input file (a trailing newline, harmless to its reader) is refused.
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"params.json", "the simulator parameters of model 'sim' (params.json) changed since the run in out began"},
      {"tasks.jsonl", "the dataset (tasks.jsonl) changed since the run in out began"},
      {"trigger.json", "the trigger_model file of protocol 'imad' (trigger.json) changed since the run in out began"}};
  for (const auto& [file, message] : edits) {
    const std::string original = read_file(dir / file);
    write_file(dir / file, original + "\n");
    const auto refused = run_parley({"run", "exp.yaml", "--out", "out", "--resume"}, dir);
    EXPECT_EQ(refused.exit_code, 2) << file << ": " << refused.err;
    EXPECT_EQ(refused.err, "parley: " + message + "; resuming would mix results of both versions: restore it, or "
                           "choose another --out\n");
    EXPECT_TRUE(stored_rows(db) == before) << file << ": the store changed";
    write_file(dir / file, original);
  }

  // Restored, the resume runs the missing debates and ends where the uninterrupted run did.
  const auto resumed = run_parley({"run", "exp.yaml", "--out", "out", "--resume", "--quiet"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(stored_debates(db), 16);
  EXPECT_EQ(read_file(dir / "out/summary.json"), uninterrupted);
}

TEST(Resume, AStoreWhoseExperimentRecordIsGoneIsNeverContinued) {
  const auto dir = scratch_dir("resume-meta");
  write_file(dir / "exp.yaml", experiment(0, 4));
  ASSERT_EQ(run_parley({"run", "exp.yaml", "--out", "reference", "--quiet", "--set", "seeds=[1]"}, dir).exit_code, 0);
  const auto reference = dir / "reference/results.sqlite";
  const std::string rows = stored_rows(reference);
  ASSERT_EQ(stored_debates(reference), 60);  // 20 tasks × 3 protocols

  // What each damage makes a run with --resume and a run without it say; both are refused.
  struct Damage {
    std::string sql;
    std::string with_resume;
    std::string without_resume;
  };
  const std::string unrecorded =
      "out holds 60 debates but no record of the experiment that ran them (its metadata was removed or damaged); "
      "it cannot be continued: choose another --out";
  const std::string unhashed =
      "out does not record the content of the dataset (it was written by an older parley, or its metadata was "
      "damaged), so it cannot be resumed safely: choose another --out";
  const std::string occupied = "out already holds a run; pass --resume to continue it, or choose another --out";
  const std::string unversioned = "store has debates but no schema version (not written by parley, or damaged)";
  const std::vector<Damage> damages = {
      {"DELETE FROM meta WHERE key = 'fingerprint'", unrecorded, unrecorded},
      {"UPDATE meta SET value = '' WHERE key = 'fingerprint'",
       "out holds a run of a different experiment (models, agents, dataset, protocols, seeds or budget changed); it "
       "cannot be resumed with this one: choose another --out",
       occupied},
      {"DELETE FROM meta WHERE key = 'input_files'", unhashed, occupied},
      {"UPDATE meta SET value = '{}' WHERE key = 'input_files'", unhashed, occupied},
      {"UPDATE meta SET value = 'not json' WHERE key = 'input_files'", unhashed, occupied},
      {"DELETE FROM meta", unversioned, unversioned},
  };
  for (const Damage& damage : damages) {
    std::filesystem::remove_all(dir / "out");
    std::filesystem::copy(dir / "reference", dir / "out");
    ASSERT_TRUE(query(dir / "out/results.sqlite", damage.sql)) << damage.sql;
    for (const bool resume : {true, false}) {
      std::vector<std::string> args = {"run", "exp.yaml", "--out", "out", "--set", "seeds=[1]"};
      if (resume) args.push_back("--resume");
      const auto refused = run_parley(args, dir);
      EXPECT_EQ(refused.exit_code, 2) << damage.sql << (resume ? " --resume: " : ": ") << refused.err;
      EXPECT_NE(refused.err.find(resume ? damage.with_resume : damage.without_resume), std::string::npos)
          << damage.sql << (resume ? " --resume: " : ": ") << refused.err;
      EXPECT_TRUE(stored_rows(dir / "out/results.sqlite") == rows) << damage.sql << ": the store changed";
    }
  }
}

}  // namespace
}  // namespace parley::testing

namespace parley::testing {
namespace {

// MACI's dial scheduler learns across debates (they run one at a time): a killed run's resume
// replays the stored debates into the bandit first, so it ends exactly as an uninterrupted run.
TEST(Resume, MacisSchedulerContinuesFromTheStoredDebates) {
  const auto dir = scratch_dir("resume-maci");
  const auto data = source_dir() / "examples/data";
  write_file(dir / "exp.yaml",
             "models:\n  - {name: sim, backend: simulator, delay_ms: 1}\n  - {name: emb, backend: simulator}\n"
             "agents:\n  - {name: a1, model: sim}\n  - {name: a2, model: sim}\n  - {name: j1, model: sim, temperature: 0.3}\n"
             "dataset: {path: " + (data / "clinical-tasks.jsonl").string() + ", labels: " +
                 (data / "clinical-labels.yaml").string() + ", evidence: " + (data / "clinical-evidence.jsonl").string() +
                 ", limit: 8}\n"
             "protocols:\n  - {name: maci, agents: [a1, a2], judges: [j1], embeddings: emb, scheduler: ucb, "
             "max_rounds: 3}\n"
             "seeds: [1, 2]\nconcurrency: 4\n");
  const auto reference = run_parley({"run", "exp.yaml", "--out", "reference"}, dir);
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_TRUE(run_and_kill(dir, 5, false)) << "the run was too fast to be interrupted";
  const auto resumed = run_parley({"run", "exp.yaml", "--out", "killed", "--resume"}, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(stored_debates(dir / "killed/results.sqlite"), 16);
  EXPECT_EQ(read_file(dir / "killed/summary.json"), read_file(dir / "reference/summary.json"));
  // The bandit's steps in the last debate count every earlier debate's rounds.
  const auto steps = query(dir / "killed/results.sqlite",
                           "SELECT COUNT(*) FROM debates WHERE transcript LIKE '%maci_schedule%'");
  ASSERT_TRUE(steps);
  EXPECT_EQ(std::stoll(*steps), 16);
}

}  // namespace
}  // namespace parley::testing
