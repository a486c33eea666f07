#include "core/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "scratch_files.h"

namespace parley {
namespace {

std::filesystem::path fresh_dir(const std::string& name) { return testing::fresh_scratch_dir("parley-files", name); }
std::string contents(const std::filesystem::path& path) { return testing::file_text(path); }

std::size_t entries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(OutputFile, WritesInPiecesAndReplacesTheTargetWhole) {
  const auto dir = fresh_dir("pieces");
  ASSERT_TRUE(write_output_file(dir / "out.txt", "old contents\n"));
  OutputFile file(dir / "out.txt");
  std::string expected;
  for (int i = 0; i < 20000; ++i) {  // past the 64 KiB buffer several times
    const std::string line = "line " + std::to_string(i) + "\n";
    file.append(line);
    expected += line;
  }
  EXPECT_EQ(contents(dir / "out.txt"), "old contents\n") << "the target changes only on commit";
  ASSERT_TRUE(file.commit());
  EXPECT_EQ(contents(dir / "out.txt"), expected);
  EXPECT_EQ(entries(dir), 1u) << "no temporary left behind";
}

TEST(OutputFile, WithoutCommitTheTargetIsUntouchedAndNothingIsLeft) {
  const auto dir = fresh_dir("abandon");
  ASSERT_TRUE(write_output_file(dir / "out.txt", "kept\n"));
  {
    OutputFile file(dir / "out.txt");
    file.append("half of a new version");
  }
  EXPECT_EQ(contents(dir / "out.txt"), "kept\n");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(OutputFile, FailuresSayWhyAndLeaveNothing) {
  const auto dir = fresh_dir("fail");
  auto missing = write_output_file(dir / "no-such-dir" / "out.txt", "x");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot write: No such file or directory");

  std::filesystem::create_directories(dir / "target-is-a-dir" / "inside");
  auto onto_directory = write_output_file(dir / "target-is-a-dir", "x");
  ASSERT_FALSE(onto_directory);
  EXPECT_EQ(onto_directory.error().message, "cannot write: Is a directory");
  EXPECT_EQ(entries(dir), 1u) << "the temporary is removed after a failed rename";
}

// A device or FIFO is written into, never replaced by a file; a symlink's target is replaced
// and the link stays a link.
TEST(OutputFile, DevicesAreWrittenIntoAndSymlinksFollowed) {
  const auto dir = fresh_dir("devices");
  // Private nodes of the full and null devices, so that a regression replaces these, never /dev's.
  ASSERT_EQ(::mknod((dir / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  ASSERT_EQ(::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  auto full = write_output_file(dir / "full", "x");
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().message, "cannot write: No space left on device");
  EXPECT_EQ(std::filesystem::status(dir / "full").type(), std::filesystem::file_type::character);
  EXPECT_TRUE(write_output_file(dir / "null", "discarded"));
  EXPECT_EQ(std::filesystem::status(dir / "null").type(), std::filesystem::file_type::character);

  ASSERT_TRUE(write_output_file(dir / "target.json", "old"));
  std::filesystem::create_symlink("target.json", dir / "link.json");
  ASSERT_TRUE(write_output_file(dir / "link.json", "new"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  EXPECT_EQ(contents(dir / "target.json"), "new");
  EXPECT_EQ(entries(dir), 4u);
}

TEST(ReadInputFile, ReadsRegularFilesAndRefusesEverythingElse) {
  const auto dir = fresh_dir("read");
  ASSERT_TRUE(write_output_file(dir / "in.txt", std::string("a\0b", 3)));
  auto text = read_input_file(dir / "in.txt");
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, std::string("a\0b", 3));
  EXPECT_EQ(read_input_file(dir / "nope").error().message, "file not found");
  EXPECT_EQ(read_input_file(dir).error().message, "is a directory, not a file");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_input_file(dir / "fifo").error().message,
            "is not a regular file (a FIFO, device or socket cannot be read as input)");
}

}  // namespace
}  // namespace parley
