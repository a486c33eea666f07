// load_dataset end to end on files: format detection, errors, limit, and — when present —
// the real GSM8K and MMLU files in ../shared/data (counts checked with Python's json/csv).

#include <cstdlib>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "data/dataset_test_support.h"
#include "parley/dataset.h"

namespace parley::data {
namespace {

constexpr std::string_view kJsonlRow = "{\"question\": \"2+2?\", \"answer\": 4}\n";
constexpr std::string_view kGsm8kRow = "{\"question\": \"2+2?\", \"answer\": \"2+2=4\\n#### 4\"}\n";
constexpr std::string_view kCsvRow = "2+2?,3,4,5,6,B\n";

TEST(LoadDataset, DetectsTheFormat) {
  ScratchDir dir;
  auto gsm8k = load_dataset(dir.write("g.jsonl", kGsm8kRow));
  ASSERT_TRUE(gsm8k.ok()) << gsm8k.error().message;
  EXPECT_EQ(gsm8k->tasks[0].id, "gsm8k-1");

  auto jsonl = load_dataset(dir.write("p.jsonl", kJsonlRow));
  ASSERT_TRUE(jsonl.ok()) << jsonl.error().message;
  EXPECT_EQ(jsonl->tasks[0].id, "line-1");

  auto csv = load_dataset(dir.write("Quiz.CSV", kCsvRow));
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  EXPECT_EQ(csv->tasks[0].id, "Quiz-1");
  EXPECT_EQ(csv->tasks[0].answer, "B");

  // An answer_type marks parley JSONL even when the answer holds "####".
  auto typed = load_dataset(dir.write("t.jsonl", "{\"question\": \"q\", \"answer\": \"#### x\", \"answer_type\": \"text\"}\n"));
  ASSERT_TRUE(typed.ok()) << typed.error().message;
  EXPECT_EQ(typed->tasks[0].answer, "#### x");

  // Detection looks past leading lines that are not JSON objects.
  auto late = load_dataset(dir.write("late.jsonl", "garbage\n" + std::string(kGsm8kRow)));
  ASSERT_TRUE(late.ok()) << late.error().message;
  EXPECT_EQ(late->tasks[0].id, "gsm8k-2");
  EXPECT_EQ(late->issues.size(), 1u);
}

TEST(LoadDataset, AnExplicitFormatWins) {
  ScratchDir dir;
  const auto path = dir.write("rows.txt", kGsm8kRow);
  auto as_jsonl = load_dataset(path, DatasetFormat::kJsonl);
  ASSERT_TRUE(as_jsonl.ok()) << as_jsonl.error().message;
  EXPECT_EQ(as_jsonl->tasks[0].answer_type, AnswerType::kText);  // "2+2=4\n#### 4" is not a number

  auto as_csv = load_dataset(dir.write("rows.jsonl", kCsvRow), DatasetFormat::kMmluCsv);
  ASSERT_TRUE(as_csv.ok()) << as_csv.error().message;
  EXPECT_EQ(as_csv->tasks[0].id, "rows-1");
}

TEST(LoadDataset, UnreadableFilesAreErrorsNamingThePath) {
  ScratchDir dir;
  const auto missing = dir.path() / "nope.jsonl";
  auto result = load_dataset(missing);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message, missing.string() + ": file not found");

  auto directory = load_dataset(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().message, dir.path().string() + ": is a directory, not a file");

  // A FIFO is refused before it is opened: opening it would wait for a writer forever.
  const auto fifo = dir.path() / "tasks.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = load_dataset(fifo);
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.error().message.find(fifo.string() + ": is not a regular file"), std::string::npos)
      << pipe.error().message;
}

TEST(LoadDataset, NoValidTaskIsAnError) {
  ScratchDir dir;
  const auto empty = dir.write("empty.jsonl", "\n\n");
  auto none = load_dataset(empty);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, empty.string() + ": no valid task (the file is empty)");

  const auto bad = dir.write("bad.jsonl", "{\"question\": \"q\"}\nnot json\n");
  auto all_bad = load_dataset(bad);
  ASSERT_FALSE(all_bad.ok());
  EXPECT_EQ(all_bad.error().message, bad.string() + ": no valid task (2 malformed rows; first, line 1: missing answer)");
}

TEST(LoadDataset, LimitKeepsTheFirstNValidTasks) {
  ScratchDir dir;
  std::string rows;
  for (int i = 1; i <= 5; ++i) rows += "{\"id\": " + std::to_string(i) + ", \"question\": \"q\", \"answer\": 1}\n";
  auto limited = load_dataset(dir.write("five.jsonl", rows), DatasetFormat::kAuto, 3);
  ASSERT_TRUE(limited.ok());
  ASSERT_EQ(limited->tasks.size(), 3u);
  EXPECT_EQ(limited->tasks[2].id, "3");
}

TEST(ParseDatasetFormat, KnowsTheFourNames) {
  EXPECT_EQ(parse_dataset_format("auto"), DatasetFormat::kAuto);
  EXPECT_EQ(parse_dataset_format("jsonl"), DatasetFormat::kJsonl);
  EXPECT_EQ(parse_dataset_format("gsm8k"), DatasetFormat::kGsm8k);
  EXPECT_EQ(parse_dataset_format("mmlu_csv"), DatasetFormat::kMmluCsv);
  EXPECT_FALSE(parse_dataset_format("csv").has_value());
  EXPECT_FALSE(parse_dataset_format("").has_value());
}

