// The operator libraries plugin: where it is looked for, what a failed load says, and that the
// build's own plugin hands over a complete, working table.
#include "ops/common/op_libs.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

namespace vt::ops {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(OpLibsTest, EnvironmentNamesTheOnlyCandidate) {
  ::setenv("VTENSOR_OPLIBS", "/opt/x/libvtensor-oplibs.so", 1);
  const std::vector<std::string> paths = OpLibsCandidates();
  ::unsetenv("VTENSOR_OPLIBS");
  EXPECT_EQ(paths, std::vector<std::string>{"/opt/x/libvtensor-oplibs.so"});
}

TEST(OpLibsTest, CandidatesAreBesideTheProgramThenTheInstalledLibraryDirectory) {
  const std::vector<std::string> paths = OpLibsCandidates();
  ASSERT_GE(paths.size(), 4u);
  for (const std::string& p : paths) EXPECT_TRUE(EndsWith(p, "/libvtensor-oplibs.so")) << p;
  EXPECT_TRUE(EndsWith(paths[1], "/lib/libvtensor-oplibs.so")) << paths[1];
  EXPECT_TRUE(EndsWith(paths[2], "/../lib/libvtensor-oplibs.so")) << paths[2];
  EXPECT_EQ(paths.back(), std::string(VT_OPLIBS_INSTALL_DIR) + "/libvtensor-oplibs.so");
}

TEST(OpLibsTest, MissingPluginIsAnErrorNamingTheOperatorAndEveryPath) {
  Expected<const OpLibs*> r =
      LoadOpLibsFrom({"/nonexistent/a/libvtensor-oplibs.so", "/nonexistent/b/libvtensor-oplibs.so"},
                     "ImageDecoder");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  const std::string m = r.status().message();
  EXPECT_NE(m.find("ImageDecoder needs"), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent/a/libvtensor-oplibs.so: "), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent/b/libvtensor-oplibs.so: "), std::string::npos) << m;
}

TEST(OpLibsTest, LibraryWithoutTheEntryIsRefused) {
  Expected<const OpLibs*> r = LoadOpLibsFrom({"libm.so.6"}, "RegexFullMatch");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("libm.so.6: has no vt_oplibs_table"), std::string::npos)
      << r.status().message();
}

// The build places the plugin in lib/ beside the test programs.
TEST(OpLibsTest, BuildPluginHandsOverEveryFunction) {
  Expected<const OpLibs*> r = LoadOpLibs("test");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const OpLibs& t = **r;
  for (auto* f : {t.decode_png, t.decode_jpeg, t.decode_tiff, t.decode_webp, t.decode_jpeg2000,
                  t.decode_bmp, t.decode_pnm})
    EXPECT_NE(f, nullptr);
  ASSERT_NE(t.regex_compile, nullptr);
  ASSERT_NE(t.regex_full_match, nullptr);
  ASSERT_NE(t.regex_free, nullptr);
  std::string error;
  void* re = t.regex_compile("a+b", &error);
  ASSERT_NE(re, nullptr) << error;
  EXPECT_TRUE(t.regex_full_match(re, "aab"));
  EXPECT_FALSE(t.regex_full_match(re, "aabc")) << "the whole string must match";
  t.regex_free(re);
  EXPECT_EQ(t.regex_compile("(ab", &error), nullptr);
  EXPECT_NE(error.find("missing )"), std::string::npos) << error;
  Expected<image::DecodedImage> img = t.decode_png(std::span<const uint8_t>());
  EXPECT_FALSE(img.ok()) << "an empty stream is not a picture";
}

}  // namespace
}  // namespace vt::ops
