// A tune's cache keeps each point as it is measured, so a tune killed or run again measures no
// point twice; a cache of another kernel, GPU, driver or source, or one damaged, is refused in one
// line naming the file and the line, and opening never changes the file.

#include "base/error.h"
#include "base/file_output.h"
#include "model/kernel_request.h"
#include "model/model_kernel.h"
#include "protocol/run_result_json.h"
#include "test_support.h"
#include "tune/tune_cache.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace wl {
namespace {

namespace fs = std::filesystem;

// A folder of the running test's own, removed when the test ends.
struct CacheScratch {
  fs::path dir;
  CacheScratch() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::path(::testing::TempDir()) /
          ("warplens-tune-cache-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~CacheScratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  CacheScratch(const CacheScratch&) = delete;
  CacheScratch& operator=(const CacheScratch&) = delete;
};

TuneCacheIdentity cache_identity() {
  TuneCacheIdentity identity;
  identity.kernel = "vec_add/scalar";
  identity.source_hash = "fnv1a64:0123456789abcdef";
  identity.device = "NVIDIA H200 (GPU-1b2c3d4e)";
  identity.driver = "580.159.04";
  identity.measure = "timing";
  return identity;
}

// A measured point of vec_add/scalar with block `block`, its median `scale` times that of 1 TB/s.
CachedPoint cache_measured(const std::string& block, double scale) {
  RunResult r =
      model_kernel(resolve_kernel_request("vec_add/scalar", {}, "", block), test::preset("h100"));
  const double median = r.bytes_moved * 1e-9 * scale; // ms
  TimingStats timing;
  timing.samples = 40;
  timing.median_time = median;
  timing.min_time = median * 0.95;
  timing.max_time = median * 1.2;
  timing.mean_time = median * 1.01;
  timing.noise = 0.01;
  timing.converged = true;
  timing.seconds = 0.5;
  r.timing = timing;
  Verification verification;
  verification.passed = true;
  verification.checked = 1000;
  r.verification = verification;
  CachedPoint point;
  point.key = "block " + block + "x1x1";
  point.result = r;
  return point;
}

CachedPoint cache_refused(const std::string& key, const std::string& why) {
  CachedPoint point;
  point.key = key;
  point.refused = why;
  return point;
}

std::string cache_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> cache_lines(const fs::path& file) {
  std::vector<std::string> lines;
  std::istringstream in(cache_bytes(file));
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

void cache_write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

// A cache's lines as open() reads them: its header and a measured point.
std::vector<std::string> cache_good_lines(const fs::path& dir) {
  const fs::path file = dir / "good.jsonl";
  TuneCache::open(file, cache_identity()).append(cache_measured("256", 1));
  return cache_lines(file);
}

std::string cache_joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += line + "\n";
  return text;
}

// The line as JSON, changed by `change`, back as one line.
template <class Change> std::string cache_changed(const std::string& line, Change change) {
  nlohmann::json json = nlohmann::json::parse(line);
  change(json);
  return json.dump();
}

// What shows that a file was left as it was: its bytes, or where they are too many to read in a
// test, its size and time.
std::string cache_state(const fs::path& file) {
  if (!fs::is_regular_file(fs::symlink_status(file)))
    return "";
  if (fs::file_size(file) > (std::uintmax_t{1} << 20))
    return std::to_string(fs::file_size(file)) + " bytes, written at " +
           std::to_string(fs::last_write_time(file).time_since_epoch().count());
  return cache_bytes(file);
}

// The message open() refuses `file` with: one line naming the file, the file left as it was.
std::string cache_refusal(const fs::path& file, const TuneCacheIdentity& identity) {
  const std::string before = cache_state(file);
  std::string message;
  try {
    TuneCache::open(file, identity);
    ADD_FAILURE() << file << " opened";
  } catch (const UsageError& e) {
    message = e.what();
  }
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_TRUE(test::contains(message, file.filename().string())) << message;
  EXPECT_LE(message.size(), 420u) << message;
  EXPECT_EQ(cache_state(file), before) << "opening changed " << file;
  return message;
}

std::string cache_refusal_of(const fs::path& file, const std::string& text) {
  cache_write(file, text);
  return cache_refusal(file, cache_identity());
}

TEST(TuneCache, AFreshFileStartsWithTheIdentityLineAlone) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const TuneCache cache = TuneCache::open(file, cache_identity());
  EXPECT_TRUE(cache.points().empty());
  EXPECT_EQ(cache.file(), file);
  EXPECT_EQ(cache_bytes(file),
            "{\"warplens_tune_cache\": 1, \"kernel\": \"vec_add/scalar\", \"source_hash\": "
            "\"fnv1a64:0123456789abcdef\", \"device\": \"NVIDIA H200 (GPU-1b2c3d4e)\", "
            "\"driver\": \"580.159.04\", \"measure\": \"timing\"}\n");
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::others_write, fs::perms::none);
}

