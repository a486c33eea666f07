// RunLock in one process: flock locks belong to an open file, so a second acquire here
// conflicts just as a second process would (tests/integration/stop_test.cc runs two).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "runner/run_lock.h"
#include "scratch_files.h"

namespace parley {
namespace {

std::filesystem::path fresh_dir(const std::string& name) { return testing::fresh_scratch_dir("parley-lock", name); }
std::string contents(const std::filesystem::path& path) { return testing::file_text(path); }

TEST(RunLock, ASecondWriterIsRefusedWithTheHoldersIdUntilTheFirstLetsGo) {
  const auto dir = fresh_dir("second");
  {
    auto first = RunLock::acquire(dir, "choose another --out");
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(contents(dir / "run.lock"), std::to_string(::getpid()) + "\n");
    auto second = RunLock::acquire(dir, "choose another --out");
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().message, dir.string() + " is in use by another parley process (process " +
                                          std::to_string(::getpid()) +
                                          "); wait for it to end, or choose another --out");
    // The way out is the caller's: parley serve names its own setting.
    auto served = RunLock::acquire(dir, "choose another serve.store (or --store)");
    ASSERT_FALSE(served);
    EXPECT_EQ(served.error().message, dir.string() + " is in use by another parley process (process " +
                                          std::to_string(::getpid()) +
                                          "); wait for it to end, or choose another serve.store (or --store)");
  }
  auto again = RunLock::acquire(dir, "choose another --out");
  EXPECT_TRUE(again) << again.error().message;
}

TEST(RunLock, AMovedLockIsStillHeld) {
  const auto dir = fresh_dir("moved");
  std::optional<RunLock> held;
  {
    auto acquired = RunLock::acquire(dir, "choose another --out");
    ASSERT_TRUE(acquired);
    held.emplace(std::move(*acquired));
  }  // the moved-from lock is gone; the moved-to one still holds
  EXPECT_FALSE(RunLock::acquire(dir, "choose another --out"));
  held.reset();
  EXPECT_TRUE(RunLock::acquire(dir, "choose another --out"));
}

TEST(RunLock, AStalePidOfADeadHolderIsOverwritten) {
  const auto dir = fresh_dir("stale");
  std::ofstream(dir / "run.lock") << "99999999\nleft over by a killed run\n";
  auto lock = RunLock::acquire(dir, "choose another --out");
  ASSERT_TRUE(lock) << lock.error().message;
  EXPECT_EQ(contents(dir / "run.lock"), std::to_string(::getpid()) + "\n");
}

TEST(RunLock, AnUnwritableDirectoryIsAnError) {
  const auto missing = fresh_dir("missing") / "no" / "such";
  auto lock = RunLock::acquire(missing, "choose another --out");
  ASSERT_FALSE(lock);
  EXPECT_EQ(lock.error().message,
            (missing / "run.lock").string() + ": cannot create the run's lock file: No such file or directory");
}

}  // namespace
}  // namespace parley
