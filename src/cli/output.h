#pragma once
// A command's results go to stdout through print_out, so that a failed write is never exit 0
// with truncated output: a full disk or an I/O error is exit 1 with a message; a reader that
// went away (`| head`) ends the command quietly — by SIGPIPE, or with EPIPE when SIGPIPE is
// ignored, exiting with the status a shell reports for SIGPIPE.
#include <csignal>
#include <cstdio>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace parley::cli {

constexpr int kExitBrokenPipe = 128 + SIGPIPE;

// Thrown by print_out when stdout cannot be written; `error` is the errno.
struct OutputFailed {
  int error;
};

template <class... T>
void print_out(fmt::format_string<T...> format, T&&... args) {
  try {
    fmt::print(stdout, format, std::forward<T>(args)...);
  } catch (const std::system_error& e) {
    throw OutputFailed{e.code().value()};
  }
}

// Flushes stdout and returns the exit code: `code` when everything was written, else the
// output failure's code (after saying why, unless the reader went away).
int finish_output(int code);
// The exit code of an OutputFailed (after saying why, unless the reader went away).
int output_failed(const OutputFailed& failure);

}  // namespace parley::cli
