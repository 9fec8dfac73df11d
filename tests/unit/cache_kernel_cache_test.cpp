// Kernel cache module (cache/): hashing, entries, op_cache.ini and environment priority,
// aging, version invalidation, force, corrupt entries, unwritable folders, debug config.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sys/time.h>

#include "cache/entry_file.h"
#include "cache/kernel_cache.h"
#include "cache/sha256.h"
#include "support/diagnostics.h"
#include "tests/unit/test_dirs.h"

using namespace atc::cache;

namespace {

std::string tempDir() { return atc::testdirs::make("cache_test"); }
void writeText(const std::string& p, const std::string& t) { std::ofstream(p) << t; }
bool exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }
void setMtime(const std::string& p, time_t t) {
  struct timeval tv[2] = {{t, 0}, {t, 0}};
  ::utimes(p.c_str(), tv);
}
CacheSettings settings(const std::string& dir, CacheMode m = CacheMode::Enable) {
  CacheSettings s;
  s.mode = m;
  s.dir = dir;
  return s;
}
struct EnvGuard {
  std::string name;
  EnvGuard(const char* n, const char* v) : name(n) {
    if (v) setenv(n, v, 1);
    else unsetenv(n);
  }
  ~EnvGuard() { unsetenv(name.c_str()); }
};

}  // namespace

