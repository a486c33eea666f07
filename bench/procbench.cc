// procbench: runs a command N times and reports, per run and as medians, the wall time, the
// user and system CPU time and the peak RSS of the child (from wait4's rusage), plus the LLM
// calls the run made (read from its summary.json) and the derived per-call figures.
//
//   procbench --runs 5 --label NAME [--summary FILE] [--clean DIR] [--cpu CORE] -- COMMAND ARGS...
//
// --clean DIR is removed before each run (the run's output directory).
//
// Output: one JSON object per line (each run, then {"median": ...}), so scripts can collect it.
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

struct Measurement {
  double wall_s = 0, user_s = 0, sys_s = 0, max_rss_mib = 0, calls = 0;
};

double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }

// Total LLM calls of the run: sum over protocols of n × calls_mean.
double calls_in_summary(const std::string& path) {
  std::ifstream in(path);
  if (!in) return 0;
  const auto summary = nlohmann::json::parse(in, nullptr, false);
  if (summary.is_discarded()) return 0;
  double calls = 0;
  for (const auto& p : summary.value("protocols", nlohmann::json::array()))
    calls += p.value("n", 0.0) * p.value("calls_mean", 0.0);
  return calls;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

nlohmann::json to_json(const Measurement& m) {
  nlohmann::json j{{"wall_s", m.wall_s}, {"user_s", m.user_s}, {"sys_s", m.sys_s}, {"max_rss_mib", m.max_rss_mib},
                   {"calls", m.calls}};
  if (m.calls > 0) {
    j["cpu_us_per_call"] = (m.user_s + m.sys_s) * 1e6 / m.calls;
    j["calls_per_s"] = m.calls / m.wall_s;
    j["calls_per_cpu_s"] = m.calls / (m.user_s + m.sys_s);
  }
  return j;
}

int usage() {
  std::cerr << "usage: procbench --runs N --label NAME [--summary FILE] [--clean DIR] [--cpu CORE] -- COMMAND ARGS...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5, cpu = -1;
  std::string label = "run", summary, clean;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (i + 1 >= argc) return usage();
    if (arg == "--runs") runs = std::atoi(argv[++i]);
    else if (arg == "--label") label = argv[++i];
    else if (arg == "--summary") summary = argv[++i];
    else if (arg == "--clean") clean = argv[++i];
    else if (arg == "--cpu") cpu = std::atoi(argv[++i]);
    else return usage();
  }
  if (i + 1 >= argc || runs < 1) return usage();
  char** command = argv + i + 1;

  std::vector<Measurement> all;
  for (int run = 0; run < runs; ++run) {
    if (!clean.empty()) std::filesystem::remove_all(clean);
    if (!summary.empty()) std::remove(summary.c_str());
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = ::fork();
    if (child < 0) return 1;
    if (child == 0) {
      if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
      }
      execvp(command[0], command);
      std::perror("procbench: exec");
      _exit(127);
    }
    int status = 0;
    rusage usage_of_child{};
    if (::wait4(child, &status, 0, &usage_of_child) != child) return 1;
    Measurement m;
    m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.user_s = seconds(usage_of_child.ru_utime);
    m.sys_s = seconds(usage_of_child.ru_stime);
    m.max_rss_mib = static_cast<double>(usage_of_child.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
    if (!summary.empty()) m.calls = calls_in_summary(summary);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::cerr << "procbench: " << label << ": run " << run + 1 << " failed (status " << status << ")\n";
      return 1;
    }
    auto line = to_json(m);
    line["label"] = label;
    line["run"] = run + 1;
    std::cout << line.dump() << std::endl;
    all.push_back(m);
  }
  Measurement mid;
  auto pick = [&](double Measurement::*field) {
    std::vector<double> v;
    for (const auto& m : all) v.push_back(m.*field);
    return median(v);
  };
  mid.wall_s = pick(&Measurement::wall_s);
  mid.user_s = pick(&Measurement::user_s);
  mid.sys_s = pick(&Measurement::sys_s);
  mid.max_rss_mib = pick(&Measurement::max_rss_mib);
  mid.calls = pick(&Measurement::calls);
  auto line = to_json(mid);
  // Per-call medians are medians of the per-run ratios, not ratios of medians.
  if (mid.calls > 0) {
    std::vector<double> cpu_per_call, per_s, per_cpu_s;
    for (const auto& m : all) {
      cpu_per_call.push_back((m.user_s + m.sys_s) * 1e6 / m.calls);
      per_s.push_back(m.calls / m.wall_s);
      per_cpu_s.push_back(m.calls / (m.user_s + m.sys_s));
    }
    line["cpu_us_per_call"] = median(cpu_per_call);
    line["calls_per_s"] = median(per_s);
    line["calls_per_cpu_s"] = median(per_cpu_s);
  }
  line["label"] = label;
  line["median_of"] = runs;
  std::cout << line.dump() << std::endl;
  return 0;
}
