// The C++ wrapper: never early on steady_clock and punctual::clock, RAII, errors, the poll
// loop, the ticker and its three missed-tick policies, several threads, the real-time
// controls (the memory lock and the /dev/cpu_dma_latency hold as root, per the kernel, and
// refused to nobody); prints "N passed, N failed" last.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "punctual.hpp"

#if !defined(_WIN32)
#include <pthread.h>
#include <signal.h>
#endif
#if defined(__linux__)
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#endif

namespace timers = punctual;  // how code written against the "timers" sample switches
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

static int passed = 0, failed = 0;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            passed++;                                                                \
        } else {                                                                     \
            failed++;                                                                \
            std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                            \
    } while (0)

template <class F>
static int32_t code_of(F &&f) {
    try {
        f();
    } catch (const punctual::error &e) {
        return static_cast<int32_t>(e.code().value());
    }
    return PUNCTUAL_OK;
}

static void never_early(long count) {
    punctual::sleeper sleepers[] = {punctual::sleeper(punctual::strategy::native),
                                    punctual::sleeper(punctual::strategy::hybrid),
                                    punctual::sleeper(punctual::strategy::spin)};
    const std::chrono::nanoseconds waits[] = {0ns, 1ns, 500ns, 2us, 10us, 30us};
    long early = 0;
    for (long i = 0; i < count; i++) {
        const auto wait = waits[i % 6];
        const auto start = steady::now();
        switch (i % 5) {
            case 0: punctual::sleep_for(wait); break;
            case 1: punctual::sleep_until(start + wait); break;
            case 2: sleepers[i % 3].sleep_for(wait); break;
            case 3: sleepers[i % 3].sleep_until(start + wait); break;
            default: {
                const auto target = punctual::clock::now() + wait;
                auto w = sleepers[i % 3].sleep_until(target);
                early += punctual::clock::now() < target || w.deadline != target;
            }
        }
        early += steady::now() - start < wait;
    }
    std::printf("%ld mixed sleeps (PUNCTUAL_TEST_SLEEPS): %ld early\n", count, early);
    CHECK(early == 0);
    // Fractional and floating durations round up, never down.
    const auto start = steady::now();
    punctual::sleep_for(std::chrono::duration<double, std::micro>(50.5));
    CHECK(steady::now() - start >= 50500ns);
    // Negative durations and past time points return at once, as std::this_thread's do.
    punctual::sleep_for(-5ms);
    punctual::sleep_until(steady::now() - 1h);
    punctual::sleep_until(std::chrono::system_clock::now() + 1ms);
}

static void same_clock() {
#if defined(__linux__)
    // steady_clock and punctual::clock are both CLOCK_MONOTONIC here: a punctual reading
    // falls between two steady ones.
    const auto before = steady::now().time_since_epoch().count();
    const auto ours = punctual::clock::now().time_since_epoch().count();
    const auto after = steady::now().time_since_epoch().count();
    CHECK(before - 1000000 <= ours && ours <= after);
#endif
}

static void document_001_names() {
    for (auto wait : {1us, 100us, 1000us}) {
        auto start = steady::now();
        timers::deadline_sleep::sleep_for(wait);
        CHECK(steady::now() - start >= wait);
        start = steady::now();
        auto w = timers::precise_sleep::sleep_for(wait);
        CHECK(steady::now() - start >= wait && w.spun == 0ns);
    }
    punctual::sleep_for(100us);
}