TEST(TuneCache, PointsComeBackInTheFilesOrderAfterReopening) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const std::vector<CachedPoint> points = {cache_measured("128", 1.5),
                                           cache_refused("block 2048x1x1", "over 1024 threads"),
                                           cache_measured("512", 2)};
  {
    TuneCache cache = TuneCache::open(file, cache_identity());
    for (const CachedPoint& point : points)
      cache.append(point);
    EXPECT_EQ(cache.points().size(), 3u);
  } // its tune ended: the file's lock is let go
  const TuneCache again = TuneCache::open(file, cache_identity());
  ASSERT_EQ(again.points().size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const CachedPoint* found = again.find(points[i].key);
    ASSERT_NE(found, nullptr) << points[i].key;
    EXPECT_EQ(found, &again.points()[i]) << "in the file's order";
    EXPECT_EQ(found->refused, points[i].refused);
    ASSERT_EQ(found->result.has_value(), points[i].result.has_value()) << points[i].key;
    if (found->result) {
      EXPECT_EQ(found->result->timing->median_time, points[i].result->timing->median_time);
      EXPECT_EQ(found->result->launch.block, points[i].result->launch.block);
      EXPECT_EQ(found->result->params, points[i].result->params);
    }
  }
  EXPECT_EQ(again.find("block 64x1x1"), nullptr);
}

TEST(TuneCache, AKilledTuneLeavesWholeLinesAndResumes) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  {
    TuneCache first = TuneCache::open(file, cache_identity());
    first.append(cache_measured("128", 1));
    first.append(cache_refused("block 2048x1x1", "over 1024 threads"));
  } // killed here: nothing more was written
  const std::string text = cache_bytes(file);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  for (const std::string& line : cache_lines(file))
    EXPECT_TRUE(nlohmann::json::parse(line).is_object()) << line;
  {
    TuneCache resumed = TuneCache::open(file, cache_identity());
    EXPECT_NE(resumed.find("block 128x1x1"), nullptr);
    EXPECT_NE(resumed.find("block 2048x1x1"), nullptr);
    resumed.append(cache_measured("256", 1));
    EXPECT_EQ(cache_lines(file).size(), 4u);
  }
  EXPECT_EQ(TuneCache::open(file, cache_identity()).points().size(), 3u);
}

// Two tunes on one cache (two terminals) would append the same points: the second is refused
// while the first holds the file, and opens once it has ended.
TEST(TuneCache, ASecondTuneOnTheSameCacheIsRefusedWhileTheFirstHoldsIt) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  {
    TuneCache first = TuneCache::open(file, cache_identity());
    first.append(cache_measured("128", 1));
    const std::string message = cache_refusal(file, cache_identity());
    EXPECT_TRUE(test::contains(message, "in use by another tune")) << message;
    EXPECT_TRUE(test::contains(message, "give another --cache")) << message;
    first.append(cache_measured("256", 1));
  }
  EXPECT_EQ(TuneCache::open(file, cache_identity()).points().size(), 2u);
}

