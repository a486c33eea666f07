#pragma once
// Helpers for black-box tests that run the real `parley` binary: run a command line, capture
// stdout, stderr and the exit code, or start one and wait for it with a time limit; make a
// scratch directory.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace parley::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::filesystem::path parley_binary();      // the parley executable of this build
std::filesystem::path source_dir();         // the source tree
std::filesystem::path scratch_dir(const std::string& name);  // fresh, empty

// Runs `parley args...` with the working directory `cwd`, stdin from /dev/null.
CommandResult run_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd);

// Starts `parley args...` in `cwd` without waiting; its stdout and stderr go to
// cwd/<name>.stdout and cwd/<name>.stderr. Returns its process id.
pid_t start_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd, const std::string& name);
// Waits up to `timeout` for the process: its exit code (128 + signal when killed by one), or
// nothing when it is still running then (it is then killed with SIGKILL and reaped).
std::optional<int> wait_parley(pid_t pid, std::chrono::milliseconds timeout);

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& text);

}  // namespace parley::testing
