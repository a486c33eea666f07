#pragma once
// Admission: the gateway's debate slots (`max_debates`) and the queue for them (`max_waiting`).
// The counts are the semaphore's own, exact at every moment: a slot released while requests wait
// passes to the first of them at once, so it is held (not free, and its new holder no longer
// waits) even before that request's coroutine resumes. A request arriving in that moment is
// therefore queued or refused exactly as it would be a moment later. Used on the loop's thread.

#include <cstddef>

#include "parley/async.h"
#include "parley/cancel.h"

namespace parley::gateway {

class Admission {
 public:
  Admission(int max_debates, int max_waiting)
      : max_debates_(static_cast<std::size_t>(max_debates)),
        max_waiting_(static_cast<std::size_t>(max_waiting)),
        slots_(max_debates_) {}

  // Every slot held and the queue full: a new request is refused (429).
  bool full() const { return slots_.available() == 0 && slots_.waiting() >= max_waiting_; }
  std::size_t in_flight() const { return max_debates_ - slots_.available(); }
  std::size_t waiting() const { return slots_.waiting(); }
  // No slot free now: an acquire() would queue.
  bool must_wait() const { return slots_.available() == 0; }

  // Awaitable: true once the caller holds a slot (a Slot must then release it), false when
  // `*cancel` fired first (the client left while queued; nothing is held).
  AsyncSemaphore::Acquire acquire(EventLoop& loop, CancelSignal* cancel) { return slots_.acquire(loop, cancel); }

  // A held slot, released however the request's coroutine ends.
  class Slot {
   public:
    Slot(Admission& admission, EventLoop& loop) : admission_(admission), loop_(loop) {}
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { admission_.slots_.release(loop_); }

   private:
    Admission& admission_;
    EventLoop& loop_;
  };

 private:
  std::size_t max_debates_;
  std::size_t max_waiting_;
  AsyncSemaphore slots_;
};

}  // namespace parley::gateway