TEST(TuneCache, OpeningLeavesAnExistingFileAsItWas) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  TuneCache::open(file, cache_identity()).append(cache_measured("128", 1));
  const std::string bytes = cache_bytes(file);
  const fs::file_time_type written = fs::last_write_time(file);
  const fs::perms mode = fs::status(file).permissions();
  EXPECT_EQ(TuneCache::open(file, cache_identity()).points().size(), 1u);
  EXPECT_EQ(cache_bytes(file), bytes);
  EXPECT_EQ(fs::last_write_time(file), written);
  EXPECT_EQ(fs::status(file).permissions(), mode);
}

TEST(TuneCache, AppendingAKeyAgainOrAPointWithoutOneAnswerIsAProgrammingError) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  TuneCache cache = TuneCache::open(file, cache_identity());
  cache.append(cache_measured("128", 1));
  const std::string bytes = cache_bytes(file);
  EXPECT_THROW(cache.append(cache_measured("128", 2)), std::logic_error);
  EXPECT_THROW(cache.append(cache_refused("", "no key")), std::logic_error);
  EXPECT_THROW(cache.append(cache_refused("block 1x1x1", "")), std::logic_error);
  CachedPoint both = cache_measured("256", 1);
  both.refused = "and refused";
  EXPECT_THROW(cache.append(both), std::logic_error);
  EXPECT_EQ(cache.points().size(), 1u);
  EXPECT_EQ(cache_bytes(file), bytes);
}

TEST(TuneCache, AnAppendThatCannotWriteNamesTheFileAndTheReason) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root writes to a read-only file anyway";
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  TuneCache cache = TuneCache::open(file, cache_identity());
  fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  try {
    cache.append(cache_measured("128", 1));
    ADD_FAILURE() << "appended to a read-only file";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_TRUE(test::contains(message, file.string())) << message;
    EXPECT_TRUE(test::contains(message, std::strerror(EACCES))) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_TRUE(cache.points().empty());
}

// Exits 0 when an append cut short by a file-size limit (a full disk alike) failed with the
// system's reason and left the file as it was, whole lines only (in a child process: the limit
// would hold for the rest of the tests; its stderr is under the limit too, so the verdict is its
// exit code).
[[noreturn]] void cache_append_under_a_size_limit(TuneCache& cache, const CachedPoint& point) {
  const std::string before = cache_bytes(cache.file());
  report_file_size_limit_as_error();
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = before.size() + 100; // room for a part of the line
  ::setrlimit(RLIMIT_FSIZE, &limit);
  int verdict = 1;
  try {
    cache.append(point);
  } catch (const UsageError& e) {
    verdict = !test::contains(e.what(), std::strerror(EFBIG)) ? 2
              : cache_bytes(cache.file()) != before           ? 3
              : cache.points().size() != 1                    ? 4
                                                              : 0;
  }
  std::exit(verdict);
}

TEST(TuneCache, AnAppendCutShortLeavesTheFileWithWholeLines) {
  const CacheScratch scratch;
  {
    TuneCache cache = TuneCache::open(scratch.dir / "cache.jsonl", cache_identity());
    cache.append(cache_refused("block 2048x1x1", "over 1024 threads"));
    const CachedPoint point = cache_measured("128", 1); // some KiB: more than the limit leaves
    EXPECT_EXIT(cache_append_under_a_size_limit(cache, point), testing::ExitedWithCode(0), "");
  }
  EXPECT_EQ(TuneCache::open(scratch.dir / "cache.jsonl", cache_identity()).points().size(), 1u);
}

TEST(TuneCache, AMissingFolderIsNamedAndNothingIsMade) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "never-made" / "cache.jsonl";
  try {
    TuneCache::open(file, cache_identity());
    ADD_FAILURE() << "opened " << file;
  } catch (const UsageError& e) {
    EXPECT_TRUE(
        test::contains(e.what(), (scratch.dir / "never-made").string() + "' does not exist"))
        << e.what();
  }
  EXPECT_FALSE(fs::exists(file.parent_path()));
}

