#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "parley/async.h"
#include "parley/cancel.h"

namespace parley {
namespace {

Async<int> value_after(EventLoop& loop, int value, int delay_ms, std::vector<int>& order) {
  co_await loop.sleep_for(std::chrono::milliseconds(delay_ms));
  order.push_back(value);
  co_return value;
}

TEST(EventLoop, RunsSpawnedCoroutinesToCompletion) {
  EventLoop loop;
  int result = 0;
  std::vector<int> order;
  auto coroutine1 = [&]() -> Async<void> { result = co_await value_after(loop, 7, 1, order); };
  loop.spawn(coroutine1());
  loop.run();
  EXPECT_EQ(result, 7);
  EXPECT_EQ(loop.spawned_alive(), 0u);
}

TEST(EventLoop, ASleepRunsItsFullTimeWhenItsSignalDoesNotFire) {
  EventLoop loop;
  CancelSignal signal;
  std::optional<bool> full;
  const auto start = EventLoop::Clock::now();
  auto sleeper = [&]() -> Async<void> { full = co_await loop.sleep_for(std::chrono::milliseconds(20), &signal); };
  loop.spawn(sleeper());
  loop.run();
  ASSERT_TRUE(full.has_value());
  EXPECT_TRUE(*full);
  EXPECT_GE(EventLoop::Clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_EQ(signal.subscribers(), 0u);  // unsubscribed once resumed
}

TEST(EventLoop, AFiredSignalEndsASleepOnceAndItsTimerDoesNotHoldTheLoop) {
  EventLoop loop;
  CancelSignal signal;
  int resumed = 0;
  std::optional<bool> full;
  auto sleeper = [&]() -> Async<void> {
    full = co_await loop.sleep_for(std::chrono::hours(1), &signal);
    ++resumed;
  };
  auto canceller = [&]() -> Async<void> {
    co_await loop.sleep_for(std::chrono::milliseconds(5));
    signal.fire("deadline");
  };
  loop.spawn(sleeper());
  loop.spawn(canceller());
  const auto start = EventLoop::Clock::now();
  loop.run();  // returns without waiting for the hour-long timer
  EXPECT_LT(EventLoop::Clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(resumed, 1);
  ASSERT_TRUE(full.has_value());
  EXPECT_FALSE(*full);
}

TEST(EventLoop, ASleepOnAnAlreadyFiredSignalYieldsOneTurn) {
  EventLoop loop;
  CancelSignal signal;
  signal.fire();
  std::vector<std::string> order;
  auto sleeper = [&]() -> Async<void> {
    const bool full = co_await loop.sleep_for(std::chrono::hours(1), &signal);
    order.push_back(full ? "full" : "cut");
  };
  auto other = [&]() -> Async<void> {
    order.push_back("other");
    co_return;
  };
  loop.spawn(sleeper());
  loop.spawn(other());
  loop.run();
  EXPECT_EQ(order, (std::vector<std::string>{"other", "cut"}));
}

TEST(EventLoop, CancellingTheLoopEndsASignalledSleepOnce) {
  EventLoop loop;
  CancelSignal signal;
  int resumed = 0;
  auto sleeper = [&]() -> Async<void> {
    co_await loop.sleep_for(std::chrono::hours(1), &signal);
    ++resumed;
    signal.fire();  // after the loop woke it: must not resume it again
  };
  auto stopper = [&]() -> Async<void> {
    co_await loop.yield();
    loop.cancel();
  };
  loop.spawn(sleeper());
  loop.spawn(stopper());
  loop.run();
  EXPECT_EQ(resumed, 1);
}

TEST(EventLoop, TimersFireInDeadlineOrder) {
  EventLoop loop;
  std::vector<int> order;
  auto coroutine2 = [&]() -> Async<void> { co_await value_after(loop, 3, 30, order); };
  loop.spawn(coroutine2());
  auto coroutine3 = [&]() -> Async<void> { co_await value_after(loop, 1, 0, order); };
  loop.spawn(coroutine3());
  auto coroutine4 = [&]() -> Async<void> { co_await value_after(loop, 2, 10, order); };
  loop.spawn(coroutine4());
  loop.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(EventLoop, WhenAllKeepsTaskOrderAndRunsConcurrently) {
  EventLoop loop;
  std::vector<int> finish_order;
  std::vector<int> results;
  auto coroutine5 = [&]() -> Async<void> {
    std::vector<Async<int>> tasks;
    tasks.push_back(value_after(loop, 10, 20, finish_order));
    tasks.push_back(value_after(loop, 20, 0, finish_order));
    tasks.push_back(value_after(loop, 30, 10, finish_order));
    results = co_await when_all(std::move(tasks));
  };
  loop.spawn(coroutine5());
  loop.run();
  EXPECT_EQ(results, (std::vector<int>{10, 20, 30}));
  EXPECT_EQ(finish_order, (std::vector<int>{20, 30, 10}));
}

Async<int> immediate(int v) { co_return v; }

TEST(EventLoop, WhenAllOfSynchronousTasksDoesNotSuspendForever) {
  EventLoop loop;
  std::vector<int> results;
  auto coroutine6 = [&]() -> Async<void> {
    std::vector<Async<int>> tasks;
    for (int i = 0; i < 5; ++i) tasks.push_back(immediate(i));
    results = co_await when_all(std::move(tasks));
    auto none = co_await when_all(std::vector<Async<int>>{});
    EXPECT_TRUE(none.empty());
  };
  loop.spawn(coroutine6());
  loop.run();
  EXPECT_EQ(results, (std::vector<int>{0, 1, 2, 3, 4}));
}

Async<int> thrower() {
  co_await std::suspend_never{};
  throw std::runtime_error("boom");
}

TEST(EventLoop, WhenAllRethrowsAfterAllFinish) {
  EventLoop loop;
  std::vector<int> order;
  std::string caught;
  auto coroutine7 = [&]() -> Async<void> {
    std::vector<Async<int>> tasks;
    tasks.push_back(thrower());
    tasks.push_back(value_after(loop, 5, 5, order));
    try {
      co_await when_all(std::move(tasks));
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
  };
  loop.spawn(coroutine7());
  loop.run();
  EXPECT_EQ(caught, "boom");
  EXPECT_EQ(order, (std::vector<int>{5}));
}

TEST(EventLoop, EscapedExceptionIsRethrownFromRun) {
  EventLoop loop;
  loop.spawn([]() -> Async<void> {
    co_await thrower();
  }());
  EXPECT_THROW(loop.run(), std::runtime_error);
}

TEST(AsyncSemaphore, LimitsConcurrency) {
  EventLoop loop;
  AsyncSemaphore sem(2);
  int inside = 0;
  int peak = 0;
  auto coroutine8 = [&]() -> Async<void> {
    co_await sem.acquire();
    ++inside;
    peak = std::max(peak, inside);
    co_await loop.sleep_for(std::chrono::milliseconds(2));
    --inside;
    sem.release(loop);
  };
  for (int i = 0; i < 6; ++i) loop.spawn(coroutine8());
  loop.run();
  EXPECT_EQ(peak, 2);
  EXPECT_EQ(inside, 0);
}

// Holders of one permit: each takes it (or leaves the queue when its signal fires), then keeps
// it until its own `done` fires. `order` says who got it, in order ("-name": left the queue).
struct SemaphoreScene {
  EventLoop loop;
  AsyncSemaphore semaphore{1};
  std::vector<std::string> order;

  // `name` is a literal: a std::string prvalue argument would be copied bitwise by g++ 12.
  Async<void> holder(const char* name, CancelSignal* cancel, CancelSignal* done) {
    const bool granted = co_await semaphore.acquire(loop, cancel);
    order.push_back(granted ? std::string(name) : "-" + std::string(name));
    if (!granted) co_return;
    co_await loop.sleep_for(std::chrono::hours(1), done);
    semaphore.release(loop);
  }
};

TEST(AsyncSemaphore, AWaiterWhoseSignalFiresLeavesTheQueueAndTheOthersKeepTheirOrder) {
  SemaphoreScene scene;
  CancelSignal b_gone, a_done, c_done;
  auto driver = [&]() -> Async<void> {
    co_await scene.loop.yield();
    EXPECT_EQ(scene.semaphore.waiting(), 2u);
    b_gone.fire("client gone");
    EXPECT_EQ(scene.semaphore.waiting(), 1u);  // out of the queue at once
    co_await scene.loop.yield();
    EXPECT_EQ(scene.order, (std::vector<std::string>{"a", "-b"}));
    a_done.fire();
    co_await scene.loop.yield();
    co_await scene.loop.yield();
    EXPECT_EQ(scene.order, (std::vector<std::string>{"a", "-b", "c"}));
    c_done.fire();
  };
  scene.loop.spawn(scene.holder("a", nullptr, &a_done));
  scene.loop.spawn(scene.holder("b", &b_gone, nullptr));
  scene.loop.spawn(scene.holder("c", nullptr, &c_done));
  scene.loop.spawn(driver());
  scene.loop.run();
  EXPECT_EQ(scene.order, (std::vector<std::string>{"a", "-b", "c"}));
  EXPECT_EQ(scene.semaphore.available(), 1u);
  EXPECT_EQ(scene.semaphore.waiting(), 0u);
  EXPECT_EQ(b_gone.subscribers(), 0u);
}

TEST(AsyncSemaphore, AnAlreadyFiredSignalTakesNoPermitEvenAFreeOne) {
  EventLoop loop;
  AsyncSemaphore semaphore(1);
  CancelSignal fired;
  fired.fire();
  std::optional<bool> granted;
  auto caller = [&]() -> Async<void> { granted = co_await semaphore.acquire(loop, &fired); };
  loop.spawn(caller());
  loop.run();
  EXPECT_EQ(granted, false);
  EXPECT_EQ(semaphore.available(), 1u);
}

// The permit was handed over (the waiter is posted) when the signal fires: the waiter does not
// keep it, and it passes on to the next in line rather than being lost.
TEST(AsyncSemaphore, APermitHandedToAWaiterWhoseSignalFiresBeforeItResumesPassesOn) {
  SemaphoreScene scene;
  CancelSignal b_gone, a_done, c_done;
  auto driver = [&]() -> Async<void> {
    co_await scene.loop.yield();
    a_done.fire();                // "a" resumes next and hands its permit to "b"
    co_await scene.loop.yield();  // "a" ran: "b" is posted, holding the permit
    EXPECT_EQ(scene.semaphore.waiting(), 1u);
    b_gone.fire();
    co_await scene.loop.yield();
    co_await scene.loop.yield();
    EXPECT_EQ(scene.order, (std::vector<std::string>{"a", "-b", "c"}));
    EXPECT_EQ(scene.semaphore.available(), 0u);
    c_done.fire();
  };
  scene.loop.spawn(scene.holder("a", nullptr, &a_done));
  scene.loop.spawn(scene.holder("b", &b_gone, nullptr));
  scene.loop.spawn(scene.holder("c", nullptr, &c_done));
  scene.loop.spawn(driver());
  scene.loop.run();
  EXPECT_EQ(scene.order, (std::vector<std::string>{"a", "-b", "c"}));
  EXPECT_EQ(scene.semaphore.available(), 1u);
}

TEST(EventLoop, ManyCoroutinesDoNotOverflowTheStack) {
  EventLoop loop;
  int done = 0;
  // The closure must outlive its coroutines, so it is created once, outside the loop.
  auto coroutine9 = [&]() -> Async<void> {
    co_await loop.yield();
    ++done;
  };
  for (int i = 0; i < 100000; ++i) loop.spawn(coroutine9());
  loop.run();
  EXPECT_EQ(done, 100000);
}

// An operation through `order` whose caller logs its result when received, then issues a
// follow-up (result + 100) that completes at once, as a re-ask answered from a cache would.
Async<int> receive_with_follow_up(EventLoop& loop, IssueOrder& order, int value, int delay_ms,
                                  std::vector<int>& received) {
  std::vector<int> unused;
  const int got = co_await order.run(value_after(loop, value, delay_ms, unused));
  received.push_back(got);
  received.push_back(co_await order.run(immediate(got + 100)));
  co_return got;
}

TEST(IssueOrder, HandsResultsOverInIssueOrderWhateverOrderTheyCompleteIn) {
  for (const std::vector<int>& delays : {std::vector<int>{0, 0, 0}, {20, 10, 0}, {0, 20, 10}}) {
    EventLoop loop;
    IssueOrder order(loop);
    std::vector<int> received;
    auto body = [&]() -> Async<void> {
      std::vector<Async<int>> callers;
      for (int i = 0; i < 3; ++i) callers.push_back(receive_with_follow_up(loop, order, i, delays[i], received));
      co_await when_all(std::move(callers));
    };
    loop.spawn(body());
    loop.run();
    // Each follow-up is issued when its caller receives, so after the three originals.
    EXPECT_EQ(received, (std::vector<int>{0, 1, 2, 100, 101, 102})) << delays[0] << delays[1] << delays[2];
  }
}

TEST(IssueOrder, ASynchronousResultIsHandedOverOnALaterTurnNeverInline) {
  EventLoop loop;
  IssueOrder order(loop);
  bool other_ran = false;
  bool other_ran_first = false;
  auto receiver = [&]() -> Async<void> {
    EXPECT_EQ(co_await order.run(immediate(7)), 7);
    other_ran_first = other_ran;
  };
  auto other = [&]() -> Async<void> {
    other_ran = true;
    co_return;
  };
  loop.spawn(receiver());
  loop.spawn(other());
  loop.run();
  EXPECT_TRUE(other_ran_first);
}

Async<int> throw_after(EventLoop& loop, int delay_ms) {
  std::vector<int> unused;
  co_await value_after(loop, 0, delay_ms, unused);
  co_return co_await thrower();
}

TEST(IssueOrder, AnExceptionIsRethrownInItsTurn) {
  EventLoop loop;
  IssueOrder order(loop);
  std::vector<std::string> received;
  // The first operation fails after 10 ms, the second succeeds at once.
  auto failing = [&]() -> Async<int> {
    try {
      co_await order.run(throw_after(loop, 10));
    } catch (const std::runtime_error& e) {
      received.push_back(e.what());
    }
    co_return 0;
  };
  auto succeeding = [&]() -> Async<int> {
    received.push_back(std::to_string(co_await order.run(immediate(1))));
    co_return 1;
  };
  auto body = [&]() -> Async<void> {
    std::vector<Async<int>> callers;
    callers.push_back(failing());
    callers.push_back(succeeding());
    co_await when_all(std::move(callers));
  };
  loop.spawn(body());
  loop.run();
  EXPECT_EQ(received, (std::vector<std::string>{"boom", "1"}));
}

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Sleeps `sleep` and records whether the loop was cancelled when it woke.
Async<void> sleeper(EventLoop& loop, Clock::duration sleep, std::vector<bool>& woke_cancelled) {
  co_await loop.sleep_for(sleep);
  woke_cancelled.push_back(loop.cancelled());
}

TEST(EventLoop, CancelFiresPendingTimersNowAndLaterSleepsAtOnce) {
  EventLoop loop;
  std::vector<bool> woke_cancelled;
  auto long_sleeper = [&]() -> Async<void> {
    co_await sleeper(loop, std::chrono::hours(1), woke_cancelled);
    co_await sleeper(loop, std::chrono::hours(1), woke_cancelled);  // after the cancel
  };
  auto canceller = [&]() -> Async<void> {
    co_await loop.sleep_for(milliseconds(20));
    EXPECT_FALSE(loop.cancelled());
    loop.cancel();
    loop.cancel();  // idempotent
  };
  loop.spawn(long_sleeper());
  loop.spawn(canceller());
  const auto started = Clock::now();
  loop.run();
  EXPECT_LT(Clock::now() - started, milliseconds(1000));
  EXPECT_EQ(woke_cancelled, (std::vector<bool>{true, true}));
  EXPECT_TRUE(loop.cancelled());
}

// A stop flag set from another thread (as a signal handler would) while the loop sleeps on a
// timer: the loop notices it within its check interval, not when the timer is due.
TEST(EventLoop, CancelWhenNoticesAFlagSetWhileTheLoopWaits) {
  EventLoop loop;
  std::atomic<bool> stop{false};
  loop.cancel_when(&stop);
  EXPECT_FALSE(loop.cancelled());
  std::vector<bool> woke_cancelled;
  auto long_sleeper = [&]() -> Async<void> { co_await sleeper(loop, std::chrono::hours(1), woke_cancelled); };
  loop.spawn(long_sleeper());
  std::thread signaller([&stop] {
    std::this_thread::sleep_for(milliseconds(100));
    stop = true;
  });
  const auto started = Clock::now();
  loop.run();
  signaller.join();
  const auto waited = Clock::now() - started;
  EXPECT_GE(waited, milliseconds(100));
  EXPECT_LT(waited, milliseconds(100) + 10 * EventLoop::kStopCheckInterval);
  EXPECT_EQ(woke_cancelled, std::vector<bool>{true});
}

// Coroutines that only yield never leave the loop idle; the flag is still seen.
TEST(EventLoop, CancelWhenNoticesAFlagWhileCoroutinesKeepTheLoopBusy) {
  EventLoop loop;
  std::atomic<bool> stop{false};
  loop.cancel_when(&stop);
  long turns = 0;
  auto spinner = [&]() -> Async<void> {
    while (!loop.cancelled()) {
      ++turns;
      co_await loop.yield();
    }
  };
  loop.spawn(spinner());
  std::thread signaller([&stop] {
    std::this_thread::sleep_for(milliseconds(50));
    stop = true;
  });
  loop.run();
  signaller.join();
  EXPECT_TRUE(loop.cancelled());
  EXPECT_GT(turns, 0);
}

// Equal deadlines resume in the order they were set, also when a cancel fires them all.
TEST(EventLoop, TimersWithEqualDeadlinesResumeInTheOrderTheyWereSet) {
  for (const bool cancel : {false, true}) {
    EventLoop loop;
    const auto when = Clock::now() + (cancel ? std::chrono::hours(1) : std::chrono::hours(0));
    std::vector<int> order;
    auto at = [&](int id) -> Async<void> {
      co_await loop.sleep_until(when);
      order.push_back(id);
    };
    for (int id = 1; id <= 4; ++id) loop.spawn(at(id));
    if (cancel) loop.cancel();
    loop.run();
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4})) << "cancel " << cancel;
  }
}

// when_idle resumes only once every ready coroutine has run and no timer is due, and before
// the loop sleeps until a later timer.
TEST(EventLoop, WhenIdleWaitsForReadyWorkAndDueTimersButNotForLaterOnes) {
  EventLoop loop;
  std::vector<std::string> order;
  auto busy = [&](std::string name, int turns) -> Async<void> {
    for (int i = 0; i < turns; ++i) co_await loop.yield();
    order.push_back(name);
  };
  auto due_timer = [&]() -> Async<void> {
    co_await loop.sleep_for(std::chrono::milliseconds(0));
    order.push_back("due timer");
  };
  auto later_timer = [&]() -> Async<void> {
    co_await loop.sleep_for(std::chrono::milliseconds(200));
    order.push_back("later timer");
  };
  auto idler = [&]() -> Async<void> {
    co_await loop.when_idle();
    order.push_back("idle");
    co_await loop.when_idle();  // idle again once the loop has only the later timer left
    order.push_back("idle again");
  };
  loop.spawn(idler());
  loop.spawn(busy("busy 3", 3));
  loop.spawn(due_timer());
  loop.spawn(later_timer());
  loop.spawn(busy("busy 1", 1));
  const auto started = EventLoop::Clock::now();
  loop.run();
  EXPECT_EQ(order, (std::vector<std::string>{"busy 1", "busy 3", "due timer", "idle", "idle again", "later timer"}));
  EXPECT_GE(EventLoop::Clock::now() - started, std::chrono::milliseconds(200));
}

// Two idle waiters: the second is resumed only once the work the first started has run.
TEST(EventLoop, IdleWaitersAreResumedOneAtATimeEachWhenTheLoopIsIdleAgain) {
  EventLoop loop;
  std::vector<std::string> order;
  auto work = [&](std::string name) -> Async<void> {
    co_await loop.yield();
    co_await loop.yield();
    order.push_back(name);
  };
  auto idler = [&](std::string name) -> Async<void> {
    co_await loop.when_idle();
    order.push_back(name);
    loop.spawn(work(name + "'s work"));
  };
  loop.spawn(idler("first"));
  loop.spawn(idler("second"));
  loop.run();
  EXPECT_EQ(order, (std::vector<std::string>{"first", "first's work", "second", "second's work"}));
}

// An idle waiter runs before the loop sleeps on an hour-long timer, so it can cancel that wait.
TEST(EventLoop, WhenIdleRunsBeforeTheLoopSleepsAndCanCancelALongWait) {
  EventLoop loop;
  bool resumed = false;
  auto sleeper = [&]() -> Async<void> { co_await loop.sleep_for(std::chrono::hours(1)); };
  auto idler = [&]() -> Async<void> {
    co_await loop.when_idle();
    loop.cancel();
    co_await loop.when_idle();  // after the sleeper, woken by the cancel
    resumed = true;
  };
  loop.spawn(sleeper());
  loop.spawn(idler());
  loop.run();
  EXPECT_TRUE(resumed);
  EXPECT_TRUE(loop.cancelled());
}

TEST(EventLoop, CancelWhenAFlagAlreadySetCancelsAtOnce) {
  EventLoop loop;
  std::atomic<bool> stop{true};
  loop.cancel_when(&stop);
  EXPECT_TRUE(loop.cancelled());
}


// ---- Coroutine frames (src/core/frame_pool.cc) ---------------------------------------------

// The pool's own behaviour; under ASan every frame is an allocation of its own.
class FramePool : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!detail::frames_are_pooled()) GTEST_SKIP() << "frames are not pooled in this build";
  }
};

