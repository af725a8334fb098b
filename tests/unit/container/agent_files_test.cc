#include "container/agent_files.h"

#include <gtest/gtest.h>

namespace muster::container {
namespace {

// /proc/self/maps of the agent on Debian 12 (glibc 2.36), trimmed.
constexpr const char* kDebian12 =
    "55d0c2a00000-55d0c2a3e000 r--p 00000000 08:01 1835060                    /root/.cache/muster/3e98/muster\n"
    "55d0c2a3e000-55d0c2c9b000 r-xp 0003e000 08:01 1835060                    /root/.cache/muster/3e98/muster\n"
    "55d0c3f1a000-55d0c3f3b000 rw-p 00000000 00:00 0                          [heap]\n"
    "7f3a1c000000-7f3a1c028000 r--p 00000000 08:01 1312845                    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f3a1c028000-7f3a1c17d000 r-xp 00028000 08:01 1312845                    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f3a1c200000-7f3a1c210000 r--p 00000000 08:01 1312900                    /usr/lib/x86_64-linux-gnu/libm.so.6\n"
    "7f3a1c300000-7f3a1c400000 r--p 00000000 08:01 1290001                    /usr/lib/locale/C.utf8/LC_CTYPE\n"
    "7f3a1c5f0000-7f3a1c5f2000 r--p 00000000 08:01 1312830                    "
    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
    "7ffd6b1d0000-7ffd6b1f1000 rw-p 00000000 00:00 0                          [stack]\n"
    "7ffd6b1f5000-7ffd6b1f7000 r-xp 00000000 00:00 0                          [vdso]\n";

// glibc 2.31 (Debian 11, Ubuntu 20.04): versioned file names behind the soname symlinks.
constexpr const char* kDebian11 =
    "55d0c2a00000-55d0c2a3e000 r--p 00000000 08:01 11 /home/u/.cache/muster/3e98/muster\n"
    "7f3a1c000000-7f3a1c028000 r--p 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libc-2.31.so\n"
    "7f3a1c200000-7f3a1c210000 r--p 00000000 08:01 13 /usr/lib/x86_64-linux-gnu/libm-2.31.so\n"
    "7f3a1c5f0000-7f3a1c5f2000 r--p 00000000 08:01 14 /usr/lib/x86_64-linux-gnu/ld-2.31.so\n";

TEST(AgentFiles, LoaderAndLibrariesFromMaps) {
  auto files = agent_files_from_maps(kDebian12, "/root/.cache/muster/3e98/muster");
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_EQ(files->executable, "/root/.cache/muster/3e98/muster");
  EXPECT_EQ(files->loader, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
  using Libs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(files->libraries, (Libs{{"libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"},
                                    {"libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6"}}));
}

TEST(AgentFiles, VersionedGlibcFilesGetTheirSonames) {
  auto files = agent_files_from_maps(kDebian11, "/home/u/.cache/muster/3e98/muster");
  ASSERT_TRUE(files);
  EXPECT_EQ(files->loader, "/usr/lib/x86_64-linux-gnu/ld-2.31.so");
  ASSERT_EQ(files->libraries.size(), 2u);
  EXPECT_EQ(files->libraries[0].first, "libc.so.6");
  EXPECT_EQ(files->libraries[1].first, "libm.so.6");
}

TEST(AgentFiles, NoLoaderIsAnError) {
  EXPECT_FALSE(agent_files_from_maps("55d0-55d1 r--p 0 08:01 1 /m\n", "/m"));
}

TEST(AgentFiles, ThisProcessHasALoaderAndLibc) {
  auto files = this_agent_files();
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_FALSE(files->loader.empty());
  bool libc = false;
  for (const auto& [name, path] : files->libraries) libc = libc || name == "libc.so.6";
  EXPECT_TRUE(libc);
}

}  // namespace
}  // namespace muster::container
