// The pure half of the manifest: path safety, temporary names, and the wire form with its checks.
#include "sync/manifest.h"

#include <random>

#include <gtest/gtest.h>

namespace muster::sync {
namespace {

Entry dir(std::string path, uint32_t mode = 0755, int64_t mtime = 1) {
  return Entry{std::move(path), EntryKind::directory, mode, 0, mtime, 0, ""};
}
Entry file(std::string path, uint64_t size = 3, uint64_t hash = 7, uint32_t mode = 0644, int64_t mtime = 2) {
  return Entry{std::move(path), EntryKind::file, mode, size, mtime, hash, ""};
}
Entry link(std::string path, std::string target) {
  uint64_t size = target.size();
  return Entry{std::move(path), EntryKind::symlink, 0777, size, 0, 0, std::move(target)};
}

TEST(SafePath, Relative) {
  for (const char* good : {"a", "a/b", "a.b/c", ".hidden", "..a", "a..", "a/.b/c", "...", "a b/c"}) {
    EXPECT_TRUE(is_safe_relative_path(good)) << good;
  }
  for (const char* bad : {"", "/", "/a", "a/", "a//b", ".", "..", "./a", "a/.", "a/./b", "../a", "a/..",
                          "a/../b"}) {
    EXPECT_FALSE(is_safe_relative_path(bad)) << bad;
  }
  EXPECT_FALSE(is_safe_relative_path(std::string_view("a\0b", 3)));
}

TEST(TempName, RecognizesReceiverTemporaries) {
  EXPECT_TRUE(is_temp_name(".data.bin.muster-tmp-123-4"));
  EXPECT_TRUE(is_temp_name(".x.muster-tmp-99-link"));
  EXPECT_TRUE(is_temp_name("..hidden.muster-tmp-1"));
  EXPECT_FALSE(is_temp_name("data.bin.muster-tmp-1"));  // the receiver always adds the leading '.'
  EXPECT_FALSE(is_temp_name(".muster-tmp-"));
  EXPECT_FALSE(is_temp_name(".data.bin"));
  EXPECT_FALSE(is_temp_name(""));
}

TEST(EntriesWire, RoundTrip) {
  std::vector<Entry> entries{dir("a"),
                             file("a/b", 1ull << 40, 0xdeadbeefcafef00dull, 0755, -5),
                             link("a/c", "b"),
                             file("a/d\xff", 0, 0),
                             dir("a/e", 07777, std::numeric_limits<int64_t>::max()),
                             link("z", "a/e/../b")};
  auto bytes = encode_entries(entries);
  auto back = decode_entries(bytes);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, entries);
  EXPECT_EQ(encode_entries(*back), bytes);
  EXPECT_TRUE(encode_entries({}).empty());
  EXPECT_TRUE(decode_entries("")->empty());
}

TEST(EntriesWire, ExactLayout) {
  auto bytes = encode_entries({file("ab", 5, 9, 0644, 3)});
  std::string expected("\x02\x02\x00\x00\x00" "ab" "\xa4\x01\x00\x00"
                       "\x05\x00\x00\x00\x00\x00\x00\x00" "\x03\x00\x00\x00\x00\x00\x00\x00"
                       "\x09\x00\x00\x00\x00\x00\x00\x00" "\x00\x00\x00\x00", 39);
  EXPECT_EQ(bytes, expected);
}

void expect_rejected(const std::vector<Entry>& entries, const std::string& words) {
  auto decoded = decode_entries(encode_entries(entries));
  ASSERT_FALSE(decoded) << words;
  EXPECT_EQ(decoded.error().kind, ErrorKind::protocol);
  EXPECT_NE(decoded.error().message.find(words), std::string::npos) << decoded.error().message;
}

TEST(EntriesWire, RejectsUnsafeAndDisorderly) {
  expect_rejected({file("../etc/passwd")}, "'../etc/passwd': unsafe path");
  expect_rejected({file("/abs")}, "'/abs': unsafe path");
  expect_rejected({file("a//b")}, "unsafe path");
  expect_rejected({file("")}, "unsafe path");
  expect_rejected({file("b"), file("a")}, "'a': path out of order");
  expect_rejected({file("a"), file("a")}, "'a': duplicate path");
  Entry hard = file("b");
  hard.kind = EntryKind::hardlink;
  hard.target = "c";  // must name an earlier path
  expect_rejected({hard}, "no earlier path");
  hard.target = "../a";
  expect_rejected({hard}, "no earlier path");
  Entry copy = file("b");
  copy.kind = EntryKind::copy;
  copy.target = "b";
  expect_rejected({copy}, "no other path");
  copy.target = "/etc/passwd";
  expect_rejected({copy}, "no other path");
  expect_rejected({link("l", "")}, "empty or invalid link target");
  expect_rejected({file("f", 1, 1, 010644)}, "mode");
  Entry target_on_file = file("f");
  target_on_file.target = "x";
  expect_rejected({target_on_file}, "no link");
}

TEST(EntriesWire, LinksMayPointAnywhereHardLinksAndCopiesStayInside) {
  // Where a symbolic link points is the head's decision (sync/links.h); a node never follows one.
  Entry hard = file("z", 3, 7);
  hard.kind = EntryKind::hardlink;
  hard.target = "a";
  Entry copy = file("y", 3, 7);
  copy.kind = EntryKind::copy;
  copy.target = "a";
  std::vector<Entry> entries{file("a", 3, 7), link("lib", "/usr/lib"), link("up", "../x"), copy, hard};
  auto any = decode_entries(encode_entries(entries));
  ASSERT_TRUE(any) << any.error().message;
  EXPECT_EQ(*any, entries);
  EXPECT_FALSE(decode_entries(encode_entries({link("../lib", "x")})));  // paths are checked all the same
}

TEST(EntriesWire, RejectsUnknownKindAndTrailingBytes) {
  auto bytes = encode_entries({file("a")});
  std::string bad_kind = bytes;
  bad_kind[0] = 9;
  auto decoded = decode_entries(bad_kind);
  ASSERT_FALSE(decoded);
  EXPECT_NE(decoded.error().message.find("unknown kind 9"), std::string::npos) << decoded.error().message;
  bad_kind[0] = 6;
  EXPECT_FALSE(decode_entries(bad_kind));
  bad_kind[0] = 0;
  EXPECT_FALSE(decode_entries(bad_kind));
  EXPECT_FALSE(decode_entries(bytes + "x"));
  EXPECT_FALSE(decode_entries(bytes + bytes));  // the same path twice
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(decode_entries(bytes.substr(0, cut))) << cut;
  }
}

TEST(EntriesWire, RandomAndMutatedBytesNeverCrash) {
  std::mt19937_64 random(12345);
  std::vector<Entry> entries{dir("a"), file("a/b"), link("a/c", "b"), file("d", 10, 11)};
  std::string valid = encode_entries(entries);
  size_t accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes;
    if (round % 2 == 0) {
      bytes.resize(random() % 96);
      for (auto& c : bytes) c = static_cast<char>(random());
    } else {
      bytes = valid;
      for (int flips = 1 + static_cast<int>(random() % 4); flips > 0; --flips) {
        bytes[random() % bytes.size()] = static_cast<char>(random());
      }
      if (random() % 3 == 0) bytes.resize(random() % bytes.size());
    }
    auto decoded = decode_entries(bytes);
    if (decoded) {
      ++accepted;
      EXPECT_EQ(encode_entries(*decoded), bytes);  // whatever decodes is canonical
      for (const auto& entry : *decoded) EXPECT_TRUE(is_safe_relative_path(entry.path));
    }
  }
  EXPECT_GT(accepted, 0u);
}

}  // namespace
}  // namespace muster::sync