static void errors() {
    CHECK(code_of([] { punctual::sleeper s(static_cast<punctual::strategy>(7)); }) == PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(code_of([] { punctual::set_realtime_priority(0); }) == PUNCTUAL_E_INVALID_PRIORITY);
    CHECK(code_of([] { punctual::ticker t(0ms); }) == PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(code_of([] { punctual::ticker t(-1ms); }) == PUNCTUAL_E_INVALID_ARGUMENT);
    try {
        punctual::set_realtime_priority(1000);
        CHECK(false);
    } catch (const punctual::error &e) {
        CHECK(std::string(e.what()).find("out of range") != std::string::npos);
        CHECK(e.code().category().name() == std::string("punctual"));
    }
    punctual::sleeper a(punctual::strategy::spin);
    punctual::sleeper b = std::move(a);
    CHECK(b.strategy() == punctual::strategy::spin);
    CHECK(a.native_handle() == nullptr);
    CHECK(code_of([&] { a.sleep_for(1us); }) == PUNCTUAL_E_NULL_POINTER);
    const auto info = punctual::get_timer_info();
    CHECK(!info.mechanism.empty());
}

static void ticker_arithmetic() {
    const auto first = punctual::clock::now() + 1ms;
    punctual::ticker t(first, 250us, punctual::strategy::hybrid, punctual::missed_tick_policy::burst);
    CHECK(t.deadline_of(1000000) == first + 1000000 * 250us);
    for (std::uint64_t k = 0; k < 10; k++) {
        const auto tick = t.next();
        CHECK(tick.index == k && tick.deadline == first + k * 250us && tick.woke >= tick.deadline);
    }
    CHECK(t.missed() == 0 && t.next_index() == 10);
}

static void skip_past_ticks() {
    const auto first = punctual::clock::now() - 10 * 1ms - 1ns;
    punctual::ticker t(first, 1ms, punctual::strategy::native, punctual::missed_tick_policy::skip);
    const auto before = punctual::clock::now();
    const auto tick = t.next();
    // The first grid point not yet past when the call began, every earlier one missed.
    CHECK(tick.index >= 11 && tick.missed == tick.index);
    CHECK(tick.deadline == first + tick.index * 1ms);
    CHECK(tick.deadline >= before && tick.deadline - 1ms < punctual::clock::now());
    CHECK(t.next_index() == tick.index + 1 && t.missed() == tick.missed);
}

static void delay_reanchors() {
    const auto first = punctual::clock::now() - 3 * 1ms - 1ns;
    punctual::ticker t(first, 1ms, punctual::strategy::hybrid, punctual::missed_tick_policy::delay);
    const auto late = t.next();
    CHECK(late.index == 0 && late.deadline == first && late.missed >= 3);
    // Re-anchored on the late tick's wake: later ticks are whole periods after it. That wake
    // is the library's, at or after the old deadline and no later than the caller's reading
    // the tick reports (its last stretch is read in the caller, punctual_ticker_tick_inline).
    const auto anchor = t.deadline_of(0);
    CHECK(anchor >= first && anchor <= late.woke && t.deadline_of(3) == anchor + 3 * 1ms);
    const auto next = t.next();
    CHECK(next.index == 1 && next.deadline == anchor + 1ms && next.woke >= next.deadline);
}

static void polling() {
    int hooks = 0;
    const auto start = steady::now();
    const auto deadline = start + 30ms;
    steady::time_point first_call{};
    try {
        punctual::poll_until(deadline, 100ms, [&] {
            if (first_call == steady::time_point{}) {
                first_call = steady::now();
            }
            return false;
        }, [&] { hooks++; });
        CHECK(false);
    } catch (const punctual::timeout_error &e) {
        // The loop started between `start` and the condition's first call; it ended within
        // the deadline plus one step.
        CHECK(e.polls() == 2 && hooks == 1 && e.elapsed() >= deadline - first_call);
        CHECK(e.elapsed() <= steady::now() - start && steady::now() < deadline + 100ms);
        CHECK(e.code().value() == PUNCTUAL_E_TIMED_OUT);
    }
    int calls = 0;
    CHECK(punctual::poll_until(punctual::clock::now() + 5s, 100us, [&] { return ++calls == 3; }) == 3);
    try {
        punctual::poll_until(punctual::clock::time_point::max(), 0us, [&]() -> bool { throw std::runtime_error("own"); });
        CHECK(false);
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()) == "own");
    }
    // A hook that throws ends the loop at the next check, with its exception.
    int checks = 0;
    try {
        punctual::poll_until(punctual::clock::time_point::max(), 0us, [&] { return ++checks == 100; },
                             []() { throw std::logic_error("hook"); });
        CHECK(false);
    } catch (const std::logic_error &e) {
        CHECK(std::string(e.what()) == "hook" && checks == 1);
    }
}

