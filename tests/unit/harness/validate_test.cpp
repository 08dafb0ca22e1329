#include "harness/check/validate.hpp"

#include <gtest/gtest.h>

namespace ringside::harness {
namespace {

constexpr const char* kDate = "Sun, 06 Nov 1994 08:49:37 GMT";

HttpResponse response(int status, std::string type, std::string body) {
  HttpResponse r;
  r.status = status;
  r.framing = Framing::kContentLength;
  r.headers = {{"Date", kDate}, {"Content-Type", std::move(type)}};
  r.body = std::move(body);
  return r;
}

TEST(ExpectationFor, KnowsEachRoutesAnswer) {
  EXPECT_EQ(expectation_for("/").body, "Hello World!");
  EXPECT_EQ(expectation_for("/").content_type, "text/plain");
  EXPECT_TRUE(expectation_for("/json").json);
  const Expectation user = expectation_for("/users/1");
  EXPECT_EQ(user.status, 200);
  EXPECT_EQ(user.body,
            R"({"created_at":"2024-01-01T00:00:01Z","email":"user1@example.com","id":1,"name":"User 1"})");
  EXPECT_EQ(expectation_for("/users/10000").status, 200);
  EXPECT_NE(expectation_for("/users/3661").body.find("2024-01-01T01:01:01Z"), std::string::npos);
  EXPECT_EQ(expectation_for("/users/10001").status, 404);
  EXPECT_EQ(expectation_for("/users/abc").status, 400);
  EXPECT_EQ(expectation_for("/users/0").status, 400);
  EXPECT_EQ(expectation_for("/users/-1").status, 400);
}

TEST(JudgeResponse, AcceptsARightAnswerWhateverItsJsonLayout) {
  EXPECT_EQ(judge_response(response(200, "text/plain; charset=utf-8", "Hello World!"),
                           expectation_for("/")),
            "");
  EXPECT_EQ(judge_response(response(200, "Application/JSON", "{ \"message\" : \"Hello, World!\" }\n"),
                           expectation_for("/json")),
            "");
  EXPECT_EQ(judge_response(response(200, "application/json",
                                    R"({"id":1,"name":"User 1","email":"user1@example.com",)"
                                    R"("created_at":"2024-01-01T00:00:01Z"})"),
                           expectation_for("/users/1")),
            "");
  HttpResponse chunked = response(404, "", R"({"error":"no such user"})");
  chunked.headers.pop_back();
  chunked.framing = Framing::kChunked;
  EXPECT_EQ(judge_response(chunked, expectation_for("/users/10001")), "");
}

TEST(JudgeResponse, UserIdsFollowTheContract) {
  EXPECT_EQ(expectation_for("/users/10000").status, 200);
  for (const char* path : {"/users/10001", "/users/2147483648", "/users/9223372036854775807"}) {
    EXPECT_EQ(expectation_for(path).status, 404) << path;
  }
  for (const char* path : {"/users/9223372036854775808", "/users/0", "/users/-1", "/users/01",
                           "/users/abc", "/users/1x", "/users/"}) {
    EXPECT_EQ(expectation_for(path).status, 400) << path;
  }
  EXPECT_EQ(judge_response(response(404, "application/json", "not found"),
                           expectation_for("/users/10001")),
            "body 'not found' is not a JSON object with \"error\"");
}

TEST(JudgeResponse, DbAnswersOneWorldRow) {
  const Expectation db = expectation_for("/db");
  EXPECT_EQ(db.status, 200);
  EXPECT_EQ(judge_response(response(200, "application/json", R"({"id":4174,"randomNumber":331})"), db),
            "");
  for (const char* body : {R"({"id":0,"randomNumber":331})", R"({"id":4174,"randomNumber":10001})",
                           R"({"id":"4174","randomNumber":331})", R"([{"id":1,"randomNumber":1}])",
                           R"({"id":4174})", "Hello World!"}) {
    EXPECT_NE(judge_response(response(200, "application/json", body), db).find("is not a World row"),
              std::string::npos)
        << body;
  }
  EXPECT_EQ(judge_response(response(404, "text/plain", "no route"), db), "status 404 (expected 200)");
}

TEST(JudgeResponse, NamesWhatIsWrong) {
  struct Case {
    HttpResponse response;
    const char* path;
    const char* reason;
  };
  HttpResponse no_date = response(200, "text/plain", "Hello World!");
  no_date.headers.erase(no_date.headers.begin());
  HttpResponse bad_date = response(200, "text/plain", "Hello World!");
  bad_date.headers[0].second = "1994-11-06T08:49:37Z";
  HttpResponse until_close = response(200, "text/plain", "Hello World!");
  until_close.framing = Framing::kUntilClose;
  HttpResponse no_type = response(200, "", "Hello World!");
  no_type.headers.pop_back();
  const Case cases[] = {
      {response(500, "text/plain", "Hello World!"), "/", "status 500 (expected 200)"},
      {response(200, "text/plain", "Hello World"), "/",
       "body 'Hello World' (expected 'Hello World!')"},
      {response(200, "text/html", "Hello World!"), "/",
       "Content-Type 'text/html' (expected text/plain)"},
      {no_type, "/", "no Content-Type (expected text/plain)"},
      {no_date, "/", "no Date header"},
      {bad_date, "/", "Date header '1994-11-06T08:49:37Z' is not an IMF-fixdate"},
      {until_close, "/", "no Content-Length and not chunked: the body runs until close"},
      {response(200, "application/json", "{\"message\":\"Hello World\"}"), "/json",
       "body '{\"message\":\"Hello World\"}' (expected '{\"message\":\"Hello, World!\"}')"},
      {response(200, "application/json", "message"), "/json", "body 'message' is not JSON"},
      {response(200, "application/json", R"({"id":"1","name":"User 1","email":"user1@example.com","created_at":"2024-01-01T00:00:01Z"})"),
       "/users/1", "body '{\"id\":\"1\""},
      {response(200, "application/json", "{}"), "/users/0", "status 200 (expected 400)"},
      {response(400, "text/plain", ""), "/users/10001", "status 400 (expected 404)"},
  };
  for (const Case& c : cases) {
    const std::string reason = judge_response(c.response, expectation_for(c.path));
    EXPECT_EQ(reason.rfind(c.reason, 0), 0u) << c.path << ": " << reason;
  }
}

// A PASS line names the checks that ran, the ids of /users/:id counted rather than listed.
TEST(DescribeChecks, NamesTheChecksThatRanInOrder) {
  std::vector<Check> checks;
  for (const char* name : {"GET /", "GET /json", "GET /users/1", "GET /users/4242", "GET /users/abc",
                           "keep-alive x100", "pipelined x16", "split request"}) {
    checks.push_back({name, true, {}});
  }
  EXPECT_EQ(describe_checks(checks), "GET /, GET /json, GET /users/:id x3, keep-alive x100, "
                                     "pipelined x16, split request");
  checks.erase(checks.begin() + 2, checks.begin() + 5);  // database = "none": no /users/:id
  checks.erase(checks.begin() + 3);                       // pipelining = false
  checks.push_back({"listens on 127.0.0.2 only", true, {}});
  EXPECT_EQ(describe_checks(checks), "GET /, GET /json, keep-alive x100, split request, "
                                     "listens on 127.0.0.2 only");
  EXPECT_EQ(describe_checks({}), "");
}

}  // namespace
}  // namespace ringside::harness
