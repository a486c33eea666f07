// Kill-and-resume: a run killed with SIGKILL at arbitrary moments and resumed with --resume
// ends with exactly the summary and transcripts of an uninterrupted run (simulator: identical).
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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

std::int64_t stored_debates(const std::filesystem::path& db) {
  sqlite3* handle = nullptr;
  std::int64_t count = -1;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(handle, 100);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(handle, "SELECT COUNT(*) FROM debates", -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      count = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(handle);
  return count;
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

}  // namespace
}  // namespace parley::testing
