// The driver that runs a fuzz target without libFuzzer (any compiler, the normal build): each
// file of the corpus directories given on the command line, then `--mutations N` inputs made
// from them by a fixed-seed mutator (byte flips, insertions, deletions, splices, truncations).
// It is the fuzz targets' smoke test in the suite; a violated invariant aborts, and the test
// fails naming the input. Long runs use libFuzzer itself (fuzz/run.sh).
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

const std::string* g_current = nullptr;  // the input being run, for the crash handler

// On a crash, the input that caused it goes to ./fuzz-crash-input (as libFuzzer's crash-* files).
void save_crash_input(int signal_number) {
  if (g_current != nullptr) {
    const int fd = ::open("fuzz-crash-input", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      [[maybe_unused]] const ssize_t n = ::write(fd, g_current->data(), g_current->size());
      ::close(fd);
    }
    const char note[] = "replay: the failing input is in ./fuzz-crash-input\n";
    [[maybe_unused]] const ssize_t n = ::write(2, note, sizeof note - 1);
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void run_one(const std::string& input) {
  g_current = &input;
  // An exact-size heap copy, so that a sanitizer sees a read past the end. An empty input still
  // comes with a valid pointer, as libFuzzer passes it (an empty vector's data() is null, which
  // fwrite or memcpy may not be given even for zero bytes).
  std::vector<std::uint8_t> bytes(input.begin(), input.end());
  if (bytes.empty()) bytes.reserve(1);
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  g_current = nullptr;
}

std::string mutate(const std::vector<std::string>& corpus, std::mt19937_64& random) {
  std::string s = corpus[random() % corpus.size()];
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : random() % (s.size() + 1);
    switch (random() % 5) {
      case 0:
        if (!s.empty() && at < s.size()) s[at] = static_cast<char>(s[at] ^ (1u << (random() % 8)));
        break;
      case 1: s.insert(at, 1, static_cast<char>(random() % 256)); break;
      case 2:
        if (at < s.size()) s.erase(at, 1 + random() % 8);
        break;
      case 3: {
        const std::string& other = corpus[random() % corpus.size()];
        const std::size_t from = other.empty() ? 0 : random() % other.size();
        s.insert(at, other.substr(from, 1 + random() % 32));
        break;
      }
      default: s.resize(at); break;
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  for (int signal_number : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE}) ::signal(signal_number, save_crash_input);
  std::vector<std::string> corpus;
  long mutations = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mutations" && i + 1 < argc) {
      mutations = std::stol(argv[++i]);
      continue;
    }
    for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      std::fprintf(stderr, "corpus: %s\n", entry.path().c_str());
      run_one(corpus.back());
    }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "no corpus files given\n");
    return 2;
  }
  std::mt19937_64 random(20261124);
  for (long m = 0; m < mutations; ++m) {
    const std::string input = mutate(corpus, random);
    run_one(input);
  }
  std::fprintf(stderr, "%zu corpus inputs and %ld mutations: every invariant held\n", corpus.size(), mutations);
  return 0;
}