TEST(CacheSha256, KnownVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string m(1000000, 'a');
  EXPECT_EQ(sha256Hex(m), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 s;  // incremental == one shot
  for (size_t i = 0; i < m.size(); i += 777) s.update(m.data() + i, std::min<size_t>(777, m.size() - i));
  auto d = s.digest();
  EXPECT_EQ(toHex(d.data(), d.size()), sha256Hex(m));
}

TEST(CacheEntry, RoundTripCorruptAndTruncated) {
  std::string d = tempDir(), p = d + "/e.kce";
  std::vector<uint8_t> data(5000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = (uint8_t)(i * 7);
  ASSERT_EQ(writeEntry(p, data), "");
  std::vector<uint8_t> back;
  EXPECT_EQ(readEntry(p, back), ReadResult::Ok);
  EXPECT_EQ(back, data);
  EXPECT_EQ(readEntry(d + "/none.kce", back), ReadResult::Missing);
  {  // flip one payload byte
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x55');
  }
  EXPECT_EQ(readEntry(p, back), ReadResult::Corrupt);
  ASSERT_EQ(writeEntry(p, data), "");
  ASSERT_EQ(::truncate(p.c_str(), 3000), 0);
  EXPECT_EQ(readEntry(p, back), ReadResult::Corrupt);
  ASSERT_EQ(::truncate(p.c_str(), 10), 0);
  EXPECT_EQ(readEntry(p, back), ReadResult::Corrupt);
}

// A payload written in parts reads back as their concatenation; a FIFO planted as an entry is
// refused at once (it used to block the reader forever).
TEST(CacheEntry, PartsAndFifo) {
  std::string d = tempDir(), p = d + "/parts.gce";
  std::string a = "key line\n";
  std::vector<uint8_t> b(3000, 0xab);
  ASSERT_EQ(writeEntry(p, std::vector<EntryPart>{{a.data(), a.size()}, {b.data(), b.size()}}), "");
  std::vector<uint8_t> back, whole(a.begin(), a.end());
  whole.insert(whole.end(), b.begin(), b.end());
  EXPECT_EQ(readEntry(p, back), ReadResult::Ok);
  EXPECT_EQ(back, whole);
  std::string fifo = d + "/fifo.kce";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(readEntry(fifo, back), ReadResult::Corrupt);
}

TEST(CacheDir, Priority) {
  {
    EnvGuard e("ASCEND_CACHE_PATH", "/tmp/from_env");
    EXPECT_EQ(resolveCacheDir("/tmp/from_option"), "/tmp/from_option");
    EXPECT_EQ(resolveCacheDir(""), "/tmp/from_env");
  }
  EnvGuard e("ASCEND_CACHE_PATH", nullptr);
  const char* home = getenv("HOME");
  EXPECT_EQ(resolveCacheDir(""), std::string(home ? home : ".") + "/atc_data");
}

TEST(CacheLimits, IniBeatsEnvBeatsDefault) {
  std::string d = tempDir();
  {
    CacheLimits l = resolveLimits(d);  // creates op_cache.ini with the defaults
    EXPECT_EQ(l.maxSizeMb, 500);
    EXPECT_EQ(l.ratio, 50);
    EXPECT_TRUE(exists(d + "/op_cache.ini"));
  }
  EnvGuard e1("ASCEND_MAX_OP_CACHE_SIZE", "77"), e2("ASCEND_REMAIN_CACHE_SIZE_RATIO", "20");
  EXPECT_EQ(resolveLimits(d).maxSizeMb, 500);  // the ini's values win
  writeText(d + "/op_cache.ini", "[op_compiler_cache]\n");
  EXPECT_EQ(resolveLimits(d).maxSizeMb, 77);  // no ini value: the environment
  EXPECT_EQ(resolveLimits(d).ratio, 20);
  writeText(d + "/op_cache.ini", "[op_compiler_cache]\nmax_op_cache_size=-1\nremain_cache_size_ratio=80\n");
  EXPECT_EQ(resolveLimits(d).maxSizeMb, -1);
  EXPECT_EQ(resolveLimits(d).ratio, 80);
  writeText(d + "/op_cache.ini", "[op_compiler_cache]\nmax_op_cache_size=abc\nremain_cache_size_ratio=0\n");
  EXPECT_EQ(resolveLimits(d).maxSizeMb, 77);  // invalid ini value: warning, next level
  EXPECT_EQ(resolveLimits(d).ratio, 20);
  EnvGuard e3("ASCEND_MAX_OP_CACHE_SIZE", "-5"), e4("ASCEND_REMAIN_CACHE_SIZE_RATIO", "101");
  EXPECT_EQ(resolveLimits(d).maxSizeMb, 500);  // invalid everywhere: the defaults
  EXPECT_EQ(resolveLimits(d).ratio, 50);
}

TEST(CacheLimits, ValueParsing) {
  int64_t s = 0;
  int r = 0;
  EXPECT_TRUE(parseMaxCacheSize("-1", &s));
  EXPECT_TRUE(parseMaxCacheSize(" 1024 ", &s));
  EXPECT_EQ(s, 1024);
  EXPECT_FALSE(parseMaxCacheSize("0", &s));
  EXPECT_FALSE(parseMaxCacheSize("1.5", &s));
  EXPECT_FALSE(parseMaxCacheSize("-2", &s));
  EXPECT_TRUE(parseRemainRatio("1", &r));
  EXPECT_TRUE(parseRemainRatio("100", &r));
  EXPECT_FALSE(parseRemainRatio("0", &r));
  EXPECT_FALSE(parseRemainRatio("101", &r));
  EXPECT_FALSE(parseRemainRatio("x", &r));
}

TEST(KernelCache, HitMissStoreAndCorruptEntry) {
  std::string d = tempDir();
  KernelCache kc(settings(d), "tgt", "v1");
  ASSERT_TRUE(kc.usable());
  EXPECT_TRUE(exists(d + "/kernel_cache/op_cache.ini"));
  std::vector<uint8_t> obj = {1, 2, 3, 4}, back;
  EXPECT_FALSE(kc.load("k1", back));
  kc.store("k1", obj);
  EXPECT_TRUE(kc.load("k1", back));
  EXPECT_EQ(back, obj);
  std::string p = d + "/kernel_cache/tgt/k1.kce";
  ASSERT_EQ(::truncate(p.c_str(), 20), 0);
  EXPECT_FALSE(kc.load("k1", back));  // corrupt: warned about and removed
  EXPECT_FALSE(exists(p));
  kc.store("k1", obj);
  EXPECT_TRUE(kc.load("k1", back));
}

TEST(KernelCache, VersionChangeInvalidatesTarget) {
  std::string d = tempDir();
  std::vector<uint8_t> obj = {9}, back;
  { KernelCache kc(settings(d), "tgt", "v1"); kc.store("k", obj); }
  { KernelCache kc(settings(d), "other", "v1"); kc.store("k", obj); }
  { KernelCache kc(settings(d), "tgt", "v1"); EXPECT_TRUE(kc.load("k", back)); }
  {
    KernelCache kc(settings(d), "tgt", "v2");
    EXPECT_FALSE(kc.load("k", back));
  }
  { KernelCache kc(settings(d), "other", "v1"); EXPECT_TRUE(kc.load("k", back)); }  // other target kept
  std::ifstream f(d + "/kernel_cache/op_cache.ini");
  std::string ini((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(ini.find("tgt=v2|tgt"), std::string::npos) << ini;
  EXPECT_NE(ini.find("max_op_cache_size=500"), std::string::npos) << ini;
}

TEST(KernelCache, ForceWipesOnlyThisTarget) {
  std::string d = tempDir();
  std::vector<uint8_t> obj = {9}, back;
  { KernelCache kc(settings(d), "a", "v"); kc.store("k", obj); }
  { KernelCache kc(settings(d), "b", "v"); kc.store("k", obj); }
  { KernelCache kc(settings(d, CacheMode::Force), "a", "v"); EXPECT_FALSE(kc.load("k", back)); kc.store("k", obj); }
  { KernelCache kc(settings(d), "a", "v"); EXPECT_TRUE(kc.load("k", back)); }
  { KernelCache kc(settings(d), "b", "v"); EXPECT_TRUE(kc.load("k", back)); }
}

TEST(KernelCache, DisableAndUnwritable) {
  std::string d = tempDir();
  { KernelCache kc(settings(d, CacheMode::Disable), "a", "v"); EXPECT_FALSE(kc.usable()); }
  EXPECT_FALSE(exists(d + "/kernel_cache"));
  // A path through a regular file can never be created, even by root.
  writeText(d + "/file", "x");
  KernelCache kc(settings(d + "/file/sub"), "a", "v");
  EXPECT_FALSE(kc.usable());
  std::vector<uint8_t> back;
  EXPECT_FALSE(kc.load("k", back));
  kc.store("k", {1});  // no effect, no throw
}

TEST(KernelCache, MissingFolderIsCreated) {
  std::string d = tempDir() + "/a/b/c";
  KernelCache kc(settings(d), "t", "v");
  EXPECT_TRUE(kc.usable());
  EXPECT_TRUE(exists(d + "/kernel_cache/t"));
}

TEST(KernelCacheAging, LeastRecentlyUsedOldEntriesGo) {
  std::string d = tempDir(), kc = d + "/kernel_cache";
  ASSERT_EQ(makeDirs(kc + "/t1"), "");
  ASSERT_EQ(makeDirs(kc + "/t2"), "");
  time_t now = ::time(nullptr);
  std::vector<uint8_t> kb(1000);
  // 10 entries of ~1 KB: e0 oldest ... e7 older than 30 min; e8, e9 recent.
  for (int i = 0; i < 10; ++i) {
    std::string p = kc + (i % 2 ? "/t1/" : "/t2/") + "e" + std::to_string(i) + ".kce";
    ASSERT_EQ(writeEntry(p, kb), "");
    setMtime(p, i < 8 ? now - 3600 * 10 + i * 60 : now - 60);
  }
  int64_t entry = 1000 + 48;
  // Under the limit: nothing goes.
  EXPECT_EQ(ageEntries(kc, entry * 10, 50, KernelCache::kAgeSeconds, now), 0u);
  // Limit 8 entries, keep 50%: 4 entries stay, the oldest go first.
  EXPECT_EQ(ageEntries(kc, entry * 8, 50, KernelCache::kAgeSeconds, now), 6u);
  EXPECT_FALSE(exists(kc + "/t2/e0.kce"));
  EXPECT_FALSE(exists(kc + "/t1/e5.kce"));
  EXPECT_TRUE(exists(kc + "/t2/e6.kce"));
  EXPECT_TRUE(exists(kc + "/t1/e9.kce"));
  // Recent entries are never aged, even when the goal is not met.
  EXPECT_EQ(ageEntries(kc, 1, 1, KernelCache::kAgeSeconds, now), 2u);
  EXPECT_TRUE(exists(kc + "/t2/e8.kce"));
  EXPECT_TRUE(exists(kc + "/t1/e9.kce"));
}

TEST(KernelCacheAging, LoadRefreshesLastUseUnlessAgingOff) {
  std::string d = tempDir();
  std::vector<uint8_t> back;
  time_t old = ::time(nullptr) - 7200;
  {
    KernelCache kc(settings(d), "t", "v");
    kc.store("k", {1, 2});
    std::string p = d + "/kernel_cache/t/k.kce";
    setMtime(p, old);
    ASSERT_TRUE(kc.load("k", back));
    struct stat st;
    ::stat(p.c_str(), &st);
    EXPECT_GT(st.st_mtime, old + 3600);
  }
  {  // keep the recorded versions (an op_cache.ini without them invalidates the entries)
    std::ifstream f(d + "/kernel_cache/op_cache.ini");
    std::string ini((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ini.replace(ini.find("max_op_cache_size=500"), 21, "max_op_cache_size=-1");
    writeText(d + "/kernel_cache/op_cache.ini", ini);
  }
  KernelCache kc(settings(d), "t", "v");
  EXPECT_EQ(kc.limits().maxSizeMb, -1);
  std::string p = d + "/kernel_cache/t/k.kce";
  setMtime(p, old);
  ASSERT_TRUE(kc.load("k", back));
  struct stat st;
  ::stat(p.c_str(), &st);
  EXPECT_EQ(st.st_mtime, old);
}

TEST(OpDebugConfig, ParseAndMatch) {
  std::string d = tempDir();
  writeText(d + "/a.cfg", "# comment\nop_debug_config = ccec_g,oom\nop_debug_list=GatherV2, opType::ReduceSum\n");
  OpDebugConfig c = parseOpDebugConfig(d + "/a.cfg");
  EXPECT_TRUE(c.hasList);
  EXPECT_EQ(c.options.size(), 2u);
  EXPECT_TRUE(debugListMatches(c.list, "GatherV2", "Gather"));
  EXPECT_TRUE(debugListMatches(c.list, "n1", "ReduceSum"));
  EXPECT_FALSE(debugListMatches(c.list, "ReduceSum", "Relu"));
  writeText(d + "/b.cfg", "op_debug_config = oom\n");
  EXPECT_FALSE(parseOpDebugConfig(d + "/b.cfg").hasList);
  writeText(d + "/c.cfg", "op_debug_config = bogus\n");
  EXPECT_THROW(parseOpDebugConfig(d + "/c.cfg"), atc::AtcError);
  writeText(d + "/e.cfg", "op_debug_list = X\n");
  EXPECT_THROW(parseOpDebugConfig(d + "/e.cfg"), atc::AtcError);
  EXPECT_THROW(parseOpDebugConfig(d + "/missing.cfg"), atc::AtcError);
}
