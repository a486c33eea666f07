#pragma once
// What parley's two HTTP transports (libcurl's and the native one) share: reading a Retry-After
// value, matching a header line by name, one-line failure text, the descriptor limit that
// thousands of connections need, how long poll() may wait, and what a cancelled call says.
// Internal to src/llm.

#include <sys/resource.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "parley/cancel.h"

namespace parley::http {

// Seconds from a Retry-After value ("2", " 1.5 "); nullopt for the HTTP-date form or junk.
std::optional<double> retry_after_seconds(std::string_view value);

// Whether `line` is a header "Name: ..." with the name `lowercase_name` (case-insensitive).
bool header_named(std::string_view line, std::string_view lowercase_name);

// `text` with control characters as spaces and no trailing space: failure messages are one line.
std::string one_line(std::string_view text);

// How long poll() may wait for I/O: max_wait (0 when negative), and no longer than until
// `deadline` (when one is set), rounded up to whole milliseconds: waking before a deadline
// would only spin.
std::chrono::milliseconds wait_before(std::chrono::milliseconds max_wait,
                                      std::optional<std::chrono::steady_clock::time_point> deadline);

// What a transfer or call that `signal` ended says: the signal's reason ("cancelled" if none).
std::string cancelled_message(const CancelSignal& signal);

// Raises the soft limit on open descriptors to the hard limit, once per process; returns it.
rlim_t raise_open_file_limit_once();

}  // namespace parley::http
