// The THEANO_FLAGS registry (compiler/src/config/flag_registry.h): an unknown
// key warns once naming the closest known flag, every registered flag has a
// doc and a default its own parser accepts, a bad value is a ValueError naming
// the flag, the value and what was expected, and the flags that existed
// before the registry are all still registered.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "stderr_capture.h"
#include "temp_dir.h"
#include "theano/config.h"
#include "theano/config_flags.h"
#include "theano/runtime/error.h"

using namespace theano;

TEST_CASE("an unknown THEANO_FLAGS key warns once, naming the closest known flag, and is otherwise ignored") {
  test::TempDir d("theano-flags");
  test::StderrCapture capture(d.path / "err");
  const Config c = Config::from_flags("compildir=/tmp/x,floatX=float32");
  const std::string err = capture.text();
  CHECK(test::count_of(err, "THEANO_FLAGS: unknown flag 'compildir' (did you mean 'compiledir'?)") == 1);
  CHECK(test::count_of(err, "\n") == 1);  // one line, for the one unknown key
  CHECK(c.floatX == DType::Float32);     // the known keys still apply
}

namespace {

const FlagInfo* info(const std::string& name) {
  for (const FlagInfo& f : registered_flags())
    if (f.name == name) return &f;
  return nullptr;
}

/// What reading `name` (a registered flag of its own) with `value` set in code throws ("" when nothing).
std::string read_error(const std::string& name, const std::string& value) {
  Config c;
  c.flags[name] = value;
  ConfigGuard guard(c);
  try {
    flag_value(name);
  } catch (const ValueError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("closest_flag: a likely typo gets the registered name, a foreign key gets none") {
  CHECK(closest_flag("compildir") == "compiledir");
  CHECK(closest_flag("floatx") == "floatX");
  CHECK(closest_flag("thread") == "threads");
  CHECK(closest_flag("base_compildir") == "base_compiledir");
  CHECK(closest_flag("openmp") == "");
  CHECK(closest_flag("blas__ldflags") == "");
}

TEST_CASE("a foreign THEANO_FLAGS key warns without a suggestion, and stays in Config::flags") {
  test::TempDir d("theano-flags");
  test::StderrCapture capture(d.path / "err");
  const Config c = Config::from_flags("openmp=True");
  const std::string err = capture.text();
  CHECK(test::count_of(err, "THEANO_FLAGS: unknown flag 'openmp' (`theano-cache flags` lists the known ones)") == 1);
  CHECK(c.flags.at("openmp") == "True");  // the function records' request text still sees every key
}

TEST_CASE("every registered flag has a doc, a type and a default its own parser accepts") {
  const std::vector<FlagInfo>& all = registered_flags();
  REQUIRE(all.size() >= 30);
  for (const FlagInfo& f : all) {
    CAPTURE(f.name);
    CHECK(!f.doc.empty());
    CHECK(f.doc.find('\n') == std::string::npos);
    CHECK(!f.type.empty());
    CHECK(f.default_value.find(',') == std::string::npos);  // it could not be given in THEANO_FLAGS
    int same_name = 0;
    for (const FlagInfo& g : all) same_name += g.name == f.name;
    CHECK(same_name == 1);
    if (!f.alias_of.empty()) {
      const FlagInfo* target = info(f.alias_of);
      REQUIRE(target != nullptr);
      CHECK(target->alias_of.empty());
      CHECK(target->type == f.type);
      CHECK(target->default_value == f.default_value);
    }
    test::TempDir d("theano-flags");
    test::StderrCapture capture(d.path / "err");
    CHECK_NOTHROW(Config::from_flags(f.name + "=" + f.default_value));
    CHECK(capture.text().empty());  // registered: no warning
    if (f.alias_of.empty()) CHECK(read_error(f.name, f.default_value).empty());
  }
}

TEST_CASE("a value of the wrong form is a ValueError naming the flag, the value and what was expected") {
  for (const FlagInfo& f : registered_flags()) {
    if (f.free_text) continue;
    CAPTURE(f.name);
    const std::string text = f.name + "=not-a-value";
    try {
      Config::from_flags(text);
      FAIL("accepted");
    } catch (const ValueError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("THEANO_FLAGS " + f.name) != std::string::npos);
      CHECK(msg.find("not-a-value") != std::string::npos);
      CHECK((msg.find("expected ") != std::string::npos || msg.find("must be ") != std::string::npos ||
             msg.find("use true or false") != std::string::npos));
    }
    // A Config set in code is checked where the flag is read.
    if (f.alias_of.empty()) CHECK(read_error(f.name, "not-a-value").find(f.name) != std::string::npos);
  }
}

TEST_CASE("each flag's existing checks: ranges, words, empty values") {
  auto refused = [](const std::string& text) {
    try {
      Config::from_flags(text);
    } catch (const ValueError&) {
      return true;
    }
    return false;
  };
  for (const char* ok : {"threads=0", "threads=64", "codegen_threads=64", "gpu_preallocate=0.5", "gpu_preallocate=",
                         "nvrtc_fast_compile=max", "nvrtc_fast_compile=0", "remote_cache_mode=read",
                         "remote_cache_timeout_ms=600000", "cache_max_age_days=off", "cache_max_age_days=1000000",
                         "cache_max_age_days=0.5", "cache_max_age_days=", "traceback_limit=7", "floatX=float32",
                         "profile=", "nanguard_nan_is_error=OFF", "NanGuardMode__big_is_error=false"}) {
    CAPTURE(ok);
    CHECK_FALSE(refused(ok));
  }
  for (const char* bad : {"threads=-1", "threads=two", "threads=", "threads=1000", "codegen_threads=65",
                          "gpu_preallocate=1.5", "gpu_preallocate=nan", "nvrtc_fast_compile=fast",
                          "remote_cache_mode=sometimes", "remote_cache_timeout_ms=0", "remote_cache_timeout_ms=600001",
                          "cache_max_age_days=-1", "cache_max_age_days=1e300", "cache_max_age_days=inf",
                          "cache_max_age_days=2e6", "traceback_limit=-1", "traceback__limit=many", "floatX=float16",
                          "floatX=", "log_compile=sometimes"}) {
    CAPTURE(bad);
    CHECK(refused(bad));
  }
  CHECK_THROWS_WITH_AS(Config::from_flags("cache_max_age_days=-1"),
                       "THEANO_FLAGS cache_max_age_days: expected a number of days from 0 to 1e+06, or 'off', got '-1'",
                       ValueError);
  CHECK_THROWS_WITH_AS(Config::from_flags("floatX=float16"),
                       "THEANO_FLAGS floatX must be float64 or float32, got 'float16'", ValueError);
  CHECK(Config::from_flags("traceback__limit=5").traceback_limit == 5);
  CHECK(Config::from_flags("traceback_limit=3,traceback__limit=5").traceback_limit == 3);  // the flag's own name wins
}

TEST_CASE("the readers: defaults, alias spellings, typed values, and a reader's typo is a logic_error") {
  Config c;
  ConfigGuard empty(c);
  CHECK(flag_bool("nanguard_nan_is_error"));  // default true
  CHECK_FALSE(flag_bool("profile"));
  CHECK_FALSE(flag_value("threads").has_value());
  CHECK_FALSE(flag_int("threads").has_value());
  c.flags = {{"NanGuardMode__nan_is_error", "false"}, {"threads", "3"}, {"gpu_preallocate", "0.25"},
             {"cache_max_age_days", "off"}};
  ConfigGuard set(c);
  CHECK_FALSE(flag_bool("nanguard_nan_is_error"));
  CHECK(flag_int("threads") == 3);
  CHECK(flag_number("gpu_preallocate") == 0.25);
  CHECK_FALSE(flag_number("cache_max_age_days").has_value());
  CHECK(flag_value("cache_max_age_days") == "off");
  c.flags["nanguard_nan_is_error"] = "true";
  ConfigGuard both(c);
  CHECK(flag_bool("nanguard_nan_is_error"));  // the flag's own name wins over Theano's spelling
  CHECK_THROWS_AS(flag_value("compildir"), std::logic_error);
  CHECK_THROWS_AS(flag_bool("threads"), std::logic_error);  // not a boolean flag
  CHECK_THROWS_AS(flag_value("NanGuardMode__nan_is_error"), std::logic_error);  // read the flag, not its alias
}

TEST_CASE("every flag read before the registry existed is registered") {
  for (const char* name :
       {"floatX", "traceback_limit", "traceback__limit", "mode", "linker", "optimizer_including",
        "optimizer_excluding", "optimizer_print_after", "profile", "log_compile", "nanguard_nan_is_error",
        "nanguard_inf_is_error", "nanguard_big_is_error", "NanGuardMode__nan_is_error", "NanGuardMode__inf_is_error",
        "NanGuardMode__big_is_error", "threads", "codegen_threads", "cxxflags", "keep_sources", "device",
        "gpu_preallocate", "nvrtc_fast_compile", "compiledir", "base_compiledir", "compiledir_group",
        "cache_max_age_days", "cache_max_size", "remote_cache", "remote_cache_mode", "remote_cache_timeout_ms",
        "remote_cache_key", "remote_cache_key_file", "remote_cache_password"}) {
    CAPTURE(name);
    CHECK(info(name) != nullptr);
  }
  CHECK(info("remote_cache_key")->secret);
  CHECK(info("remote_cache_password")->secret);
}
