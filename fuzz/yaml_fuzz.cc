// Fuzz target: the experiment loader (YAML → ExperimentConfig, every key checked) on any file
// text. The text is written to a file, as load_experiment reads one. Invariants: no exception
// escapes; an error is one non-empty line; a loaded experiment has at least one protocol and
// seed, and every agent names a model of the experiment.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "fuzz_check.h"
#include "parley/config.h"

namespace {

std::filesystem::path scratch_file() {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("parley-yaml-fuzz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / "experiment.yaml";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path path = scratch_file();
  {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    FUZZ_CHECK(file != nullptr);
    FUZZ_CHECK(std::fwrite(data, 1, size, file) == size);
    std::fclose(file);
  }
  const auto config = parley::load_experiment(path);
  if (!config) {
    const std::string& message = config.error().message;
    FUZZ_CHECK(!message.empty());
    return 0;
  }
  FUZZ_CHECK(!config->protocols.empty());
  FUZZ_CHECK(!config->seeds.empty());
  for (const auto& agent : config->agents) FUZZ_CHECK(config->model(agent.model) != nullptr);
  return 0;
}