// A class holds the sizes malloc would give the same chunk: round16(n + 8) - 8 bytes. A frame
// the pool keeps is not the heap's: glibc would hand a chunk just freed to the next malloc of
// its size, so `::operator new` getting a different block shows the frame stayed in the pool.
TEST_F(FramePool, AFreedFrameStaysInThePoolForAnySizeOfItsClass) {
  void* frame = detail::allocate_frame(100);
  detail::free_frame(frame, 100);
  void* heap = ::operator new(104);
  EXPECT_NE(heap, frame);
  void* again = detail::allocate_frame(104);  // 100 and 104 are both in the 89..104 class
  EXPECT_EQ(again, frame);
  static_cast<char*>(again)[103] = 1;
  detail::free_frame(again, 104);
  ::operator delete(heap);
}

TEST_F(FramePool, FramesOfAnotherClassAreNotHandedOut) {
  void* small = detail::allocate_frame(72);
  detail::free_frame(small, 72);
  void* larger = detail::allocate_frame(73);  // the next class up: 73..88
  EXPECT_NE(larger, small);
  void* again = detail::allocate_frame(57);  // 57..72
  EXPECT_EQ(again, small);
  detail::free_frame(larger, 73);
  detail::free_frame(again, 57);
}

TEST_F(FramePool, FramesUpToFourKibArePooledAndLargerOnesAreUsableWhole) {
  // Past the largest class a frame is the heap's, both ways. (Which block the heap hands out
  // next at this size depends on what earlier code freed, so it is not checked.)
  void* big = detail::allocate_frame(4105);
  static_cast<char*>(big)[4104] = 1;
  detail::free_frame(big, 4105);
  void* largest = detail::allocate_frame(4096);  // the largest pooled class: 4089..4104
  detail::free_frame(largest, 4096);
  void* heap_again = ::operator new(4096);
  EXPECT_NE(heap_again, largest);
  void* again = detail::allocate_frame(4089);
  EXPECT_EQ(again, largest);
  static_cast<char*>(again)[4103] = 1;
  detail::free_frame(again, 4089);
  ::operator delete(heap_again);
}

