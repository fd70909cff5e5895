// Copyright neardup authors. Licensed under Apache-2.0.
//
// Wall-clock seconds of a stage or of its steps, for the figures of
// summary.json (a monotonic clock: never negative, unaffected by clock
// changes).
#ifndef NEARDUP_BASE_STOPWATCH_H_
#define NEARDUP_BASE_STOPWATCH_H_

#include <chrono>

namespace neardup {

// Seconds since `start` on the steady clock.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class Stopwatch {
 public:
  Stopwatch() : lap_start_(Clock::now()) {}
  // Seconds since construction or the last Lap, which starts the next lap.
  double Lap() {
    const Clock::time_point now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - lap_start_).count();
    lap_start_ = now;
    return seconds;
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point lap_start_;
};

}  // namespace neardup

#endif  // NEARDUP_BASE_STOPWATCH_H_