static void threads() {
    std::atomic<long> early{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; t++) {
        pool.emplace_back([t, &early] {
            punctual::sleeper s(static_cast<punctual::strategy>(t % 3));
            for (int i = 0; i < 1000; i++) {
                const auto wait = std::chrono::microseconds(i % 40);
                const auto start = steady::now();
                if (i % 2) {
                    s.sleep_for(wait);
                } else {
                    punctual::sleep_for(wait);
                }
                early += steady::now() - start < wait;
            }
        });
    }
    for (auto &thread : pool) {
        thread.join();
    }
    CHECK(early == 0);
}

#if !defined(_WIN32)
static volatile sig_atomic_t caught = 0;
extern "C" void on_sigusr1(int) { caught = caught + 1; }

// SIGUSR1 every 300 us, no SA_RESTART: the sleeps are resumed, never shortened.
static void signals() {
    struct sigaction action {};
    struct sigaction previous {};
    action.sa_handler = on_sigusr1;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    CHECK(sigaction(SIGUSR1, &action, &previous) == 0);
    std::atomic<bool> stop{false};
    const pthread_t target = pthread_self();
    std::thread signaller([&] {
        while (!stop) {
            pthread_kill(target, SIGUSR1);
            std::this_thread::sleep_for(300us);
        }
    });
    punctual::sleeper native(punctual::strategy::native);
    long early = 0;
    for (int i = 0; i < 150; i++) {
        const auto start = steady::now();
        if (i % 3 == 0) {
            punctual::sleep_for(2ms);
        } else if (i % 3 == 1) {
            native.sleep_for(2ms);
        } else {
            timers::precise_sleep::sleep_for(2ms);
        }
        early += steady::now() - start < 2ms;
    }
    stop = true;
    signaller.join();
    sigaction(SIGUSR1, &previous, nullptr);
    std::printf("signals: %d SIGUSR1 caught during 150 sleeps of 2 ms; %ld early\n", static_cast<int>(caught), early);
    CHECK(caught > 50 && early == 0);
}
#else
static void signals() { std::printf("skip: signals during sleeps (Windows has no POSIX signals)\n"); }
#endif

static void probing() {
    const auto report = punctual::probe(1);
    CHECK(report.samples == 1 && report.costs.size() == PUNCTUAL_PROBE_REQUESTS && !report.primitive.empty());
    CHECK(report.costs.front().request == 1ms && report.costs.back().request == 30ms);
    CHECK(report.quantum.has_value() != report.overshoot.has_value());
    CHECK(report.floor > 0ns && report.cheat_sheet().size() == (report.quantum ? 10u : 0u));
    // A caller's sleep is timed instead, and what it throws ends the probe.
    int calls = 0;
    const auto slept = punctual::probe(1, [&](std::chrono::milliseconds ms) {
        calls++;
        punctual::sleep_for(ms);
    });
    CHECK(calls == 2 * PUNCTUAL_PROBE_REQUESTS && slept.primitive.empty());
    for (const auto &cost : slept.costs) {
        CHECK(cost.mean >= cost.request);
    }
    calls = 0;
    try {
        punctual::probe(3, [&](std::chrono::milliseconds) {
            if (++calls == 2) {
                throw std::runtime_error("the host's sleep failed");
            }
        });
        CHECK(false);
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()) == "the host's sleep failed" && calls == 2);
    }
    CHECK(code_of([] { punctual::probe(0); }) == PUNCTUAL_E_INVALID_ARGUMENT);
    const auto sheet = punctual::cheat_sheet(15625us, 3);
    CHECK(sheet.size() == 3 && sheet[0].request == 8ms && sheet[1].request == 23ms && sheet[2].request == 39ms);
    CHECK(sheet[1].cost == 31250us);
    CHECK(code_of([] { punctual::cheat_sheet(0ns); }) == PUNCTUAL_E_INVALID_ARGUMENT);
}