// The pool keeps at most 16 MiB a thread: frames freed past that go back to the heap, and
// frames handed out again make room for as many. (Frames of 1,000 bytes: glibc keeps chunks of
// that size for the next malloc of it, so which block the heap hands out next is known.)
TEST_F(FramePool, PastSixteenMibFreedFramesGoBackToTheHeap) {
  constexpr std::size_t kFrameBytes = 1000;  // a class of its own: 985..1000
  constexpr std::size_t kFit = (std::size_t{16} << 20) / kFrameBytes;
  std::thread([&] {  // a thread of its own, so that its pool starts empty
    detail::free_frame(detail::allocate_frame(4105), 4105);  // past the largest class: not counted
    std::vector<void*> frames(kFit + 2);
    for (void*& frame : frames) frame = detail::allocate_frame(kFrameBytes);
    for (void* frame : frames) detail::free_frame(frame, kFrameBytes);
    void* heap = ::operator new(kFrameBytes);
    EXPECT_EQ(heap, frames.back());  // the last two went to the heap
    ::operator delete(heap);
    // Every pooled frame comes back, latest first; then the pool has room again.
    std::size_t mismatches = 0;
    for (std::size_t i = kFit; i-- > 0;) mismatches += detail::allocate_frame(kFrameBytes) != frames[i];
    EXPECT_EQ(mismatches, 0u);
    detail::free_frame(frames.front(), kFrameBytes);
    void* heap_again = ::operator new(kFrameBytes);
    EXPECT_NE(heap_again, frames.front());  // pooled again
    ::operator delete(heap_again);
    EXPECT_EQ(detail::allocate_frame(kFrameBytes), frames.front());
    for (std::size_t i = 0; i < kFit; ++i) detail::free_frame(frames[i], kFrameBytes);
  }).join();
}

