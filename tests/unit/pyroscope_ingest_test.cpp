#include "profiler/pyroscope_ingest.h"

#include <gtest/gtest.h>

namespace umbra {
namespace {

TEST(PyroscopeIngest, UrlHoldsTheNameWithItsLabelsEncoded) {
  IngestRequest request{"http://pyroscope:4040/", "OrderService", {{"host", "web-1"}, {"pid", "42"}, {"env", "prod"}},
                        1700000000, 1700000060, 100};
  EXPECT_EQ(ingest_url(request),
            "http://pyroscope:4040/ingest?name=OrderService%7Bhost%3Dweb-1%2Cpid%3D42%2Cenv%3Dprod%7D"
            "&from=1700000000&until=1700000060&format=pprof&spyName=umbra&sampleRate=100");
}

TEST(PyroscopeIngest, ALaterLabelReplacesAnEarlierOne) {
  IngestRequest request{"https://p/x", "a", {{"host", "h"}, {"env", "a"}, {"host", "given"}}, 1, 2, 1000};
  EXPECT_NE(ingest_url(request).find("name=a%7Bhost%3Dgiven%2Cenv%3Da%7D"), std::string::npos) << ingest_url(request);
  EXPECT_EQ(ingest_url(request).rfind("https://p/x/ingest?", 0), 0u);
}

TEST(PyroscopeIngest, ProgramNamesBecomeApplicationNames) {
  EXPECT_EQ(application_name_of("OrderService.dll"), "OrderService");
  EXPECT_EQ(application_name_of("csc.exe"), "csc");
  EXPECT_EQ(application_name_of("my app+1"), "my_app_1");
  EXPECT_EQ(application_name_of(""), "dotnet");
  EXPECT_TRUE(is_application_name(application_name_of("Some {odd} name.dll")));
}

TEST(PyroscopeIngest, Labels) {
  std::string bad;
  ASSERT_TRUE(parse_labels("env=prod,region=eu.1,"));
  EXPECT_EQ(parse_labels("env=prod,region=eu.1")->size(), 2u);
  EXPECT_TRUE(parse_labels("")->empty());
  for (const char* text : {"env", "=x", "env=", "1a=b", "e nv=b", "env=a b", "env=a}", "__name__=x"}) {
    EXPECT_FALSE(parse_labels(text, &bad)) << text;
    EXPECT_FALSE(bad.empty()) << text;
  }
  EXPECT_EQ(label_value("host,{x}=y z"), "host__x__y_z");
}

TEST(PyroscopeIngest, UrlsAndCredentials) {
  EXPECT_TRUE(is_push_url("http://localhost:4040"));
  EXPECT_TRUE(is_push_url("https://user:pw@profiles.example/base/"));
  for (const char* url : {"", "localhost:4040", "ftp://x", "http://", "http:///x", "http://h/?q", "http://h#f",
                          "http://h /x", "http://@"})
    EXPECT_FALSE(is_push_url(url)) << url;
  EXPECT_EQ(redacted_url("https://user:pw@profiles.example/base"), "https://***@profiles.example/base");
  EXPECT_EQ(redacted_url("http://h:4040/x@y"), "http://h:4040/x@y");
  EXPECT_EQ(redacted_url("user:pw@profiles.example"), "***@profiles.example");
  EXPECT_EQ(redacted_url("ftp://user:pw@profiles.example"), "ftp://***@profiles.example");
}

}  // namespace
}  // namespace umbra
