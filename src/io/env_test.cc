// Copyright neardup authors. Licensed under Apache-2.0.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "neardup/env.h"
#include "test_util.h"

namespace neardup::io {
namespace {

std::string ReadWhole(Env* env, const std::string& path, Status* status) {
  auto f = env->NewSequentialFile(path);
  if (!f.ok()) {
    *status = f.status();
    return {};
  }
  std::string out;
  char buf[7];
  for (;;) {
    size_t n = 0;
    Status s = f.value()->Read(sizeof buf, buf, &n);
    if (!s.ok()) {
      *status = s;
      return out;
    }
    if (n == 0) break;
    out.append(buf, n);
  }
  *status = Status::OK();
  return out;
}

TEST(PosixEnvTest, WriteReadListRenameRemove) {
  Env* env = Env::Default();
  std::string dir = neardup::testing::MakeTempDir("posix-env");
  ASSERT_TRUE(env->IsDirectory(dir));
  ASSERT_TRUE(env->CreateDirs(dir + "/b/c").ok());
  ASSERT_TRUE(env->CreateDirs(dir + "/a").ok());
  ASSERT_TRUE(env->CreateDirs(dir + "/a").ok());  // made already: fine
  for (const char* name : {"/b/c/z.txt", "/a/y.html", "/b/x.htm", "/top.txt"}) {
    auto w = env->NewWritableFile(dir + name);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE(w.value()->Append(std::string("data of ") + name).ok());
    ASSERT_TRUE(w.value()->Close().ok());
  }
  // A file's name cannot be made a folder, nor a folder under it.
  const Status on_file = env->CreateDirs(dir + "/top.txt");
  EXPECT_FALSE(on_file.ok());
  EXPECT_NE(on_file.message().find("top.txt: Not a directory"), std::string::npos) << on_file.ToString();
  EXPECT_FALSE(env->CreateDirs(dir + "/top.txt/sub").ok());
  auto list = env->ListFilesRecursive(dir);
  ASSERT_TRUE(list.ok());
  std::vector<std::string> want = {dir + "/a/y.html", dir + "/b/c/z.txt", dir + "/b/x.htm",
                                   dir + "/top.txt"};
  EXPECT_EQ(list.value(), want);  // sorted by path bytes

  Status s;
  EXPECT_EQ(ReadWhole(env, dir + "/a/y.html", &s), "data of /a/y.html");
  EXPECT_TRUE(s.ok());
  auto size = env->GetFileSize(dir + "/top.txt");
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size.value(), 16u);
  ASSERT_TRUE(env->RenameFile(dir + "/top.txt", dir + "/moved.txt").ok());
  EXPECT_FALSE(env->FileExists(dir + "/top.txt"));
  EXPECT_TRUE(env->FileExists(dir + "/moved.txt"));
  ASSERT_TRUE(env->RemoveFile(dir + "/moved.txt").ok());
  EXPECT_FALSE(env->FileExists(dir + "/moved.txt"));

