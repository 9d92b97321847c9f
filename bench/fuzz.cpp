// theano_fuzz: the random-graph differential test at scale (issue 15, "fuzzing
// at scale, adversarially"); what bench/fuzz runs.
//
//   theano_fuzz [--graphs N] [--seed S] [--jobs J] [--batch B] [--first F]
//               [--timeout SECONDS] [--keep DIR]
//
// Graphs F .. F+N-1 of the stream `seed` (tests/codegen/random_graph_gen.h,
// the generator the CI slice in codegen_tests uses) run in child processes
// (this program re-run with --child), B graphs per child, J children at once.
// A child reports each graph as it finishes; a child that dies of a signal,
// runs past its time, or writes a sanitizer report has its unfinished (or,
// for a sanitizer report, all its) graphs re-run one per child, so the graph
// that crashed is found and counted. A mismatch is shrunk inside its child;
// a crash is shrunk here, each candidate in its own child. The smallest
// failing graph of each failure is printed. The last line is the summary:
//
//   fuzz: 3000 graphs, 0 mismatches, 0 crashes, 0 sanitizer reports (seed 1, 14m02s)
//
// Exit status: 0 when every graph agreed, 1 on any mismatch, crash or
// sanitizer report, 2 on a usage error.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ostream>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "codegen/random_graph_gen.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::int64_t graphs = 1000;
  std::uint64_t seed = 1;
  int jobs = 0;
  int batch = 25;
  std::int64_t first = 0;
  double timeout = 0;  // per graph, seconds; 0: 60 (300 under a sanitizer)
  std::string keep;
};

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

std::string duration_text(double s) {
  const auto t = static_cast<long>(s + 0.5);
  char buf[64];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  return buf;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Sanitizer reports in a child's stderr.
int count_sanitizer_reports(const std::string& err) {
  int n = 0;
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                             "WARNING: ThreadSanitizer", "ERROR: MemorySanitizer"}) {
    for (std::size_t at = err.find(marker); at != std::string::npos; at = err.find(marker, at + 1)) ++n;
  }
  return n;
}

// ---- the child: run graphs, one line per graph on stdout ----------------------

int run_child(const Options& o, const fs::path& report_dir) {
  using namespace theano::fuzz;
  CheckStats stats;
  // The driver's self-check: THEANO_FUZZ_SELFTEST_CRASH=G makes graph G die of SIGSEGV.
  const char* crash_at = std::getenv("THEANO_FUZZ_SELFTEST_CRASH");
  for (std::int64_t g = o.first; g < o.first + o.graphs; ++g) {
    const auto idx = static_cast<std::uint64_t>(g);
    const Program p = random_program(o.seed, idx);
    const std::uint64_t vs = value_seed(o.seed, idx);
    std::printf("start %lld\n", static_cast<long long>(g));
    std::fflush(stdout);
    if (crash_at && std::strtoll(crash_at, nullptr, 10) == g) raise(SIGSEGV);
    const std::string why = check(p, vs, &stats);
    if (why.empty()) {
      std::printf("ok %lld\n", static_cast<long long>(g));
    } else {
      const Program small = shrink(p, vs);
      std::ofstream f(report_dir / ("mismatch-" + std::to_string(g) + ".txt"));
      f << "graph " << g << " (seed " << o.seed << "): " << why << "\n\nsmallest failing graph ("
        << small.steps.size() << " of " << p.steps.size() << " steps): " << check(small, vs) << "\n"
        << describe(small) << "re-run: theano_fuzz --program '" << serialize(small) << "' --value-seed " << vs
        << "\n";
      f.close();
      std::printf("mismatch %lld\n", static_cast<long long>(g));
    }
    std::fflush(stdout);
  }
  std::printf("stats %s\n", stats.serialize().c_str());
  std::printf("done\n");
  std::fflush(stdout);
  return 0;
}

/// --program TEXT --value-seed V: one program; exit 0 agree, 1 mismatch.
/// With --describe: print the program's description instead (the parent asks a
/// child for it, since building a crashing graph may be what crashes).
int run_program(const std::string& text, std::uint64_t vs, bool describe_only) {
  const theano::fuzz::Program p = theano::fuzz::deserialize(text);
  if (describe_only) {
    std::fputs(theano::fuzz::describe(p).c_str(), stdout);
    return 0;
  }
  const std::string why = theano::fuzz::check(p, vs);
  if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
  return why.empty() ? 0 : 1;
}

