#include "cli/output.h"

#include <cerrno>
#include <cstring>

namespace parley::cli {

int output_failed(const OutputFailed& failure) {
  if (failure.error == EPIPE) return kExitBrokenPipe;
  std::fprintf(stderr, "parley: cannot write the output: %s\n",
               failure.error != 0 ? std::strerror(failure.error) : "write error");
  return 1;
}

int finish_output(int code) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
  const int failed = output_failed(OutputFailed{errno});
  return code == 0 ? failed : code;
}

}  // namespace parley::cli