TEST(TuneCache, AnythingButARegularFileIsRefused) {
  const CacheScratch scratch;
  const fs::path folder = scratch.dir / "folder.jsonl";
  fs::create_directory(folder);
  EXPECT_TRUE(test::contains(cache_refusal(folder, cache_identity()), "is a folder"));
  const fs::path good = scratch.dir / "good.jsonl";
  TuneCache::open(good, cache_identity());
  const fs::path link = scratch.dir / "link.jsonl";
  fs::create_symlink(good, link);
  EXPECT_TRUE(test::contains(cache_refusal(link, cache_identity()), "symbolic link"));
  const fs::path fifo = scratch.dir / "fifo.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(test::contains(cache_refusal(fifo, cache_identity()), "not a regular file"));
}

TEST(TuneCache, AFileOverTheLimitIsRefusedUnread) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "huge.jsonl";
  cache_write(file, cache_joined(cache_good_lines(scratch.dir)));
  fs::resize_file(file, std::uintmax_t{1} << 30); // sparse: no disk is spent
  const std::string message = cache_refusal(file, cache_identity());
  EXPECT_TRUE(test::contains(message, "1 GiB, over the 256 MiB")) << message;
  fs::remove(file);
}

TEST(TuneCache, AnEmptyOrCutShortFileIsRefused) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  EXPECT_TRUE(test::contains(cache_refusal_of(file, ""), "is empty"));
  std::string text = cache_joined(cache_good_lines(scratch.dir));
  text.resize(text.size() - 20);
  const std::string message = cache_refusal_of(file, text);
  EXPECT_TRUE(test::contains(message, "cache.jsonl line 2: truncated")) << message;
}

TEST(TuneCache, ALineThatIsNotAJsonObjectIsRefusedByItsNumber) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const std::vector<std::string> good = cache_good_lines(scratch.dir);
  // A first line that is no JSON: the file is no cache at all (a person's notes).
  EXPECT_TRUE(test::contains(cache_refusal_of(file, "hello\n"),
                             "cache.jsonl: not a tune cache (its first line"));
  EXPECT_TRUE(test::contains(cache_refusal_of(file, "line one\nline two"),
                             "cache.jsonl: not a tune cache"));
  EXPECT_TRUE(test::contains(cache_refusal_of(file, cache_joined({good[0], good[1], "{\"key\":"})),
                             "cache.jsonl line 3: "));
  const std::string message = cache_refusal_of(file, cache_joined({good[0], "[1, 2]"}));
  EXPECT_TRUE(test::contains(message, "cache.jsonl line 2: ")) << message;
  EXPECT_TRUE(test::contains(message, "not a JSON object")) << message;
}

TEST(TuneCache, AFirstLineThatIsNoCacheHeaderOfThisVersionIsRefused) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const std::vector<std::string> good = cache_good_lines(scratch.dir);
  EXPECT_TRUE(test::contains(cache_refusal_of(file, cache_joined({good[1]})),
                             "cache.jsonl: not a tune cache (its first line is not the header"));
  const auto version = [&](int number) {
    return cache_changed(good[0], [&](nlohmann::json& j) { j["warplens_tune_cache"] = number; });
  };
  EXPECT_TRUE(test::contains(cache_refusal_of(file, cache_joined({version(7), good[1]})),
                             "made by a newer WarpLens (cache version 7; this one reads 1)"));
  EXPECT_TRUE(test::contains(cache_refusal_of(file, cache_joined({version(0), good[1]})),
                             "line 1: warplens_tune_cache: version 0"));
}