  auto missing = env->NewSequentialFile(dir + "/nope");
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_FALSE(env->ListFilesRecursive(dir + "/nope").ok());
  EXPECT_FALSE(env->NewSequentialFile(dir + "/b").ok());  // a folder
  std::filesystem::remove_all(dir);
}

TEST(PosixEnvTest, LargeAppendsAreWrittenInOrder) {
  Env* env = Env::Default();
  std::string dir = neardup::testing::MakeTempDir("posix-env-large");
  auto w = env->NewWritableFile(dir + "/f");
  ASSERT_TRUE(w.ok());
  std::string expect;
  for (int i = 0; i < 50; ++i) {
    std::string piece(static_cast<size_t>(i * 3001 % 100000), static_cast<char>('a' + i % 26));
    expect += piece;
    ASSERT_TRUE(w.value()->Append(piece).ok());
  }
  ASSERT_TRUE(w.value()->Close().ok());
  EXPECT_EQ(neardup::testing::ReadFileOrEmpty(dir + "/f"), expect);
  std::filesystem::remove_all(dir);
}

// Writes `bytes` to `path` and maps it.
std::unique_ptr<MappedFile> WriteAndMap(Env* env, const std::string& path, const std::string& bytes) {
  auto f = env->NewWritableFile(path);
  EXPECT_TRUE(f.ok());
  if (!f.ok()) return nullptr;
  EXPECT_TRUE((*f)->Append(bytes).ok());
  EXPECT_TRUE((*f)->Close().ok());
  auto m = env->MapFile(path);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

// MapFile: the whole file, valid across ReleaseResident (the pages are read
// again); the default (MemEnv) reads it into memory.
TEST(PosixEnvTest, MappedFileSurvivesReleasingItsPages) {
  Env* env = Env::Default();
  const std::string path = testing::MakeTempDir("env-map") + "/words";
  std::string bytes;
  for (int i = 0; i < 300000; ++i) bytes += static_cast<char>('a' + i % 26);
  auto m = WriteAndMap(env, path, bytes);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->data(), bytes);
  m->ReleaseResident();
  EXPECT_EQ(m->data().substr(123457, 5), bytes.substr(123457, 5));
  EXPECT_EQ(m->data(), bytes);
  EXPECT_TRUE(env->MapFile(path + ".missing").status().IsNotFound());
  // An empty file maps to no bytes.
  ASSERT_TRUE(env->NewWritableFile(path + ".empty").value()->Close().ok());
  auto empty = env->MapFile(path + ".empty");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE((*empty)->data().empty());
}

// ReadMany reads what ReadAt reads, request by request: many at once (more
// than one submission's worth, where io_uring takes them), of any length and
// order, on the POSIX file and the default (MemEnv's) alike; a request past
// the end is InvalidArgument.
TEST(PosixEnvTest, ReadManyReadsWhatReadAtReads) {
  std::mt19937_64 rng(7);
  std::string bytes(1 << 20, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  const std::string path = testing::MakeTempDir("env-read-many") + "/records";
  MemEnv mem;
  for (Env* env : {Env::Default(), static_cast<Env*>(&mem)}) {
    auto m = WriteAndMap(env, path, bytes);
    ASSERT_NE(m, nullptr);
    for (size_t count : {size_t{1}, size_t{2}, size_t{63}, size_t{64}, size_t{65}, size_t{300}}) {
      std::vector<MappedFile::ReadRequest> requests(count);
      std::vector<std::string> got(count);
      for (size_t i = 0; i < count; ++i) {
        const size_t n = i % 17 == 0 ? 0 : static_cast<size_t>(rng() % 5000);
        got[i].assign(n, '\x5a');
        requests[i] = {rng() % (bytes.size() - n + 1), n, got[i].data()};
      }
      ASSERT_TRUE(m->ReadMany(requests).ok());
      for (size_t i = 0; i < count; ++i) {
        std::string want(requests[i].n, '\0');
        ASSERT_TRUE(m->ReadAt(requests[i].offset, requests[i].n, want.data()).ok());
        ASSERT_EQ(got[i], want) << "request " << i << " of " << count;
        ASSERT_EQ(got[i], bytes.substr(requests[i].offset, requests[i].n));
      }
    }
    char sink[8];
    const std::vector<MappedFile::ReadRequest> past = {{0, 8, sink}, {bytes.size() - 4, 8, sink}};
    EXPECT_TRUE(m->ReadMany(past).IsInvalidArgument());
  }
}

TEST(MemEnvTest, MapFileReadsTheWholeFile) {
  MemEnv env;
  env.AddFile("f", std::string(100000, 'x') + "end");
  auto m = env.MapFile("f");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)->data().size(), 100003u);
  EXPECT_EQ((*m)->data().substr(100000), "end");
  env.FailReadsAfter("f", 10);
  EXPECT_FALSE(env.MapFile("f").ok());
}

TEST(MemEnvTest, FilesFoldersAndListing) {
  MemEnv env;
  env.AddFile("root/b/2.html", "two");
  env.AddFile("root/a/1.html", "one");
  env.AddFile("root/c.txt", "three");
  env.AddFile("rootx/d.txt", "not below root");
  EXPECT_TRUE(env.IsDirectory("root"));
  EXPECT_TRUE(env.IsDirectory("root/"));
  EXPECT_TRUE(env.IsDirectory("root/a"));
  EXPECT_FALSE(env.IsDirectory("root/c.txt"));
  auto list = env.ListFilesRecursive("root");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list.value(), (std::vector<std::string>{"root/a/1.html", "root/b/2.html", "root/c.txt"}));
  EXPECT_FALSE(env.ListFilesRecursive("nothing").ok());
  ASSERT_TRUE(env.CreateDirs("empty/dir").ok());
  EXPECT_TRUE(env.IsDirectory("empty"));
  auto empty = env.ListFilesRecursive("empty/dir");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().empty());

  Status s;
  EXPECT_EQ(ReadWhole(&env, "root/c.txt", &s), "three");
  EXPECT_TRUE(env.NewSequentialFile("missing").status().IsNotFound());
  auto w = env.NewWritableFile("out/w");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w.value()->Append("abc").ok());
  ASSERT_TRUE(w.value()->Append("def").ok());
  ASSERT_TRUE(w.value()->Close().ok());
  EXPECT_EQ(env.GetContents("out/w").value(), "abcdef");
  EXPECT_EQ(env.GetFileSize("out/w").value(), 6u);
  ASSERT_TRUE(env.RenameFile("out/w", "out/v").ok());
  EXPECT_FALSE(env.FileExists("out/w"));
  ASSERT_TRUE(env.RemoveFile("out/v").ok());
  EXPECT_FALSE(env.FileExists("out/v"));
}

