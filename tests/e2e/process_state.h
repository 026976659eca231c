// What a test can say about a program that stopped doing its work: whether a web server still answers, and what each
// of its threads is doing (state, where it sleeps in the kernel, its pending and blocked signals), so that a failure
// on a machine nobody can log into still tells a hang in a signal from one in a lock.
#pragma once

#include <sys/types.h>

#include <string>

namespace umbra::testing {

// Whether `GET path` on `base_url` (http://127.0.0.1:PORT, as the test servers write it) gets an HTTP 200 within
// `timeout_ms`.
bool http_get_succeeds(const std::string& base_url, const std::string& path, int timeout_ms);

// One line per thread of `pid`: tid, name, state, kernel wait channel, SigPnd, ShdPnd and SigBlk.
std::string describe_threads(pid_t pid);

// The threads (describe_threads) of each child of this process whose command line holds `needle`, or a line saying
// none runs.
std::string describe_children(const std::string& needle);

}  // namespace umbra::testing