// Frees made while a thread exits, after its lists were emptied, go to the heap. The Probe is
// constructed before the thread's first frame, so it is destroyed after the pool's lists.
struct ExitProbe {
  bool* frame_went_to_the_heap = nullptr;
  ~ExitProbe() {
    if (frame_went_to_the_heap == nullptr) return;
    void* frame = detail::allocate_frame(200);
    detail::free_frame(frame, 200);
    void* heap = ::operator new(200);
    *frame_went_to_the_heap = heap == frame;
    ::operator delete(heap);
  }
};
thread_local ExitProbe exit_probe;

TEST_F(FramePool, FramesFreedAfterTheThreadsListsWereEmptiedGoToTheHeap) {
  bool went_to_the_heap = false;
  std::thread([&] {
    exit_probe.frame_went_to_the_heap = &went_to_the_heap;
    detail::free_frame(detail::allocate_frame(200), 200);  // the pool's lists exist from here
  }).join();
  EXPECT_TRUE(went_to_the_heap);
}

TEST_F(FramePool, AFrameFreedOnAnotherThreadThanItsOwnJoinsThatThreadsPool) {
  void* frame = nullptr;
  std::thread([&] { frame = detail::allocate_frame(300); }).join();  // that thread has exited since
  detail::free_frame(frame, 300);
  void* heap = ::operator new(300);
  EXPECT_NE(heap, frame);
  char* reused = static_cast<char*>(detail::allocate_frame(300));
  EXPECT_EQ(reused, frame);
  for (int i = 0; i < 300; ++i) reused[i] = static_cast<char>(i);  // the whole frame is writable
  detail::free_frame(reused, 300);
  ::operator delete(heap);
}

