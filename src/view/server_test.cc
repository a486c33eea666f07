// The viewer's server over real HTTP on loopback: every route, bad parameters, paths that try to
// leave the routes, a foreign Host, other methods, and the headers every response carries.
#include "view/server.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "parley/store.h"
#include "raw_http.h"
#include "view/request_guard.h"

namespace parley::view {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::send_raw;

const Asset kHtml{"<!doctype html><title>viewer</title>", "text/html"};
const Asset kScript{"console.log('viewer')", "text/javascript"};

const Asset* test_assets(std::string_view name) {
  if (name == "viewer.html") return &kHtml;
  if (name == "viewer.js") return &kScript;
  return nullptr;
}

Transcript debate(const std::string& task, const std::string& protocol, std::uint64_t seed, const std::string& reply) {
  Transcript t;
  t.task_id = task;
  t.protocol = protocol;
  t.seed = seed;
  t.question = "Which planet is largest?";
  t.gold = "B";
  t.answer_type = AnswerType::kChoice;
  MessageRecord m;
  m.agent = "a1";
  m.role = "answer";
  m.text = reply;
  m.answer = "B";
  m.prompt_tokens = 10;
  t.messages.push_back(m);
  t.final_answer = "B";
  t.correct = true;
  t.metrics = {{"u_sys", 0.5}};
  return t;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("parley-view-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    run_ = root_ / "my-run";
    std::filesystem::create_directories(run_);
    std::ofstream(root_ / "secret.txt") << "outside the run";
    {
      auto store = Store::open(run_ / "results.sqlite");
      ASSERT_TRUE(store) << store.error().message;
      ASSERT_TRUE((*store)->set_meta("protocol_order", "single\ndebate"));
      ASSERT_TRUE((*store)->set_meta("simulated", "1"));
      ASSERT_TRUE((*store)->put(debate("t1", "single", 1, "Answer: B <script>alert(1)</script>")));
      ASSERT_TRUE((*store)->put(debate("t1", "debate", 1, "<img src=x onerror=alert(1)> Answer: B")));
      ASSERT_TRUE((*store)->put(debate("t2", "single", 18446744073709551615ULL, "Answer: B")));
    }
    start();
  }
  void TearDown() override {
    stop();
    std::filesystem::remove_all(root_);
  }

  void start() {
    auto viewer = open_viewer(run_, nullptr, test_assets);
    ASSERT_TRUE(viewer) << viewer.error().message;
    viewer_ = std::move(*viewer);
    auto port = viewer_->listen("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    port_ = *port;
    serving_ = std::thread([this] { viewer_->serve(); });
  }
  void stop() {
    if (viewer_) viewer_->stop();
    if (serving_.joinable()) serving_.join();
  }

  HttpReply get(const std::string& target, const std::string& host = "") {
    return send_raw(port_, "GET " + target + " HTTP/1.1\r\nHost: " +
                               (host.empty() ? "127.0.0.1:" + std::to_string(port_) : host) +
                               "\r\nConnection: close\r\n\r\n");
  }
  json get_json(const std::string& target, int status = 200) {
    const HttpReply reply = get(target);
    EXPECT_EQ(reply.status, status) << target << ": " << reply.body;
    EXPECT_EQ(reply.header("content-type"), "application/json; charset=utf-8") << target;
    return json::parse(reply.body, nullptr, false);
  }

  std::filesystem::path root_, run_;
  std::unique_ptr<Viewer> viewer_;
  std::thread serving_;
  int port_ = 0;
};

TEST_F(ServerTest, TheRunsFacts) {
  json run = get_json("/api/run");
  EXPECT_EQ(run, json::parse(R"({"name": "my-run", "simulated": true, "debates": 3, "protocols": ["single", "debate"],
    "seeds": ["1", "18446744073709551615"], "metrics": ["u_sys"], "statuses": ["completed"], "report": false})"));
  std::ofstream(run_ / "report.html") << "<p>report</p>";
  EXPECT_EQ(get_json("/api/run")["report"], true);
}

TEST_F(ServerTest, TheListFiltersSortsAndPages) {
  json page = get_json("/api/debates");
  EXPECT_EQ(page["total"], 3);
  EXPECT_EQ(page["offset"], 0);
  EXPECT_EQ(page["limit"], 50);
  ASSERT_EQ(page["rows"].size(), 3u);
  EXPECT_EQ(page["rows"][0]["task_id"], "t1");
  EXPECT_EQ(page["rows"][0]["protocol"], "debate");
  EXPECT_EQ(page["rows"][0]["question"], "Which planet is largest?");
  EXPECT_EQ(page["rows"][0]["metrics"], json::object());
  EXPECT_EQ(page["rows"][2]["seed"], "18446744073709551615");

  page = get_json("/api/debates?protocol=single&sort=metric:u_sys&order=desc&range=u_sys:0.5:&limit=1&offset=1");
  EXPECT_EQ(page["total"], 2);
  ASSERT_EQ(page["rows"].size(), 1u);
  EXPECT_EQ(page["rows"][0]["task_id"], "t1");  // ties by the order stored, descending: t2, then t1
  EXPECT_EQ(page["rows"][0]["metrics"], json::parse(R"({"u_sys": 0.5})"));
  EXPECT_EQ(get_json("/api/debates?seed=18446744073709551615")["total"], 1);
  EXPECT_EQ(get_json("/api/debates?correct=0")["total"], 0);
  EXPECT_EQ(get_json("/api/debates?flipped=1&status=completed")["total"], 0);
  // Search text arrives percent-encoded: a literal %, quote and angle brackets.
  EXPECT_EQ(get_json("/api/debates?q=%25")["total"], 0);
  EXPECT_EQ(get_json("/api/debates?q=PLANET%20is")["total"], 3);
  EXPECT_EQ(get_json("/api/debates?q=%3Cscript%3E%27")["total"], 0);
  // Empty values are absent filters, as a form sends them.
  EXPECT_EQ(get_json("/api/debates?protocol=&seed=&correct=&status=&flipped=&q=&sort=&order=")["total"], 3);
}

TEST_F(ServerTest, BadParametersAre400NamingTheParameter) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/api/debates?limit=201", "limit"},
      {"/api/debates?limit=-1", "limit"},
      {"/api/debates?offset=x", "offset"},
      {"/api/debates?seed=-3", "seed"},
      {"/api/debates?correct=yes", "correct"},
      {"/api/debates?status=cancelled", "status"},
      {"/api/debates?range=u_sys", "range"},
      {"/api/debates?range=nonesuch:0:1", "range"},  // no such metric in this run
      {"/api/debates?sort=metric:nonesuch", "sort"},
      {"/api/debates?sort=cost", "sort"},
      {"/api/debates?order=sideways", "order"},
      {"/api/debates?page=2", "page"},
      {"/api/debate?task=t1&protocol=single", "seed"},
      {"/api/debate?task=t1&seed=1", "protocol"},
      {"/api/debate?protocol=single&seed=1", "task"},
      {"/api/debate?task=t1&protocol=single&seed=one", "seed"},
  };
  for (const auto& [target, parameter] : cases) {
    const json error = get_json(target, 400);
    EXPECT_EQ(error["parameter"], parameter) << target;
    EXPECT_TRUE(error["error"].get<std::string>().starts_with(parameter + ": ")) << error.dump();
  }
}