std::filesystem::path shared_data(const char* relative) {
  const char* source = PARLEY_SOURCE_DIR;  // compiled in by parley_test()
  return std::filesystem::path(source) / ".." / "shared" / "data" / relative;
}

TEST(ExampleData, ProjectSamplesLoadCleanly) {
  const char* source = PARLEY_SOURCE_DIR;  // compiled in by parley_test()
  const std::filesystem::path examples = std::filesystem::path(source) / "examples" / "data";

  auto math = load_dataset(examples / "math-sample.jsonl");
  ASSERT_TRUE(math.ok()) << math.error().message;
  EXPECT_TRUE(math->issues.empty());
  ASSERT_EQ(math->tasks.size(), 60u);
  for (const Task& task : math->tasks) {
    EXPECT_EQ(task.answer_type, AnswerType::kNumber) << task.id;
    EXPECT_TRUE(task.difficulty.has_value()) << task.id;
    EXPECT_EQ(task.answer.find('.'), std::string::npos) << task.id;  // integer answers
  }

  auto mc = load_dataset(examples / "mc-sample.jsonl");
  ASSERT_TRUE(mc.ok()) << mc.error().message;
  EXPECT_TRUE(mc->issues.empty());
  ASSERT_EQ(mc->tasks.size(), 60u);
  int letters[4] = {0, 0, 0, 0};
  for (const Task& task : mc->tasks) {
    ASSERT_EQ(task.answer_type, AnswerType::kChoice) << task.id;
    ASSERT_EQ(task.options.size(), 4u) << task.id;
    EXPECT_TRUE(task.difficulty.has_value()) << task.id;
    ++letters[task.answer[0] - 'A'];
  }
  for (int count : letters) EXPECT_EQ(count, 15);  // balanced gold letters
}

TEST(RealData, Gsm8kTestSplit) {
  const auto path = shared_data("gsm8k/test.jsonl");
  if (path.empty() || !std::filesystem::exists(path)) GTEST_SKIP() << "GSM8K test split not present";
  auto dataset = load_dataset(path);
  ASSERT_TRUE(dataset.ok()) << dataset.error().message;
  // 1,319 rows per SOURCE.md; the gold sum 9,009,187 and last gold 14 were computed with
  // Python's json module (split on "####", strip commas).
  ASSERT_EQ(dataset->tasks.size(), 1319u);
  EXPECT_TRUE(dataset->issues.empty());
  const Task& first = dataset->tasks.front();
  EXPECT_EQ(first.id, "gsm8k-1");
  EXPECT_TRUE(first.question.starts_with("Janet\u2019s ducks lay 16 eggs per day.")) << first.question;
  EXPECT_EQ(first.answer, "18");
  EXPECT_EQ(dataset->tasks.back().id, "gsm8k-1319");
  EXPECT_EQ(dataset->tasks.back().answer, "14");
  long long sum = 0;
  for (const Task& task : dataset->tasks) sum += std::stoll(task.answer);
  EXPECT_EQ(sum, 9009187);
}

TEST(RealData, MmluAbstractAlgebra) {
  const auto path = shared_data("mmlu/test/abstract_algebra_test.csv");
  if (path.empty() || !std::filesystem::exists(path)) GTEST_SKIP() << "MMLU test split not present";
  auto dataset = load_dataset(path);
  ASSERT_TRUE(dataset.ok()) << dataset.error().message;
  // 100 questions: the official count for this subject, and what Python's csv.reader finds
  // (101 records including the header SOURCE.md says was added). Letters: A 22, B 26, C 31, D 21.
  ASSERT_EQ(dataset->tasks.size(), 100u);
  EXPECT_TRUE(dataset->issues.empty());
  const Task& first = dataset->tasks.front();  // the example row in SOURCE.md
  EXPECT_EQ(first.id, "abstract_algebra_test-1");
  EXPECT_EQ(first.question, "Find the degree for the given field extension Q(sqrt(2), sqrt(3), sqrt(18)) over Q.");
  EXPECT_EQ(first.options, (std::vector<std::string>{"0", "4", "2", "6"}));
  EXPECT_EQ(first.answer, "B");
  EXPECT_EQ(dataset->tasks[2].options[2], "0,1");  // a quoted field holding a comma
  EXPECT_EQ(dataset->tasks[2].answer, "D");
  int letters[4] = {0, 0, 0, 0};
  for (const Task& task : dataset->tasks) ++letters[task.answer[0] - 'A'];
  EXPECT_EQ(letters[0], 22);
  EXPECT_EQ(letters[1], 26);
  EXPECT_EQ(letters[2], 31);
  EXPECT_EQ(letters[3], 21);
}

TEST(RealData, AllMmluSubjects) {
  const auto folder = shared_data("mmlu/test");
  if (folder.empty() || !std::filesystem::is_directory(folder)) GTEST_SKIP() << "MMLU test split not present";
  // SOURCE.md: 57 files, 14,042 questions (verified there with csv.reader).
  int files = 0;
  std::size_t questions = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".csv") continue;
    auto dataset = load_dataset(entry.path());
    ASSERT_TRUE(dataset.ok()) << dataset.error().message;
    EXPECT_TRUE(dataset->issues.empty()) << entry.path() << ": line " << dataset->issues[0].line << ": "
                                         << dataset->issues[0].message;
    ++files;
    questions += dataset->tasks.size();
  }
  EXPECT_EQ(files, 57);
  EXPECT_EQ(questions, 14042u);
}

}  // namespace
}  // namespace parley::data