TEST(FramePools, CoroutinesOnSeveralThreadsAtOnceKeepTheirOwnFrames) {
  auto sum_on_a_loop = [](int base) {
    EventLoop loop;
    std::vector<Async<int>> tasks;
    auto value = [](EventLoop& l, int v) -> Async<int> {
      co_await l.yield();
      co_return v;
    };
    for (int i = 0; i < 200; ++i) tasks.push_back(value(loop, base + i));
    int total = 0;
    auto collect = [&]() -> Async<void> {
      for (int v : co_await when_all(std::move(tasks))) total += v;
    };
    loop.spawn(collect());
    loop.run();
    return total;
  };
  int first = 0, second = 0;
  std::thread a([&] { first = sum_on_a_loop(0); });
  std::thread b([&] { second = sum_on_a_loop(1000); });
  a.join();
  b.join();
  EXPECT_EQ(first, 199 * 200 / 2);
  EXPECT_EQ(second, 1000 * 200 + 199 * 200 / 2);
}

}  // namespace
}  // namespace parley

namespace parley {
namespace {

// A holder that enters, lets the loop run other coroutines a few times, then leaves (or throws).
Async<void> hold(EventLoop& loop, FifoLock& lock, int id, int turns, std::vector<std::string>& log, bool fail) {
  auto guard = co_await lock.acquire(loop);
  log.push_back("in " + std::to_string(id));
  for (int i = 0; i < turns; ++i) co_await loop.yield();
  log.push_back("out " + std::to_string(id));
  if (fail) throw std::runtime_error("holder failed");
}

TEST(FifoLock, OneHolderAtATimeInArrivalOrderAlsoWhenAHolderThrows) {
  EventLoop loop;
  FifoLock lock;
  std::vector<std::string> log;
  // 1 takes the lock; 2, 3 and 4 queue in that order although 4 would finish soonest.
  // (The id is a parameter, copied into the coroutine's frame: a lambda's captures die with it.)
  auto body = [&](int id) -> Async<void> {
    try {
      co_await hold(loop, lock, id, 5 - id, log, id == 2);
    } catch (const std::runtime_error&) {
      log.push_back("caught " + std::to_string(id));
    }
  };
  for (int id = 1; id <= 4; ++id) loop.spawn(body(id));
  loop.run();
  EXPECT_EQ(log, (std::vector<std::string>{"in 1", "out 1", "in 2", "out 2", "caught 2", "in 3", "out 3", "in 4",
                                           "out 4"}));
  EXPECT_FALSE(lock.held());
}

// ---- I/O drivers ----------------------------------------------------------------------------

// A driver whose I/O is a pipe: busy while a coroutine awaits next(); poll() reads what was
// written and resumes it, or resumes it when its deadline passed. Records each poll's wait.
class PipeDriver final : public IoDriver {
 public:
  explicit PipeDriver(EventLoop& loop, bool waitable = true) : loop_(loop), waitable_(waitable) {
    if (::pipe2(fds_, O_NONBLOCK | O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  }
  ~PipeDriver() override {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  PipeDriver(const PipeDriver&) = delete;
  PipeDriver& operator=(const PipeDriver&) = delete;

  bool busy() const override { return static_cast<bool>(waiter_); }
  void poll(milliseconds max_wait) override {
    waits.push_back(max_wait);
    if (max_wait.count() > 0) {  // alone: it waits itself
      pollfd set{fds_[0], POLLIN, 0};
      ::poll(&set, 1, static_cast<int>(max_wait.count()));
    }
    char byte = 0;
    const bool got = ::read(fds_[0], &byte, 1) == 1;
    const bool due = deadline && Clock::now() >= *deadline;
    if ((got || due) && waiter_) {
      woke_at.push_back(Clock::now());
      deadline.reset();
      loop_.post(std::exchange(waiter_, nullptr));
    }
  }
  void cancel() override {
    ++cancels;
    if (waiter_) loop_.post(std::exchange(waiter_, nullptr));
  }
  int wait_fd() const override { return waitable_ ? fds_[0] : -1; }
  std::optional<Clock::time_point> next_deadline() const override { return deadline; }

  // Awaitable: until a byte is written to the pipe (or the deadline passes, or a cancel).
  auto next() {
    struct Awaiter {
      PipeDriver* driver;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) { driver->waiter_ = h; }
      void await_resume() const noexcept {}
    };
    return Awaiter{this};
  }
  void write_byte() { (void)!::write(fds_[1], "x", 1); }

  std::vector<milliseconds> waits;
  std::vector<Clock::time_point> woke_at;
  std::optional<Clock::time_point> deadline;
  int cancels = 0;

 private:
  EventLoop& loop_;
  bool waitable_;
  int fds_[2] = {-1, -1};
  std::coroutine_handle<> waiter_;
};

milliseconds median(std::vector<Clock::duration> values) {
  std::sort(values.begin(), values.end());
  return std::chrono::duration_cast<milliseconds>(values[values.size() / 2]);
}

// `rounds` bytes written to `driver` from another thread, each a while after the driver saw the
// previous one; returns how long each took to be seen.
std::vector<Clock::duration> write_and_time(EventLoop& loop, PipeDriver& driver, PipeDriver& other, int rounds) {
  std::vector<Clock::time_point> written(static_cast<std::size_t>(rounds));
  std::atomic<int> seen{0};
  auto reader = [&]() -> Async<void> {
    for (int i = 0; i < rounds; ++i) {
      co_await driver.next();
      seen = i + 1;
    }
    other.write_byte();  // lets the other driver's waiter end
  };
  auto other_waiter = [&]() -> Async<void> { co_await other.next(); };
  loop.spawn(reader());
  loop.spawn(other_waiter());
  std::thread writer([&] {
    for (int i = 0; i < rounds; ++i) {
      std::this_thread::sleep_for(milliseconds(7 + 3 * (i % 7)));  // out of step with the loop's 50 ms
      written[static_cast<std::size_t>(i)] = Clock::now();
      driver.write_byte();
      while (seen.load() <= i) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  loop.run();
  writer.join();
  std::vector<Clock::duration> latencies;
  for (int i = 0; i < rounds; ++i) {
    latencies.push_back(driver.woke_at[static_cast<std::size_t>(i)] - written[static_cast<std::size_t>(i)]);
  }
  return latencies;
}

TEST(EventLoopIo, OneBusyDriverWaitsItselfAndAnIdleOneIsNotPolled) {
  EventLoop loop;
  PipeDriver busy(loop), idle(loop);
  loop.add_io(&busy);
  loop.add_io(&idle);
  loop.add_io(&busy);  // twice: still one driver
  auto waiter = [&]() -> Async<void> { co_await busy.next(); };
  loop.spawn(waiter());
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(30));
    busy.write_byte();
  });
  loop.run();
  writer.join();
  ASSERT_FALSE(busy.waits.empty());
  for (const milliseconds wait : busy.waits) EXPECT_GT(wait.count(), 0);  // the loop's own wait, as for a run
  EXPECT_TRUE(idle.waits.empty());
  EXPECT_EQ(busy.woke_at.size(), 1u);
  loop.remove_io(&busy);
  loop.remove_io(&idle);
}

// Two busy drivers: the loop waits on both descriptors at once and polls each with 0, so a byte
// on either is seen at once, not at the loop's next 50 ms check.
TEST(EventLoopIo, SeveralBusyDriversAreWaitedOnTogether) {
  EventLoop loop;
  PipeDriver first(loop), second(loop);
  loop.add_io(&first);
  loop.add_io(&second);
  const auto latencies = write_and_time(loop, first, second, 15);
  EXPECT_LT(median(latencies), milliseconds(10));
  // While both were busy, each wait polled both with 0; then the second waited alone.
  for (const milliseconds wait : first.waits) EXPECT_EQ(wait.count(), 0);
  EXPECT_EQ(std::count(second.waits.begin(), second.waits.end(), milliseconds(0)), first.waits.size());
  EXPECT_EQ(second.woke_at.size(), 1u);
  loop.remove_io(&first);
  loop.remove_io(&second);
}

// A driver without a descriptor that shares the wait is polled at least every millisecond or so.
TEST(EventLoopIo, ADriverWithoutADescriptorIsPolledOftenWhenSharing) {
  EventLoop loop;
  PipeDriver blind(loop, /*waitable=*/false), other(loop);
  loop.add_io(&blind);
  loop.add_io(&other);
  const auto latencies = write_and_time(loop, blind, other, 9);
  EXPECT_LT(median(latencies), milliseconds(10));
  loop.remove_io(&blind);
  loop.remove_io(&other);
}

// A shared wait ends at the earliest deadline a busy driver names.
TEST(EventLoopIo, ASharedWaitEndsAtADriversDeadline) {
  EventLoop loop;
  PipeDriver timed(loop), other(loop);
  loop.add_io(&timed);
  loop.add_io(&other);
  std::vector<Clock::duration> lateness;
  auto timeouts = [&]() -> Async<void> {
    for (int i = 0; i < 7; ++i) {
      const auto due = Clock::now() + milliseconds(11 + 4 * i);
      timed.deadline = due;
      co_await timed.next();
      lateness.push_back(Clock::now() - due);
    }
    other.write_byte();
  };
  auto other_waiter = [&]() -> Async<void> { co_await other.next(); };
  loop.spawn(timeouts());
  loop.spawn(other_waiter());
  loop.run();
  ASSERT_EQ(lateness.size(), 7u);
  for (const auto late : lateness) EXPECT_GE(late, Clock::duration(0));
  EXPECT_LT(median(lateness), milliseconds(10));
  loop.remove_io(&timed);
  loop.remove_io(&other);
}

TEST(EventLoopIo, CancelCancelsEveryDriverAndARemovedOneIsLeftAlone) {
  EventLoop loop;
  PipeDriver first(loop), second(loop), removed(loop);
  loop.add_io(&first);
  loop.add_io(&removed);
  loop.add_io(&second);
  loop.remove_io(&removed);
  loop.remove_io(&removed);  // not there: nothing changes
  int resumed = 0;
  auto waiter = [&](PipeDriver& driver) -> Async<void> {
    co_await driver.next();
    ++resumed;
  };
  auto canceller = [&]() -> Async<void> {
    co_await loop.sleep_for(milliseconds(5));
    loop.cancel();
  };
  loop.spawn(waiter(first));
  loop.spawn(waiter(second));
  loop.spawn(canceller());
  loop.run();
  EXPECT_EQ(resumed, 2);
  EXPECT_EQ(first.cancels, 1);
  EXPECT_EQ(second.cancels, 1);
  EXPECT_EQ(removed.cancels, 0);
  EXPECT_TRUE(removed.waits.empty());
  loop.remove_io(&first);
  loop.remove_io(&second);
}

}  // namespace
}  // namespace parley