TEST_F(ServerTest, OneDebateIsItsStoredTranscriptAndTheOtherProtocols) {
  const HttpReply reply = get("/api/debate?task=t1&protocol=single&seed=1");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const json body = json::parse(reply.body);
  EXPECT_EQ(body["transcript"], json::parse(transcript_to_json(debate("t1", "single", 1, "Answer: B <script>alert(1)</script>"))));
  // Model text is a JSON string, escaped as JSON and nothing else; the type says it is JSON.
  EXPECT_EQ(body["transcript"]["messages"][0]["text"], "Answer: B <script>alert(1)</script>");
  EXPECT_EQ(reply.header("x-content-type-options"), "nosniff");
  ASSERT_EQ(body["others"].size(), 1u);
  EXPECT_EQ(body["others"][0]["protocol"], "debate");
  EXPECT_EQ(get_json("/api/debate?task=t2&protocol=single&seed=18446744073709551615")["transcript"]["seed"],
            18446744073709551615ULL);
  const json missing = get_json("/api/debate?task=t1&protocol=single&seed=2", 404);
  EXPECT_NE(missing["error"].get<std::string>().find("no debate of task \"t1\""), std::string::npos);
}

TEST_F(ServerTest, TheFrontEndsFilesComeFromTheFixedTable) {
  HttpReply page = get("/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, kHtml.content);
  EXPECT_EQ(page.header("content-type"), "text/html");
  HttpReply script = get("/assets/viewer.js");
  EXPECT_EQ(script.status, 200);
  EXPECT_EQ(script.body, kScript.content);
  EXPECT_EQ(script.header("content-type"), "text/javascript");
  EXPECT_EQ(get("/assets/nope.js").status, 404);
  EXPECT_EQ(get("/assets/").status, 404);
  EXPECT_EQ(get("/viewer.js").status, 404);
  // HEAD: the headers without the body.
  const HttpReply head = send_raw(port_, "HEAD / HTTP/1.1\r\nHost: localhost:" + std::to_string(port_) +
                                             "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.header("content-length"), std::to_string(kHtml.content.size()));
}

TEST_F(ServerTest, PathsOutOfTheRoutesReachNoFile) {
  for (const char* target : {"/results.sqlite", "/../results.sqlite", "/assets/../../x", "/assets/../results.sqlite",
                             "/%2e%2e/", "/%2e%2e/results.sqlite", "/assets/%2e%2e%2fresults.sqlite",
                             "/assets/..%2f..%2fsecret.txt", "/assets/..", "/api/../results.sqlite",
                             "//etc/passwd", "/report/../results.sqlite", "/report.html", "/my-run/results.sqlite",
                             "/assets/viewer.js/../../results.sqlite", "/%2fetc%2fpasswd", "/secret.txt",
                             "/assets/%00viewer.js", "/api/run/../../secret.txt"}) {
    const HttpReply reply = get(target);
    EXPECT_TRUE(reply.status == 404 || reply.status == 400) << target << " -> " << reply.status;
    EXPECT_EQ(reply.body.find("SQLite format"), std::string::npos) << target;
    EXPECT_EQ(reply.body.find("outside the run"), std::string::npos) << target;
    EXPECT_EQ(reply.body.find("root:"), std::string::npos) << target;
    EXPECT_EQ(reply.header("content-security-policy"), kContentSecurityPolicy) << target;
  }
  // An absolute-form request target names another host's file: no route.
  EXPECT_EQ(get("http://127.0.0.1/results.sqlite").status, 404);
}

TEST_F(ServerTest, AForeignHostIsRefused) {
  for (const char* host : {"evil.example", "evil.example:" , "127.0.0.1:1", "attacker.test:80"}) {
    const HttpReply reply = get("/api/run", host);
    EXPECT_EQ(reply.status, 403) << host;
    EXPECT_EQ(reply.body.find("\"debates\""), std::string::npos);
    EXPECT_NE(reply.body.find("is not this viewer's address"), std::string::npos) << reply.body;
  }
  const HttpReply rebinding = get("/api/run", "evil.example:" + std::to_string(port_));
  EXPECT_EQ(rebinding.status, 403);
  const HttpReply no_host = send_raw(port_, "GET /api/run HTTP/1.0\r\n\r\n");
  EXPECT_EQ(no_host.status, 403);
  EXPECT_EQ(get("/api/run", "localhost:" + std::to_string(port_)).status, 200);
  EXPECT_EQ(get("/api/run", "[::1]:" + std::to_string(port_)).status, 200);
}

TEST_F(ServerTest, OnlyGetAndHeadAreAnswered) {
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    const HttpReply reply = send_raw(port_, std::string(method) + " /api/run HTTP/1.1\r\nHost: 127.0.0.1:" +
                                                std::to_string(port_) +
                                                "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
    EXPECT_EQ(reply.status, 405) << method;
    EXPECT_EQ(reply.header("allow"), "GET, HEAD") << method;
    EXPECT_EQ(reply.header("content-security-policy"), kContentSecurityPolicy) << method;
  }
}

TEST_F(ServerTest, EveryResponseCarriesTheSecurityHeaders) {
  for (const char* target : {"/", "/assets/viewer.js", "/api/run", "/api/debates", "/api/debates?limit=999",
                             "/api/debate?task=x&protocol=y&seed=1", "/nowhere"}) {
    const HttpReply reply = get(target);
    EXPECT_EQ(reply.header("content-security-policy"), kContentSecurityPolicy) << target;
    EXPECT_EQ(reply.headers.count("content-security-policy"), 1u) << target;
    EXPECT_EQ(reply.header("x-content-type-options"), "nosniff") << target;
    EXPECT_EQ(reply.header("referrer-policy"), "no-referrer") << target;
    EXPECT_EQ(reply.header("cache-control"), "no-store") << target;
  }
  const HttpReply foreign = get("/", "evil.example");
  EXPECT_EQ(foreign.header("content-security-policy"), kContentSecurityPolicy);
  // A request httplib itself refuses gets them too, with a JSON body.
  const HttpReply malformed = send_raw(port_, "GARBAGE\r\n\r\n");
  EXPECT_GE(malformed.status, 400);
  EXPECT_EQ(malformed.header("x-content-type-options"), "nosniff");
}

TEST_F(ServerTest, TheReportIsServedSandboxedUnderItsOwnPolicyOrANoteHowToMakeIt) {
  const json none = get_json("/report", 404);
  EXPECT_NE(none["error"].get<std::string>().find("parley report"), std::string::npos);
  std::ofstream(run_ / "report.html")
      << "<html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "script-src 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='\"></head><body>plots</body></html>";
  const HttpReply report = get("/report");
  EXPECT_EQ(report.status, 200);
  EXPECT_EQ(report.header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(report.body.find("plots"), std::string::npos);
  EXPECT_EQ(report.headers.count("content-security-policy"), 1u);
  EXPECT_EQ(report.header("content-security-policy"),
            "default-src 'none'; script-src 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; sandbox allow-scripts; frame-ancestors 'self'");
  EXPECT_EQ(report.header("x-content-type-options"), "nosniff");
  // A report.html that is a link out of the run is not served.
  std::filesystem::remove(run_ / "report.html");
  std::filesystem::create_symlink(root_ / "secret.txt", run_ / "report.html");
  const HttpReply linked = get("/report");
  EXPECT_EQ(linked.status, 404);
  EXPECT_EQ(linked.body.find("outside the run"), std::string::npos);
}

TEST_F(ServerTest, ManyRequestsAtOnceAreAllAnswered) {
  std::vector<std::thread> clients;
  std::atomic<int> answered{0};
  for (int i = 0; i < 24; ++i) {
    clients.emplace_back([&, i] {
      const HttpReply reply = get(i % 2 ? "/api/debates?sort=tokens&order=desc" : "/api/run");
      if (reply.status == 200 && json::accept(reply.body)) ++answered;
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(answered, 24);
}

TEST_F(ServerTest, StopEndsServeAndAPortInUseIsAnError) {
  auto second = open_viewer(run_, nullptr, test_assets);
  ASSERT_TRUE(second);
  auto taken = (*second)->listen("127.0.0.1", port_);
  ASSERT_FALSE(taken);
  EXPECT_NE(taken.error().message.find("in use"), std::string::npos) << taken.error().message;
  auto nowhere = (*second)->listen("192.0.2.1", 0);  // TEST-NET-1: not this machine's
  ASSERT_FALSE(nowhere);
  EXPECT_NE(nowhere.error().message.find("192.0.2.1"), std::string::npos) << nowhere.error().message;
  (*second)->serve();  // not listening: returns at once
  stop();
  EXPECT_FALSE(serving_.joinable());
  // A stop before serve() begins is not lost.
  auto third = open_viewer(run_, nullptr, test_assets);
  ASSERT_TRUE(third);
  ASSERT_TRUE((*third)->listen("127.0.0.1", 0));
  (*third)->stop();
  (*third)->serve();  // returns: stopped already
}

TEST_F(ServerTest, TheBinarysViewerServesTheFrontEndBuiltIntoIt) {
  auto viewer = Viewer::open(run_);
  ASSERT_TRUE(viewer) << viewer.error().message;
  auto port = (*viewer)->listen("127.0.0.1", 0);
  ASSERT_TRUE(port) << port.error().message;
  std::thread serving([&] { (*viewer)->serve(); });
  for (const char* name : {"viewer.html", "viewer.js", "viewer.css", "chart.js"}) {
    const web::Asset* asset = web::find_asset(name);
    ASSERT_NE(asset, nullptr) << name;
    const std::string target = std::string(name) == "viewer.html" ? "/" : std::string("/assets/") + name;
    const HttpReply reply = send_raw(*port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(*port) +
                                                "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(reply.status, 200) << name;
    EXPECT_EQ(reply.body, asset->content) << name;
    EXPECT_TRUE(reply.header("content-type").starts_with(std::string(asset->mime))) << name;
    EXPECT_EQ(reply.header("content-security-policy"), kContentSecurityPolicy) << name;
  }
  (*viewer)->stop();
  serving.join();
}

TEST(Viewer, WhatIsNotARunIsAnError) {
  auto viewer = Viewer::open(std::filesystem::temp_directory_path() / "parley-no-such-run-dir");
  ASSERT_FALSE(viewer);
  EXPECT_NE(viewer.error().message.find("no such directory"), std::string::npos);
}

}  // namespace
}  // namespace parley::view