// The real-time controls, each on a thread of its own so the others run as they were.
static void realtime_controls() {
    const auto range = punctual::priority_range();
    CHECK(range.min == 1 && range.max == 99);
    std::thread([] {
        const auto s = punctual::current_scheduling();
        CHECK(s.realtime == (s.policy == punctual::scheduling_policy::fifo ||
                             s.policy == punctual::scheduling_policy::round_robin ||
                             s.policy == punctual::scheduling_policy::deadline ||
                             s.policy == punctual::scheduling_policy::time_critical ||
                             s.policy == punctual::scheduling_policy::time_constraint));
    }).join();
#if defined(__linux__)
    std::thread([] {
        punctual::set_timer_slack(5us);
        const bool realtime = punctual::current_scheduling().realtime;
        CHECK(punctual::timer_slack() == (realtime ? 0ns : 5us));
        CHECK(code_of([] { punctual::set_timer_slack(0ns); }) == PUNCTUAL_E_INVALID_SLACK);
    }).join();
    std::thread([] {
        cpu_set_t all;
        CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
        std::vector<std::size_t> cpus;
        for (std::size_t cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (CPU_ISSET(cpu, &all)) {
                cpus.push_back(cpu);
            }
        }
        punctual::set_affinity({cpus.back()});
        CHECK(sched_getcpu() == static_cast<int>(cpus.back()));
        CHECK(code_of([] { punctual::set_affinity({}); }) == PUNCTUAL_E_INVALID_AFFINITY);
        CHECK(code_of([] { punctual::set_affinity({CPU_SETSIZE + 1}); }) == PUNCTUAL_E_INVALID_AFFINITY);
        punctual::set_affinity(cpus);
        cpu_set_t now;
        CHECK(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &all));
    }).join();
#else
    CHECK(code_of([] { punctual::timer_slack(); }) == PUNCTUAL_E_UNSUPPORTED);
    std::printf("skip: timer slack and affinity read back (Linux only)\n");
#endif
}

// Memory lock and the /dev/cpu_dma_latency hold, checked against the kernel's account
// (VmLck, the device, the open descriptors) as root, and refused in a child dropped to
// nobody. Without root: SKIPPED, or a failure under PUNCTUAL_REQUIRE_PRIVILEGED=1, the rule
// of DEVELOPERS.md's "Privilege tests".
#if defined(__linux__)
static const char DMA[] = "/dev/cpu_dma_latency";

// For a test that needs root: whether this run has it; a failure under the variable.
static bool root_or_skip(const char *test) {
    if (geteuid() == 0) {
        return true;
    }
    const char *required = std::getenv("PUNCTUAL_REQUIRE_PRIVILEGED");
    if (required != nullptr && std::string(required) == "1") {
        std::fprintf(stderr, "FAIL %s needs root; PUNCTUAL_REQUIRE_PRIVILEGED=1 makes that a failure\n", test);
        failed++;
    } else {
        std::printf("SKIPPED %s: run as root\n", test);
    }
    return false;
}

static long locked_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmLck:", 0) == 0) {
            return std::strtol(line.c_str() + 6, nullptr, 10);
        }
    }
    return -1;
}

static int dma_descriptors() {
    int count = 0;
    DIR *fds = opendir("/proc/self/fd");
    if (fds == nullptr) {
        return -1;
    }
    while (const dirent *entry = readdir(fds)) {
        char target[256] = {0};
        const std::string link = std::string("/proc/self/fd/") + entry->d_name;
        if (readlink(link.c_str(), target, sizeof target - 1) > 0 && std::strcmp(target, DMA) == 0) {
            count++;
        }
    }
    closedir(fds);
    return count;
}

// The kernel's latency target: the least of every process's request.
static long dma_target() {
    std::ifstream device(DMA, std::ios::binary);
    std::int32_t target = -1;
    device.read(reinterpret_cast<char *>(&target), sizeof target);
    return device ? target : -1;
}

static void memory_lock_granted() {
    if (!root_or_skip("memory lock, per the kernel")) {
        return;
    }
    punctual::lock_memory();
    const long locked = locked_kib();
    punctual::unlock_memory();
    CHECK(locked > 0 && locked_kib() == 0);
}