// ---- the parent: children, batches, re-runs -----------------------------------

struct Outcome {
  bool signaled = false, timed_out = false;
  int status = 0;  ///< exit code or signal number
  std::string out, err;
};

/// A running child: its arguments, files and deadline.
struct Child {
  pid_t pid = -1;
  std::vector<std::string> args;
  fs::path out, err;
  Clock::time_point deadline;
  std::int64_t first = 0, count = 0;
  bool single = false;
};

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

pid_t spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fuzz: fork");
    std::exit(1);
  }
  if (pid == 0) {
    const int fo = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int fe = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fo < 0 || fe < 0) _exit(127);
    dup2(fo, 1);
    dup2(fe, 2);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

/// Waits for `c`; kills it at its deadline.
Outcome wait_child(Child& c) {
  Outcome r;
  int st = 0;
  for (;;) {
    const pid_t w = waitpid(c.pid, &st, WNOHANG);
    if (w == c.pid) break;
    if (Clock::now() > c.deadline) {
      kill(c.pid, SIGKILL);
      waitpid(c.pid, &st, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFSIGNALED(st)) {
    r.signaled = true;
    r.status = WTERMSIG(st);
  } else if (WIFEXITED(st)) {
    r.status = WEXITSTATUS(st);
  }
  r.out = read_text(c.out);
  r.err = read_text(c.err);
  return r;
}

class Driver {
 public:
  Driver(Options o, fs::path work) : o_(std::move(o)), work_(std::move(work)), exe_(self_exe()) {}

  int run() {
    const auto t0 = Clock::now();
    std::deque<Child> queue;
    for (std::int64_t g = o_.first; g < o_.first + o_.graphs; g += o_.batch)
      queue.push_back(batch_child(g, std::min<std::int64_t>(o_.batch, o_.first + o_.graphs - g), false));
    std::vector<Child> running;
    auto last_progress = Clock::now();
    while (!queue.empty() || !running.empty()) {
      while (!queue.empty() && static_cast<int>(running.size()) < o_.jobs) {
        Child c = std::move(queue.front());
        queue.pop_front();
        c.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(timeout() * static_cast<double>(c.count) + 30));
        c.pid = spawn(c.args, c.out, c.err);
        running.push_back(std::move(c));
      }
      bool reaped = false;
      for (std::size_t i = 0; i < running.size(); ++i) {
        int st = 0;
        const pid_t w = waitpid(running[i].pid, &st, WNOHANG);
        const bool late = Clock::now() > running[i].deadline;
        if (w != running[i].pid && !late) continue;
        Child c = std::move(running[i]);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        Outcome r;
        if (w == c.pid) {
          if (WIFSIGNALED(st)) {
            r.signaled = true;
            r.status = WTERMSIG(st);
          } else {
            r.status = WEXITSTATUS(st);
          }
          r.out = read_text(c.out);
          r.err = read_text(c.err);
        } else {
          r = wait_child(c);  // past its deadline: killed there
        }
        finish(c, r, queue);
        reaped = true;
        break;
      }
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (Clock::now() - last_progress > std::chrono::seconds(30)) {
        last_progress = Clock::now();
        std::fprintf(stderr, "fuzz: %lld/%lld graphs, %d mismatches, %d crashes, %d sanitizer reports, %s\n",
                     static_cast<long long>(done_.size()), static_cast<long long>(o_.graphs), mismatches_, crashes_,
                     sanitizer_, duration_text(seconds_since(t0)).c_str());
      }
    }
    for (const std::string& text : failures_) std::cout << text << "\n";
    std::cout << "what the graphs exercised (batches that finished cleanly): " << stats_.text() << "\n";
    const double secs = seconds_since(t0);
    std::cout << "fuzz: " << done_.size() << " graphs, " << mismatches_ << " mismatches, " << crashes_ << " crashes, "
              << sanitizer_ << " sanitizer reports (seed " << o_.seed << ", " << duration_text(secs) << ")"
              << std::endl;
    return (mismatches_ || crashes_ || sanitizer_ || static_cast<std::int64_t>(done_.size()) != o_.graphs) ? 1 : 0;
  }

 private:
  double timeout() const { return o_.timeout > 0 ? o_.timeout : sanitized() ? 300 : 60; }
  static double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }

  Child batch_child(std::int64_t first, std::int64_t count, bool single) {
    Child c;
    c.first = first;
    c.count = count;
    c.single = single;
    const std::string tag = std::to_string(first) + (single ? "-single" : "");
    c.out = work_ / ("out-" + tag);
    c.err = work_ / ("err-" + tag);
    c.args = {exe_, "--child", "--seed", std::to_string(o_.seed), "--first", std::to_string(first),
              "--graphs", std::to_string(count), "--reports", work_.string()};
    return c;
  }

  void finish(const Child& c, const Outcome& r, std::deque<Child>& queue) {
    std::set<std::int64_t> ok, bad;
    std::istringstream lines(r.out);
    std::string word;
    long long g = 0;
    for (std::string line; std::getline(lines, line);) {
      std::istringstream ls(line);
      if (!(ls >> word)) continue;
      if (word == "ok" && ls >> g) ok.insert(g);
      if (word == "mismatch" && ls >> g) bad.insert(g);
      if (word == "stats" && !c.single) {
        std::string rest;
        std::getline(ls, rest);
        stats_.add(theano::fuzz::CheckStats::deserialize(rest));
      }
    }
    const int reports = count_sanitizer_reports(r.err);
    const bool clean = !r.signaled && !r.timed_out && r.status == 0 && reports == 0;
    if (clean || c.single) {
      for (std::int64_t x : ok) done_.insert(x);
      for (std::int64_t x : bad) {
        done_.insert(x);
        ++mismatches_;
        failures_.push_back("MISMATCH " + read_text(work_ / ("mismatch-" + std::to_string(x) + ".txt")));
      }
    }
    if (clean) return;
    if (!c.single) {
      // Re-run graph by graph: the unfinished ones (a crash or a hang), or all
      // of them when the sanitizer spoke (its report may belong to any).
      for (std::int64_t x = c.first; x < c.first + c.count; ++x)
        if (reports > 0 || (!ok.contains(x) && !bad.contains(x))) queue.push_back(batch_child(x, 1, true));
      if (reports == 0)
        for (std::int64_t x : ok) done_.insert(x);
      if (reports == 0)
        for (std::int64_t x : bad) {
          done_.insert(x);
          ++mismatches_;
          failures_.push_back("MISMATCH " + read_text(work_ / ("mismatch-" + std::to_string(x) + ".txt")));
        }
      return;
    }
    // One graph, and it crashed, hung or made the sanitizer speak.
    done_.insert(c.first);
    std::ostringstream os;
    std::string how;
    if (r.timed_out) how = "timed out";
    else if (r.signaled) how = std::string("died of signal ") + std::to_string(r.status) + " (" + strsignal(r.status) + ")";
    else how = "exited with status " + std::to_string(r.status);
    if (reports > 0) {
      sanitizer_ += reports;
      os << "SANITIZER graph " << c.first << " (seed " << o_.seed << "): " << reports << " report(s), " << how << "\n";
      os << tail(r.err, 6000);
    } else {
      ++crashes_;
      os << "CRASH graph " << c.first << " (seed " << o_.seed << "): " << how << "\n" << tail(r.err, 2000);
    }
    os << "\n" << shrink_crash(c.first) << "\n";
    failures_.push_back(os.str());
  }

  static std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

  /// Crash (or sanitizer report, or hang) of a program, each try in a child.
  bool crashes(const theano::fuzz::Program& p, std::uint64_t vs) {
    Child c;
    c.out = work_ / "shrink-out";
    c.err = work_ / "shrink-err";
    c.args = {exe_, "--program", theano::fuzz::serialize(p), "--value-seed", std::to_string(vs)};
    c.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout()));
    c.pid = spawn(c.args, c.out, c.err);
    const Outcome r = wait_child(c);
    return r.signaled || r.timed_out || count_sanitizer_reports(r.err) > 0 || (r.status != 0 && r.status != 1);
  }

  std::string shrink_crash(std::int64_t g) {
    using namespace theano::fuzz;
    const Program p = random_program(o_.seed, static_cast<std::uint64_t>(g));
    const std::uint64_t vs = value_seed(o_.seed, static_cast<std::uint64_t>(g));
    if (!crashes(p, vs)) return "(it did not crash again when re-run alone; the full program: " + serialize(p) + ")";
    const Program small = shrink(p, [&](const Program& q) { return crashes(q, vs); });
    std::ostringstream os;
    os << "smallest crashing graph (" << small.steps.size() << " of " << p.steps.size() << " steps), value seed " << vs
       << ":\n"
       << describe_in_child(small) << "re-run: theano_fuzz --program '" << serialize(small) << "' --value-seed " << vs;
    return os.str();
  }

  /// describe(p), computed by a child: building the graph may be the crash.
  std::string describe_in_child(const theano::fuzz::Program& p) {
    Child c;
    c.out = work_ / "describe.out";
    c.err = work_ / "describe.err";
    c.deadline = Clock::now() + std::chrono::seconds(120);
    c.args = {exe_, "--program", theano::fuzz::serialize(p), "--describe"};
    c.pid = spawn(c.args, c.out, c.err);
    const Outcome r = wait_child(c);
    if (r.signaled || r.timed_out || r.status != 0)
      return "(describing it crashes too: building the graph is what fails)\n";
    return r.out;
  }

  Options o_;
  fs::path work_;
  std::string exe_;
  std::set<std::int64_t> done_;
  theano::fuzz::CheckStats stats_;
  int mismatches_ = 0, crashes_ = 0, sanitizer_ = 0;
  std::vector<std::string> failures_;
};

