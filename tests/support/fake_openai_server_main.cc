// fake_openai_server: FakeOpenAiServer as a process, for benchmarks that must not share a
// process (or its file descriptor limit) with the client. Prints the port on stdout, serves
// answer_reply with the given faults until SIGTERM/SIGINT, then prints its counters on stderr.

#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/fake_openai_server.h"

namespace {

using parley::testing::FaultPlan;

constexpr const char* kUsage =
    "usage: fake_openai_server [--port N] [--delay-ms D] [--every-500 N] [--every-429 N]\n"
    "                          [--retry-after-s S] [--every-slow N] [--slow-ms D] [--every-reset N]\n"
    "                          [--every-invalid-json N] [--every-empty-choices N] [--every-no-usage N]\n"
    "                          [--reject-n | --ignore-n]\n"
    "Serves a deterministic OpenAI-compatible chat endpoint on 127.0.0.1 (port 0: any free one).\n"
    "Request i gets fault F when i % N_F == N_F - 1. A request asking for n > 1 choices gets n, or\n"
    "an HTTP 400 naming n (--reject-n), or one (--ignore-n). Prints the port, then runs until\n"
    "SIGTERM/SIGINT.\n";

bool parse_int(std::string_view text, int& value) {
  if (text.empty() || text.size() > 9) return false;
  int parsed = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    parsed = parsed * 10 + (c - '0');
  }
  value = parsed;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  FaultPlan plan;
  const std::vector<std::pair<std::string_view, int*>> flags = {
      {"--port", &port},
      {"--delay-ms", &plan.base_delay_ms},
      {"--base-delay-ms", &plan.base_delay_ms},
      {"--every-500", &plan.every_500},
      {"--every-429", &plan.every_429},
      {"--retry-after-s", &plan.retry_after_s},
      {"--every-slow", &plan.every_slow},
      {"--slow-ms", &plan.slow_ms},
      {"--every-reset", &plan.every_reset},
      {"--every-invalid-json", &plan.every_invalid_json},
      {"--every-empty-choices", &plan.every_empty_choices},
      {"--every-no-usage", &plan.every_no_usage},
  };

  const std::vector<std::pair<std::string_view, bool*>> switches = {
      {"--reject-n", &plan.reject_n},
      {"--ignore-n", &plan.ignore_n},
  };

  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    bool* switched = nullptr;
    for (const auto& [flag, field] : switches) {
      if (flag == arg) switched = field;
    }
    if (switched != nullptr) {
      *switched = true;
      continue;
    }
    // Both "--flag N" and "--flag=N".
    std::string_view name = arg.substr(0, arg.find('='));
    std::string_view value;
    bool inline_value = name.size() < arg.size();
    int* target = nullptr;
    for (const auto& [flag, field] : flags) {
      if (flag == name) target = field;
    }
    if (target == nullptr) {
      std::cerr << "fake_openai_server: unknown flag '" << arg << "'\n" << kUsage;
      return 2;
    }
    if (inline_value) {
      value = arg.substr(name.size() + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::cerr << "fake_openai_server: " << name << " needs a value\n";
      return 2;
    }
    if (!parse_int(value, *target) || (target == &port && port > 65535)) {
      std::cerr << "fake_openai_server: " << name << " wants a non-negative integer, got '" << value << "'\n";
      return 2;
    }
  }

  if (plan.reject_n && plan.ignore_n) {
    std::cerr << "fake_openai_server: --reject-n and --ignore-n exclude each other\n";
    return 2;
  }

  // Block the stop signals before the server thread starts so it inherits the mask and
  // sigwait below is the only place they are received.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    parley::testing::FakeOpenAiServer server(parley::testing::faulty_handler(plan), port);
    std::printf("%d\n", server.port());
    std::fflush(stdout);
    int received = 0;
    sigwait(&stop_signals, &received);
    std::fprintf(stderr,
                 "fake_openai_server: requests=%llu connections_accepted=%llu peak_open_connections=%llu "
                 "peak_pending=%llu\n",
                 static_cast<unsigned long long>(server.requests()),
                 static_cast<unsigned long long>(server.connections_accepted()),
                 static_cast<unsigned long long>(server.peak_open_connections()),
                 static_cast<unsigned long long>(server.peak_pending()));
  } catch (const std::exception& error) {
    std::cerr << "fake_openai_server: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