static void dma_latency_granted() {
    if (!root_or_skip("the /dev/cpu_dma_latency hold, per the kernel")) {
        return;
    }
    if (access(DMA, F_OK) != 0) {
        std::printf("SKIPPED the /dev/cpu_dma_latency hold: this kernel has none\n");
        return;
    }
    CHECK(dma_descriptors() == 0);
    {
        punctual::dma_latency_guard guard(0us);
        CHECK(dma_descriptors() == 1 && dma_target() == 0);
        punctual::dma_latency_guard moved(std::move(guard));  // one request, now moved's
        CHECK(dma_descriptors() == 1);
    }
    CHECK(dma_descriptors() == 0);
    CHECK(code_of([] { punctual::dma_latency_guard negative(-1us); }) == PUNCTUAL_E_INVALID_ARGUMENT);
}

// The child's refusals, one bit each in its exit status (0: all as expected).
enum { MEMORY_NOT_REFUSED = 1, MEMORY_NO_FIX = 2, DMA_NOT_REFUSED = 4, DMA_NO_FIX = 8, NOT_DROPPED = 16 };

static int refused(const std::function<void()> &control, const char *fix) {
    try {
        control();
    } catch (const punctual::error &e) {
        if (e.code().value() != PUNCTUAL_E_PERMISSION_DENIED) {
            return 1;
        }
        return std::string(e.what()).find(fix) == std::string::npos ? 2 : 0;
    }
    return 1;
}

static int as_nobody() {
    const passwd *nobody = getpwnam("nobody");
    const group *nogroup = getgrnam("nogroup");
    const uid_t uid = nobody != nullptr ? nobody->pw_uid : 65534;
    const gid_t gid = nogroup != nullptr ? nogroup->gr_gid : 65534;
    const rlimit memlock{65536, 65536};
    // Leaving user id 0 drops every capability (capabilities(7)).
    if (setrlimit(RLIMIT_MEMLOCK, &memlock) != 0 || setgroups(0, nullptr) != 0 || setgid(gid) != 0 ||
        setuid(uid) != 0 || geteuid() == 0) {
        return NOT_DROPPED;
    }
    int failures = 0;
    switch (refused([] { punctual::lock_memory(); }, "CAP_IPC_LOCK")) {
        case 1: failures |= MEMORY_NOT_REFUSED; break;
        case 2: failures |= MEMORY_NO_FIX; break;
    }
    if (access(DMA, F_OK) == 0) {
        switch (refused([] { punctual::dma_latency_guard guard(0us); }, DMA)) {
            case 1: failures |= DMA_NOT_REFUSED; break;
            case 2: failures |= DMA_NO_FIX; break;
        }
    }
    return failures;
}

static void refusals_as_nobody() {
    if (!root_or_skip("memory lock and /dev/cpu_dma_latency refused to nobody")) {
        return;
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        _exit(as_nobody());
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    const int failures = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (failures != 0) {
        std::fprintf(stderr, "refusals as nobody: the child's failed checks: %#x\n", static_cast<unsigned>(failures));
    }
    CHECK(failures == 0);
}

static void memory_and_dma_latency() {
    memory_lock_granted();
    dma_latency_granted();
    refusals_as_nobody();
}
#else
static void memory_and_dma_latency() {
    // Linux-only controls: what the platform lacks says so.
    CHECK(code_of([] { punctual::lock_memory(); }) == PUNCTUAL_E_UNSUPPORTED);
    CHECK(code_of([] { punctual::unlock_memory(); }) == PUNCTUAL_E_UNSUPPORTED);
    CHECK(code_of([] { punctual::dma_latency_guard guard(0us); }) == PUNCTUAL_E_UNSUPPORTED);
}
#endif

int main() {
    const char *env = std::getenv("PUNCTUAL_TEST_SLEEPS");
    never_early(env && *env ? std::strtol(env, nullptr, 10) : 100000);
    same_clock();
    signals();
    document_001_names();
    errors();
    realtime_controls();
    memory_and_dma_latency();
    ticker_arithmetic();
    skip_past_ticks();
    delay_reanchors();
    polling();
    threads();
    probing();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