int usage() {
  std::cerr << "usage: theano_fuzz [--graphs N] [--seed S] [--jobs J] [--batch B] [--first F] [--timeout SECONDS]"
               " [--keep DIR]\n"
               "       theano_fuzz --program TEXT --value-seed V   (one serialized program)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool child = false;
  std::string program, reports;
  std::uint64_t vs = 0;
  bool describe_only = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--graphs") o.graphs = std::stoll(next());
      else if (a == "--seed") o.seed = std::stoull(next());
      else if (a == "--jobs") o.jobs = std::stoi(next());
      else if (a == "--batch") o.batch = std::stoi(next());
      else if (a == "--first") o.first = std::stoll(next());
      else if (a == "--timeout") o.timeout = std::stod(next());
      else if (a == "--keep") o.keep = next();
      else if (a == "--child") child = true;
      else if (a == "--reports") reports = next();
      else if (a == "--program") program = next();
      else if (a == "--value-seed") vs = std::stoull(next());
      else if (a == "--describe") describe_only = true;
      else if (a == "--help" || a == "-h") return usage(), 0;
      else throw std::invalid_argument("unknown argument " + a);
    }
  } catch (const std::exception& e) {
    std::cerr << "theano_fuzz: " << e.what() << "\n";
    return usage();
  }
  if (o.graphs < 0 || o.batch < 1) return usage();
  if (!program.empty()) return run_program(program, vs, describe_only);
  if (child) return run_child(o, reports);
  if (o.jobs <= 0) o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Generated graphs are all different: no compile cache unless asked.
  const char* flags = std::getenv("THEANO_FLAGS");
  std::string f = flags ? flags : "";
  if (f.find("compiledir") == std::string::npos) {
    f += f.empty() ? "compiledir=off" : ",compiledir=off";
    setenv("THEANO_FLAGS", f.c_str(), 1);
  }
  fs::path work;
  if (!o.keep.empty()) {
    work = o.keep;
    fs::create_directories(work);
  } else {
    std::string tmpl = (fs::temp_directory_path() / "theano-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
      std::perror("theano_fuzz: mkdtemp");
      return 1;
    }
    work = tmpl;
  }
  std::cerr << "fuzz: " << o.graphs << " graphs from " << o.first << " (seed " << o.seed << "), " << o.jobs
            << " jobs of " << o.batch << (sanitized() ? ", sanitized build" : "") << "\n";
  const int rc = Driver(o, work).run();
  if (o.keep.empty()) fs::remove_all(work);
  return rc;
}
