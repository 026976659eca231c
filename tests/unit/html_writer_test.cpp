#include "report/html_writer.h"

#include <gtest/gtest.h>

#include <string>

#include "hostile_names.h"
#include "report/json_parser.h"
#include "report_fixture.h"

namespace umbra {
namespace {

TEST(HtmlWriter, EmbedsTheTreeSafely) {
  Report r = testing::known_report();
  ReportNode& hot = r.threads[0].roots[0].children[0];
  hot.cpu_samples = hot.self_cpu_samples = r.threads[0].roots[0].cpu_samples = 3;
  r.threads[0].cpu_ns = 2'000'000;
  testing::set_name(r.threads[0].roots[0].children[1], "Evil</script><script>alert(1)");
  std::string page = report_to_html(r);
  EXPECT_EQ(page.find("/*UMBRA_DATA*/"), std::string::npos);
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos) << "a name cannot end the data element";
  EXPECT_NE(page.find("Evil\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"), std::string::npos);
  // The data is flat, in preorder: Main (a root), then Hot and the renamed Tiny under it, then Run on thread 2.
  auto data_at = page.find("<script id=\"umbra-data\" type=\"application/json\">");
  ASSERT_NE(data_at, std::string::npos);
  auto start = page.find('>', data_at) + 1;
  std::string data = page.substr(start, page.find("</script>", start) - start);
  JsonValue doc = parse_json(data);
  const auto& nodes = doc.find("nodes")->as_array();
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].as_array()[0].as_int(), -1);  // a root
  EXPECT_EQ(nodes[1].as_array()[0].as_int(), 0);   // under Main
  EXPECT_EQ(nodes[1].as_array()[4].as_uint(), 10u);  // Hot's calls
  EXPECT_EQ(nodes[3].as_array()[0].as_int(), -1);  // thread 2's root
  const auto& threads = doc.find("threads")->as_array();
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[1].find("first")->as_uint(), 3u);
  // Each row ends with its CPU samples and its own; each thread has its samples, CPU samples and CPU time.
  EXPECT_EQ(nodes[1].as_array().size(), 12u);
  EXPECT_EQ(nodes[1].as_array()[10].as_uint(), 3u);
  EXPECT_EQ(nodes[1].as_array()[11].as_uint(), 3u);
  EXPECT_EQ(threads[0].find("cpu")->as_uint(), 3u);
  EXPECT_EQ(threads[0].find("samples")->as_uint(), 0u);
  EXPECT_EQ(threads[0].find("cpu_ns")->as_int(), 2'000'000);
  EXPECT_EQ(threads[1].find("cpu_ns")->as_int(), -1);  // not read
  EXPECT_EQ(doc.find("strings")->as_array()[doc.find("nodes")->as_array()[2].as_array()[1].as_uint()].as_string(),
            "Evil</script><script>alert(1)");
}

// The data is JSON inside <script>: a "<!--" there would stop the page's script, so it holds no '<' at all.
TEST(HtmlWriter, NamesCannotOpenACommentOrCloseTheData) {
  Report r = testing::known_report();
  r.threads[0].name = "<!--<script>";
  testing::set_name(r.threads[0].roots[0].children[0], "<!--<script>");
  testing::set_name(r.threads[0].roots[0].children[1], "</script> & >");
  std::string page = report_to_html(r);
  const std::string open = "<script id=\"umbra-data\" type=\"application/json\">";
  auto start = page.find(open);
  ASSERT_NE(start, std::string::npos);
  start += open.size();
  std::string data = page.substr(start, page.find("</script>", start) - start);
  EXPECT_EQ(data.find('<'), std::string::npos) << data;
  JsonValue doc = parse_json(data);
  EXPECT_EQ(doc.find("threads")->as_array()[0].find("name")->as_string(), "<!--<script>");
  const auto& strings = doc.find("strings")->as_array();
  EXPECT_NE(std::find_if(strings.begin(), strings.end(),
                         [](const JsonValue& s) { return s.as_string() == "</script> & >"; }),
            strings.end());
}

}  // namespace
}  // namespace umbra