TEST(MemEnvTest, ReaderKeepsSnapshotWhileWriterAppends) {
  MemEnv env;
  auto w = env.NewWritableFile("f");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w.value()->Append("first").ok());
  auto r = env.NewSequentialFile("f");
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(w.value()->Append("second").ok());
  char buf[64];
  size_t n = 0;
  ASSERT_TRUE(r.value()->Read(sizeof buf, buf, &n).ok());
  EXPECT_EQ(std::string(buf, n), "first");
  EXPECT_EQ(env.GetContents("f").value(), "firstsecond");
}

TEST(MemEnvTest, FaultInjection) {
  MemEnv env;
  env.AddFile("f", std::string(100, 'x'));
  env.FailReadsAfter("f", 30);
  env.SetMaxReadChunk(8);
  auto r = env.NewSequentialFile("f");
  ASSERT_TRUE(r.ok());
  char buf[64];
  size_t total = 0;
  Status s;
  for (;;) {
    size_t n = 0;
    s = r.value()->Read(sizeof buf, buf, &n);
    if (!s.ok() || n == 0) break;
    EXPECT_LE(n, 8u);
    total += n;
  }
  EXPECT_EQ(total, 30u);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();

  env.FailWritesAfter("w", 4);
  auto w = env.NewWritableFile("w");
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w.value()->Append("abcd").ok());
  EXPECT_FALSE(w.value()->Append("e").ok());

  env.ClearFaults();
  auto again = env.NewSequentialFile("f");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ReadWhole(&env, "f", &s).size(), 100u);
}

TEST(MemEnvTest, FaultRulesCountMatchingOperations) {
  MemEnv env;
  // The 2nd append under out/ fails, once; nothing is appended by it.
  env.InjectFault({FileOp::kAppend, "out/", 1, 1});
  auto w = env.NewWritableFile("out/a");
  ASSERT_TRUE(w.ok());
  auto other = env.NewWritableFile("elsewhere");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other.value()->Append("x").ok());  // does not match the prefix
  EXPECT_TRUE(w.value()->Append("1").ok());
  const Status s = w.value()->Append("2");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(s.message(), "out/a: injected append fault");
  EXPECT_TRUE(w.value()->Append("3").ok());
  EXPECT_EQ(env.GetContents("out/a").value(), "13");
  EXPECT_EQ(env.faults_injected(), 1u);

  // count == 0: every matching operation fails from the first on.
  env.InjectFault({FileOp::kOpenRead, "out/", 0, 0});
  EXPECT_TRUE(env.NewSequentialFile("out/a").status().IsIOError());
  EXPECT_TRUE(env.NewSequentialFile("out/a").status().IsIOError());
  EXPECT_TRUE(env.NewSequentialFile("elsewhere").ok());
  EXPECT_EQ(env.faults_injected(), 3u);

  // Close, rename (matched on the target too), remove, open-write, read.
  env.ClearFaults();
  env.InjectFault({FileOp::kClose, "out/a", 0, 1});
  EXPECT_TRUE(w.value()->Close().IsIOError());
  env.InjectFault({FileOp::kRename, "final/", 0, 1});
  EXPECT_TRUE(env.RenameFile("out/a", "final/a").IsIOError());
  EXPECT_TRUE(env.FileExists("out/a"));
  EXPECT_FALSE(env.FileExists("final/a"));
  EXPECT_TRUE(env.RenameFile("out/a", "final/a").ok());
  env.InjectFault({FileOp::kRemove, "", 0, 1});
  EXPECT_TRUE(env.RemoveFile("final/a").IsIOError());
  EXPECT_TRUE(env.FileExists("final/a"));
  env.InjectFault({FileOp::kOpenWrite, "new", 0, 1});
  EXPECT_TRUE(env.NewWritableFile("new").status().IsIOError());
  EXPECT_FALSE(env.FileExists("new"));
  env.InjectFault({FileOp::kRead, "final/a", 1, 1});
  auto r = env.NewSequentialFile("final/a");
  ASSERT_TRUE(r.ok());
  char buf[1];
  size_t n = 0;
  EXPECT_TRUE(r.value()->Read(1, buf, &n).ok());
  EXPECT_EQ(n, 1u);
  const Status rs = r.value()->Read(1, buf, &n);
  EXPECT_EQ(rs.message(), "final/a: injected read fault");
  EXPECT_EQ(n, 0u);
  EXPECT_TRUE(r.value()->Read(1, buf, &n).ok());
  EXPECT_EQ(env.AllFiles(), (std::vector<std::string>{"elsewhere", "final/a"}));
  EXPECT_STREQ(FileOpName(FileOp::kOpenWrite), "open-write");
}

}  // namespace
}  // namespace neardup::io
