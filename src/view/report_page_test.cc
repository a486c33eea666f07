// DIR/report.html: served only from inside DIR, with its own declared policy.
#include "view/report_page.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace parley::view {
namespace {

class ReportPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("parley-report-page-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "run");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path run() const { return root_ / "run"; }
  std::filesystem::path root_;
};

TEST_F(ReportPageTest, TheReportIsServedWithItsOwnPolicyAndFrameAncestors) {
  std::ofstream(run() / "report.html")
      << "<!doctype html><html><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-abc'; "
         "style-src 'unsafe-inline'\">\n</head><body>report</body></html>";
  ASSERT_TRUE(has_report(run()));
  auto page = read_report(run());
  ASSERT_TRUE(std::holds_alternative<ReportPage>(page));
  EXPECT_NE(std::get<ReportPage>(page).html.find("<body>report</body>"), std::string::npos);
  EXPECT_EQ(std::get<ReportPage>(page).content_security_policy,
            "default-src 'none'; script-src 'sha256-abc'; style-src 'unsafe-inline'; frame-ancestors 'self'");
}

TEST_F(ReportPageTest, NoReportSaysHowToMakeOne) {
  EXPECT_FALSE(has_report(run()));
  auto page = read_report(run());
  ASSERT_TRUE(std::holds_alternative<NoReport>(page));
  EXPECT_NE(std::get<NoReport>(page).message.find("no report.html in"), std::string::npos);
  EXPECT_NE(std::get<NoReport>(page).message.find("parley report"), std::string::npos);
  EXPECT_NE(std::get<NoReport>(page).message.find("--html"), std::string::npos);
  // A directory of that name is no report either.
  std::filesystem::create_directories(run() / "report.html");
  EXPECT_FALSE(has_report(run()));
}

TEST_F(ReportPageTest, ASymlinkOutOfTheRunIsRefusedOneInsideIsFollowed) {
  std::ofstream(root_ / "secret.html") << "<p>outside</p>";
  std::filesystem::create_symlink(root_ / "secret.html", run() / "report.html");
  EXPECT_FALSE(has_report(run()));
  EXPECT_TRUE(std::holds_alternative<NoReport>(read_report(run())));
  std::filesystem::remove(run() / "report.html");
  std::ofstream(run() / "real.html") << "<p>inside</p>";
  std::filesystem::create_symlink("real.html", run() / "report.html");
  auto page = read_report(run());
  ASSERT_TRUE(std::holds_alternative<ReportPage>(page));
  EXPECT_EQ(std::get<ReportPage>(page).html, "<p>inside</p>");
}

TEST(ReportPolicy, TheMetaIsFoundInAnyAttributeOrderAndCase) {
  EXPECT_EQ(meta_content_security_policy(R"(<META CONTENT="img-src data:" HTTP-EQUIV="content-security-policy">)"),
            "img-src data:");
  EXPECT_EQ(meta_content_security_policy(R"(<meta http-equiv='Content-Security-Policy' content='default-src &#39;none&#39;'>)"),
            "default-src 'none'");
  EXPECT_FALSE(meta_content_security_policy("<meta charset=\"utf-8\"><p>no policy</p>"));
  EXPECT_FALSE(meta_content_security_policy("<meta http-equiv=\"refresh\" content=\"0\">"));
  // A value that cannot be one header line is not taken.
  EXPECT_FALSE(meta_content_security_policy("<meta http-equiv=\"Content-Security-Policy\" content=\"a\nb\">"));
  EXPECT_FALSE(meta_content_security_policy("<meta http-equiv=\"Content-Security-Policy\" content=\"  \">"));
  // Only the page's head is read: a policy written into its body (by model text) is not the page's.
  EXPECT_FALSE(meta_content_security_policy(std::string(70000, ' ') +
                                            "<meta http-equiv=\"Content-Security-Policy\" content=\"script-src *\">"));
}

TEST(ReportPolicy, WithoutOneTheReportRunsInlineButFetchesNothing) {
  const std::string fallback = report_policy(std::nullopt);
  EXPECT_NE(fallback.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(fallback.find("script-src 'unsafe-inline'"), std::string::npos);
  EXPECT_NE(fallback.find("frame-ancestors 'self'"), std::string::npos);
  EXPECT_EQ(fallback.find("connect-src"), std::string::npos);  // falls back to default-src 'none'
  // A declared frame-ancestors is kept as the page says; a trailing separator is not doubled.
  EXPECT_EQ(report_policy(std::string("default-src 'none'; frame-ancestors 'none';")),
            "default-src 'none'; frame-ancestors 'none'");
  EXPECT_EQ(report_policy(std::string("default-src 'none';")), "default-src 'none'; frame-ancestors 'self'");
}

}  // namespace
}  // namespace parley::view
