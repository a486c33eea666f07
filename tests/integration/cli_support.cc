#include "integration/cli_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace parley::testing {

// Both paths are compiled in by tests/integration/CMakeLists.txt.
std::filesystem::path parley_binary() { return PARLEY_BINARY; }

std::filesystem::path source_dir() { return PARLEY_SOURCE_DIR; }

std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("parley-it-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

pid_t start_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd, const std::string& name) {
  const auto out_path = cwd / (name + ".stdout");
  const auto err_path = cwd / (name + ".stderr");
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(127);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    const std::string binary = parley_binary().string();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

namespace {
int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }
}  // namespace

std::optional<int> wait_parley(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return exit_code_of(status);
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

CommandResult run_parley(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  const pid_t pid = start_parley(args, cwd, "");
  int status = 0;
  ::waitpid(pid, &status, 0);
  CommandResult result;
  result.exit_code = exit_code_of(status);
  result.out = read_file(cwd / ".stdout");
  result.err = read_file(cwd / ".stderr");
  return result;
}

}  // namespace parley::testing
