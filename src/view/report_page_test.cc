// DIR/report.html: served only from inside DIR, with its own declared policy.
#include "view/report_page.h"

#include <gtest/gtest.h>

#include "parley/html_report.h"

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

TEST_F(ReportPageTest, TheReportIsServedWithItsOwnPolicySandboxed) {
  std::ofstream(run() / "report.html")
      << "<!doctype html><html><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-abc='; "
         "style-src 'sha256-def'; img-src data:\">\n</head><body>report</body></html>";
  ASSERT_TRUE(has_report(run()));
  auto page = read_report(run());
  ASSERT_TRUE(std::holds_alternative<ReportPage>(page));
  EXPECT_NE(std::get<ReportPage>(page).html.find("<body>report</body>"), std::string::npos);
  EXPECT_EQ(std::get<ReportPage>(page).content_security_policy,
            "default-src 'none'; script-src 'sha256-abc='; style-src 'sha256-def'; img-src data:; "
            "sandbox allow-scripts; frame-ancestors 'self'");
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

TEST(ReportPolicy, OnlyParleysOwnShapeOfPolicyLetsScriptsRun) {
  const std::string no_script = "default-src 'none'; sandbox; frame-ancestors 'self'";
  EXPECT_EQ(report_policy(std::nullopt), no_script);
  // What an edited or foreign report.html might declare: each is replaced by the no-script policy.
  for (const char* declared : {"default-src *; script-src 'unsafe-inline'; connect-src *",
                               "default-src 'none'; script-src 'sha256-abc' 'unsafe-inline'",
                               "default-src 'none'; script-src 'sha256-abc'; connect-src 'self'",
                               "default-src 'self'; script-src 'sha256-abc'",
                               "default-src 'none'; img-src *",
                               "default-src 'none'; script-src 'sha256-a b'",
                               "default-src 'none'; script-src https://cdn.example",
                               "default-src 'none'; frame-ancestors *",
                               "default-src"})
    EXPECT_EQ(report_policy(std::string(declared)), no_script) << declared;
  // parley's own, with a trailing separator: kept, sandboxed with scripts.
  EXPECT_EQ(report_policy(std::string("default-src 'none'; script-src 'sha256-Ab+/9='; base-uri 'none';")),
            "default-src 'none'; script-src 'sha256-Ab+/9='; base-uri 'none'; sandbox allow-scripts; "
            "frame-ancestors 'self'");
}

TEST(ReportPolicy, TheReportParleyWritesKeepsItsScripts) {
  const std::string ours = html_report_csp();
  EXPECT_EQ(report_policy(ours), ours + "; sandbox allow-scripts; frame-ancestors 'self'");
}

}  // namespace
}  // namespace parley::view