TEST(TuneCache, ACacheOfAnythingElseIsRefusedNamingWhatDiffers) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const std::vector<std::string> good = cache_good_lines(scratch.dir);
  cache_write(file, cache_joined(good));
  const auto refusal = [&](auto change) {
    TuneCacheIdentity identity = cache_identity();
    change(identity);
    return cache_refusal(file, identity);
  };
  EXPECT_TRUE(test::contains(refusal([](auto& i) { i.kernel = "matmul/tiled"; }),
                             "of kernel vec_add/scalar, not matmul/tiled"));
  EXPECT_TRUE(test::contains(
      refusal([](auto& i) { i.source_hash = "fnv1a64:ffffffffffffffff"; }),
      "of another version of the kernel's source (hash fnv1a64:0123456789abcdef, now "
      "fnv1a64:ffffffffffffffff)"));
  EXPECT_TRUE(test::contains(refusal([](auto& i) { i.device = "NVIDIA H100"; }),
                             "of GPU NVIDIA H200 (GPU-1b2c3d4e), not NVIDIA H100"));
  EXPECT_TRUE(
      test::contains(refusal([](auto& i) { i.driver = "570.1"; }), "driver 580.159.04, not 570.1"));
  EXPECT_TRUE(test::contains(refusal([](auto& i) { i.measure = "timing,energy"; }),
                             "timing, not timing,energy"));
  // A value from the file is clipped and shown without its control characters.
  const std::string long_device = "\x1b[31m" + std::string(500, 'x') + "\nsecond line";
  cache_write(
      file,
      cache_joined({cache_changed(good[0], [&](nlohmann::json& j) { j["device"] = long_device; }),
                    good[1]}));
  const std::string message = cache_refusal(file, cache_identity());
  EXPECT_TRUE(test::contains(message, "of GPU ?[31mxxx")) << message;
  EXPECT_FALSE(test::contains(message, std::string(61, 'x'))) << message;
}

TEST(TuneCache, APointLineHoldsAKeyAndEitherAResultOrWhyItWasRefused) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const std::vector<std::string> good = cache_good_lines(scratch.dir);
  const auto refusal = [&](auto change) {
    return cache_refusal_of(file, cache_joined({good[0], cache_changed(good[1], change)}));
  };
  EXPECT_TRUE(test::contains(refusal([](nlohmann::json& j) { j["kye"] = "x"; }),
                             "line 2: kye: not a key of a tune cache's point"));
  EXPECT_TRUE(
      test::contains(refusal([](nlohmann::json& j) { j.erase("key"); }), "line 2: key: missing"));
  EXPECT_TRUE(test::contains(refusal([](nlohmann::json& j) { j["key"] = ""; }),
                             "line 2: key: '' is not a non-empty string"));
  EXPECT_TRUE(test::contains(refusal([](nlohmann::json& j) { j["refused"] = "why"; }),
                             "line 2: refused: given beside result"));
  EXPECT_TRUE(test::contains(refusal([](nlohmann::json& j) { j.erase("result"); }),
                             "line 2: result: missing"));
  EXPECT_TRUE(test::contains(refusal([](nlohmann::json& j) {
                               j.erase("result");
                               j["refused"] = "";
                             }),
                             "line 2: refused: '' is not a non-empty string"));
}

TEST(TuneCache, AResultNoGpuCouldProduceIsRefusedWithItsLine) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const std::vector<std::string> good = cache_good_lines(scratch.dir);
  const std::string lying = cache_changed(
      good[1], [](nlohmann::json& j) { j["result"]["verification"]["mismatches"] = 5; });
  const std::string message = cache_refusal_of(file, cache_joined({good[0], lying}));
  EXPECT_TRUE(test::contains(message, "cache.jsonl line 2: result: verification.passed"))
      << message;
}

TEST(TuneCache, AKeySeenTwiceIsRefused) {
  const CacheScratch scratch;
  const fs::path file = scratch.dir / "cache.jsonl";
  const std::vector<std::string> good = cache_good_lines(scratch.dir);
  const std::string refused = "{\"key\": \"block 2048x1x1\", \"refused\": \"too many\"}";
  const std::string message =
      cache_refusal_of(file, cache_joined({good[0], good[1], refused, good[1]}));
  EXPECT_TRUE(test::contains(message, "line 4: the key 'block 256x1x1' is duplicated (first on "
                                      "line 2)"))
      << message;
}

} // namespace
} // namespace wl
