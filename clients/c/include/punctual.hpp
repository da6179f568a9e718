// punctual.hpp: the C++17 face of libpunctual, header-only over punctual.h.
//
//   #include <punctual.hpp>
//   using namespace std::chrono_literals;
//   punctual::sleep_for(100us);                      // hybrid: never early, ~no lateness
//   punctual::precise_sleep::sleep_for(5ms);         // the OS's high-resolution timer, no spin
//   punctual::deadline_sleep::sleep_for(5ms);        // the hybrid again, by its other name
//
// Code written against `timers::deadline_sleep::sleep_for` / `timers::precise_sleep::sleep_for`
// switches with this include and `namespace timers = punctual;`.
//
// Errors are exceptions: `punctual::error` (a std::system_error in `punctual::category()`,
// whose what() is the library's message with the fix) and `punctual::timeout_error` for a
// poll loop's timeout. Durations are rounded up to whole nanoseconds (never early); negative
// durations and past time points return at once, as std::this_thread's do.
//
// Clocks: punctual::clock reads punctual_now_ns(). On Linux std::chrono::steady_clock reads
// the same CLOCK_MONOTONIC (libstdc++ and libc++), so its time points convert as they are.
// Elsewhere they convert through a reading of both clocks, never early, since steady_clock
// is not always punctual's clock there: with Debian's mingw-w64 GCC 12 under Wine, the
// win32-threads libstdc++ bases it on the wall clock (its now() equals system_clock's),
// the posix-threads one on QueryPerformanceCounter (punctual's clock on Windows).
//
// Thread-safety: free functions are thread-safe; `sleeper` and `ticker` objects take one
// call at a time (a second thread gets an `error` with PUNCTUAL_E_BUSY), as their handles do.
#ifndef PUNCTUAL_HPP
#define PUNCTUAL_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "punctual.h"

namespace punctual {

using nanoseconds = std::chrono::nanoseconds;

// ---- errors -------------------------------------------------------------------------------

class error_category_impl final : public std::error_category {
  public:
    const char *name() const noexcept override { return "punctual"; }
    std::string message(int code) const override { return punctual_strerror(code); }
};

// The category of punctual's status codes (PUNCTUAL_E_*).
inline const std::error_category &category() noexcept {
    static const error_category_impl instance;
    return instance;
}

// A failed call: code() is the PUNCTUAL_E_* code, what() the message naming the fix.
class error : public std::system_error {
  public:
    explicit error(int32_t code)
        : std::system_error(code, category(), punctual_last_error_message()) {}
};

// A poll loop whose deadline passed with its condition unmet.
class timeout_error : public error {
  public:
    timeout_error(nanoseconds elapsed, std::uint64_t polls)
        : error(PUNCTUAL_E_TIMED_OUT), elapsed_(elapsed), polls_(polls) {}
    nanoseconds elapsed() const noexcept { return elapsed_; }
    std::uint64_t polls() const noexcept { return polls_; }

  private:
    nanoseconds elapsed_;
    std::uint64_t polls_;
};

inline void check(int32_t code) {
    if (code != PUNCTUAL_OK) {
        throw error(code);
    }
}

// ---- the clock ----------------------------------------------------------------------------

// The monotonic clock every punctual deadline is on (punctual_now_ns()).
struct clock {
    using rep = std::int64_t;
    using period = std::nano;
    using duration = nanoseconds;
    using time_point = std::chrono::time_point<clock>;
    static constexpr bool is_steady = true;
    static time_point now() noexcept { return time_point(duration(punctual_now_ns())); }
};

namespace detail {

// `d` in whole nanoseconds, rounded up, 0 for negative, saturated at INT64_MAX.
template <class Rep, class Period>
std::int64_t ceil_ns(const std::chrono::duration<Rep, Period> &d) {
    using wide = std::chrono::duration<long double, std::nano>;
    const long double ns = std::chrono::duration_cast<wide>(d).count();
    if (!(ns > 0)) {
        return 0;
    }
    if (ns >= static_cast<long double>(std::numeric_limits<std::int64_t>::max())) {
        return std::numeric_limits<std::int64_t>::max();
    }
    const auto whole = std::chrono::ceil<nanoseconds>(d).count();
    return whole < 0 ? 0 : static_cast<std::int64_t>(whole);
}

inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) {
        return std::numeric_limits<std::int64_t>::max();
    }
    if (b < 0 && a < std::numeric_limits<std::int64_t>::min() - b) {
        return std::numeric_limits<std::int64_t>::min();
    }
    return a + b;
}

inline std::int64_t clamp_deadline(std::int64_t ns) { return ns < 0 ? 0 : ns; }

}  // namespace detail

// A time point of any clock as a punctual deadline in nanoseconds, never early.
inline std::int64_t deadline_ns(clock::time_point tp) {
    return detail::clamp_deadline(tp.time_since_epoch().count());
}

inline std::int64_t deadline_ns(std::chrono::steady_clock::time_point tp) {
#if defined(__linux__)
    // steady_clock is CLOCK_MONOTONIC here, the clock of punctual_now_ns().
    const auto since = tp.time_since_epoch();
    return detail::clamp_deadline(since.count() < 0 ? 0 : detail::ceil_ns(since));
#else
    const auto steady_now = std::chrono::steady_clock::now();
    const std::int64_t now_ns = punctual_now_ns();
    const auto ahead = tp - steady_now;
    const std::int64_t offset = ahead.count() < 0
                                    ? -detail::ceil_ns(steady_now - tp)
                                    : detail::ceil_ns(ahead);
    return detail::clamp_deadline(detail::saturating_add(now_ns, offset));
#endif
}

template <class Clock, class Duration>
std::int64_t deadline_ns(const std::chrono::time_point<Clock, Duration> &tp) {
    const auto clock_now = Clock::now();
    const std::int64_t now_ns = punctual_now_ns();
    const std::int64_t offset =
        tp < clock_now ? -detail::ceil_ns(clock_now - tp) : detail::ceil_ns(tp - clock_now);
    return detail::clamp_deadline(detail::saturating_add(now_ns, offset));
}

// ---- waits --------------------------------------------------------------------------------

enum class strategy : punctual_strategy {
    native = PUNCTUAL_STRATEGY_NATIVE,
    hybrid = PUNCTUAL_STRATEGY_HYBRID,
    spin = PUNCTUAL_STRATEGY_SPIN,
};

// What a wait reports.
struct wake {
    clock::time_point deadline;
    clock::time_point woke;  // at or after deadline
    nanoseconds lateness;
    nanoseconds spun;
};

namespace detail {
inline wake to_wake(const punctual_wake &w) {
    return wake{clock::time_point(nanoseconds(w.deadline_ns)), clock::time_point(nanoseconds(w.woke_ns)),
                nanoseconds(w.lateness_ns), nanoseconds(w.spun_ns)};
}

// A wait until `deadline` whose last stretch is spun here, as punctual.h's
// punctual_sleep_until_inline_ns: `early(target, &report)` is the library's wait until this
// thread's way back before the deadline, then this loop reads the clock to the deadline.
// The loop also reads std::chrono::steady_clock, which it discards: a caller reads that
// clock next, and after a long sleep its first reading alone (a call into libstdc++ on cold
// caches) costs microseconds; read in the loop, it is hot by the deadline.
template <class Early>
int32_t sleep_until_here(std::int64_t deadline_ns, punctual_wake &out, Early early) {
    punctual_wake w = PUNCTUAL_WAKE_INIT;
    const std::int64_t lead = punctual_way_back_ns();
    const int32_t status = early(deadline_ns > lead ? deadline_ns - lead : 0, &w);
    if (status != PUNCTUAL_OK) {
        return status;
    }
    punctual_way_back_record_ns(w.woke_ns);
    std::int64_t now;
    do {
        (void)std::chrono::steady_clock::now();
        now = punctual_now_ns();
    } while (now < deadline_ns);
    out = punctual_wake{static_cast<std::uint32_t>(sizeof(punctual_wake)), 0, deadline_ns, now, now - deadline_ns,
                        w.spun_ns + (now > w.woke_ns ? now - w.woke_ns : 0)};
    return PUNCTUAL_OK;
}
}  // namespace detail

// Sleeps until `tp` (punctual::clock, std::chrono::steady_clock or any clock) with this
// thread's hybrid sleeper; never returns before it. The last stretch is spun here, as
// sleep_for's.
template <class TimePoint>
wake sleep_until(const TimePoint &tp) {
    punctual_wake w = PUNCTUAL_WAKE_INIT;
    check(detail::sleep_until_here(deadline_ns(tp), w, [](std::int64_t target, punctual_wake *early) {
        return punctual_sleep_until_ns(target, early);
    }));
    return detail::to_wake(w);
}

// Sleeps for `d` with this thread's hybrid sleeper; never returns early. The last stretch
// is spun here, in the caller's code (as punctual.h's punctual_sleep_inline_ns), so the wait
// ends on time by the caller's clock, the way back from the library included.
template <class Rep, class Period>
wake sleep_for(const std::chrono::duration<Rep, Period> &d) {
    // From a reading of steady_clock, which the caller has just read itself (hot), rather
    // than from a first call into the library.
    const std::int64_t deadline =
        detail::saturating_add(deadline_ns(std::chrono::steady_clock::now()), detail::ceil_ns(d));
    return sleep_until(clock::time_point(nanoseconds(deadline)));
}

// A sleeper with its own strategy and learned margin (RAII over punctual_sleeper).
class sleeper {
  public:
    explicit sleeper(punctual::strategy s = punctual::strategy::hybrid) : strategy_(s) {
        check(punctual_sleeper_new(static_cast<punctual_strategy>(s), &handle_));
    }
    ~sleeper() { punctual_sleeper_free(handle_); }
    sleeper(sleeper &&other) noexcept
        : handle_(std::exchange(other.handle_, nullptr)), strategy_(other.strategy_) {}
    sleeper &operator=(sleeper &&other) noexcept {
        if (this != &other) {
            punctual_sleeper_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
            strategy_ = other.strategy_;
        }
        return *this;
    }
    sleeper(const sleeper &) = delete;
    sleeper &operator=(const sleeper &) = delete;

    // Never returns early. A hybrid or spinning sleeper's last stretch is spun here, as
    // punctual::sleep_for's; a native one's wait is the library's alone and never spins.
    template <class Rep, class Period>
    wake sleep_for(const std::chrono::duration<Rep, Period> &d) {
        const std::int64_t deadline =
            detail::saturating_add(deadline_ns(std::chrono::steady_clock::now()), detail::ceil_ns(d));
        return sleep_until(clock::time_point(nanoseconds(deadline)));
    }

    template <class TimePoint>
    wake sleep_until(const TimePoint &tp) {
        punctual_wake w = PUNCTUAL_WAKE_INIT;
        punctual_sleeper *handle = handle_;
        if (strategy_ == punctual::strategy::native) {
            check(punctual_sleeper_sleep_until_ns(handle, deadline_ns(tp), &w));
        } else {
            check(detail::sleep_until_here(deadline_ns(tp), w, [handle](std::int64_t target, punctual_wake *early) {
                return punctual_sleeper_sleep_until_ns(handle, target, early);
            }));
        }
        return detail::to_wake(w);
    }

    punctual::strategy strategy() const {
        punctual_strategy s = 0;
        check(punctual_sleeper_strategy(handle_, &s));
        return static_cast<punctual::strategy>(s);
    }

    nanoseconds margin() const {
        std::int64_t ns = 0;
        check(punctual_sleeper_margin_ns(handle_, &ns));
        return nanoseconds(ns);
    }

    punctual_sleeper *native_handle() const noexcept { return handle_; }

  private:
    punctual_sleeper *handle_ = nullptr;
    punctual::strategy strategy_;
};

// The two sleeps of the "timers" sample, by the same names and meanings.
namespace deadline_sleep {
// Sleeps exactly the requested duration: the OS timer, then a learned spin (hybrid).
template <class Rep, class Period>
wake sleep_for(const std::chrono::duration<Rep, Period> &d) {
    return punctual::sleep_for(d);
}
}  // namespace deadline_sleep

namespace precise_sleep {
// Sleeps on the OS's highest-precision timer (Linux clock_nanosleep, Windows' high-resolution
// waitable timer), without spinning.
template <class Rep, class Period>
wake sleep_for(const std::chrono::duration<Rep, Period> &d) {
    thread_local sleeper native(strategy::native);
    return native.sleep_for(d);
}
}  // namespace precise_sleep

// ---- ticker -------------------------------------------------------------------------------

enum class missed_tick_policy : punctual_missed_tick_policy {
    burst = PUNCTUAL_MISSED_TICK_BURST,
    skip = PUNCTUAL_MISSED_TICK_SKIP,
    delay = PUNCTUAL_MISSED_TICK_DELAY,
};

struct tick {
    std::uint64_t index;
    std::uint64_t missed;
    clock::time_point deadline;
    clock::time_point woke;
    nanoseconds lateness;
    nanoseconds spun;
};

// Tick k due at first + k * period, exact integer nanoseconds (RAII over punctual_ticker).
class ticker {
  public:
    template <class Rep, class Period>
    explicit ticker(const std::chrono::duration<Rep, Period> &period, strategy s = strategy::hybrid,
                    missed_tick_policy p = missed_tick_policy::skip) {
        check(punctual_ticker_new(period_ns(period), static_cast<punctual_strategy>(s),
                                  static_cast<punctual_missed_tick_policy>(p), &handle_));
    }
    template <class TimePoint, class Rep, class Period>
    ticker(const TimePoint &first, const std::chrono::duration<Rep, Period> &period,
           strategy s = strategy::hybrid, missed_tick_policy p = missed_tick_policy::skip) {
        check(punctual_ticker_new_at(deadline_ns(first), period_ns(period), static_cast<punctual_strategy>(s),
                                     static_cast<punctual_missed_tick_policy>(p), &handle_));
    }
    ~ticker() { punctual_ticker_free(handle_); }
    ticker(ticker &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    ticker &operator=(ticker &&other) noexcept {
        if (this != &other) {
            punctual_ticker_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ticker(const ticker &) = delete;
    ticker &operator=(const ticker &) = delete;

    // Waits for the next tick, its last stretch read here (punctual_ticker_tick_inline).
    punctual::tick next() {
        punctual_tick t = PUNCTUAL_TICK_INIT;
        check(punctual_ticker_tick_inline(handle_, &t));
        return punctual::tick{t.index, t.missed, clock::time_point(nanoseconds(t.deadline_ns)),
                              clock::time_point(nanoseconds(t.woke_ns)), nanoseconds(t.lateness_ns),
                              nanoseconds(t.spun_ns)};
    }

    clock::time_point deadline_of(std::uint64_t index) const {
        std::int64_t ns = 0;
        check(punctual_ticker_deadline_ns(handle_, index, &ns));
        return clock::time_point(nanoseconds(ns));
    }

    std::uint64_t next_index() const {
        std::uint64_t index = 0;
        check(punctual_ticker_next_index(handle_, &index));
        return index;
    }

    std::uint64_t missed() const {
        std::uint64_t count = 0;
        check(punctual_ticker_missed(handle_, &count));
        return count;
    }

  private:
    // Unlike a sleep, a period is not rounded away: zero or negative is an error.
    template <class Rep, class Period>
    static std::int64_t period_ns(const std::chrono::duration<Rep, Period> &period) {
        return period.count() <= 0 ? -1 : detail::ceil_ns(period);
    }
    punctual_ticker *handle_ = nullptr;
};

// ---- polling ------------------------------------------------------------------------------

namespace detail {
// Returned by the trampoline when the condition threw: its own code, then rethrown.
constexpr int32_t condition_threw = 2;

template <class Condition, class Hook>
struct poll_context {
    Condition &condition;
    Hook &hook;
    std::exception_ptr thrown;
};

template <class Context>
int32_t condition_trampoline(void *user_data) noexcept {
    auto *context = static_cast<Context *>(user_data);
    if (context->thrown) {
        return condition_threw;  // the hook threw before this check: end the loop now
    }
    try {
        return context->condition() ? PUNCTUAL_POLL_READY : PUNCTUAL_POLL_PENDING;
    } catch (...) {
        context->thrown = std::current_exception();
        return condition_threw;
    }
}

template <class Context>
void hook_trampoline(void *user_data) noexcept {
    auto *context = static_cast<Context *>(user_data);
    if (context->thrown) {
        return;
    }
    try {
        context->hook();
    } catch (...) {
        context->thrown = std::current_exception();
    }
}

struct no_hook {
    void operator()() const noexcept {}
};
}  // namespace detail

// Calls `condition()` (returning bool) every `step` until it returns true or `deadline`
// passes, running `before_sleep()` before each sleep, and returns the number of polls.
// Throws timeout_error (with elapsed() and polls()) on timeout, and rethrows whatever the
// condition or the hook threw (the hook's ends the loop at the next check).
template <class TimePoint, class Rep, class Period, class Condition, class Hook = detail::no_hook>
std::uint64_t poll_until(const TimePoint &deadline, const std::chrono::duration<Rep, Period> &step,
                         Condition &&condition, Hook &&before_sleep = Hook{}) {
    using context_type = detail::poll_context<std::remove_reference_t<Condition>, std::remove_reference_t<Hook>>;
    context_type context{condition, before_sleep, nullptr};
    punctual_poll_report report = PUNCTUAL_POLL_REPORT_INIT;
    const int32_t rc = punctual_poll_until(deadline_ns(deadline), detail::ceil_ns(step),
                                           detail::condition_trampoline<context_type>,
                                           detail::hook_trampoline<context_type>, &context, &report);
    if (context.thrown) {
        std::rethrow_exception(context.thrown);
    }
    if (rc == PUNCTUAL_E_TIMED_OUT) {
        throw timeout_error(nanoseconds(report.elapsed_ns), report.polls);
    }
    check(rc);
    return report.polls;
}

// ---- the sleep probe -----------------------------------------------------------------------

// One band of a quantum's cheat sheet: asking for `request` costs about `k` quanta.
struct band {
    std::uint32_t k;
    std::chrono::milliseconds request;  // round(q * k - q / 2), away from the tick edges
    nanoseconds cost;                   // k quanta
    double rate_hz;
};

// The first `bands` bands of `quantum` (15.625 ms: requests 8, 23, 39, 55 ms, ...); throws
// error for a quantum of zero or less.
inline std::vector<band> cheat_sheet(nanoseconds quantum, std::size_t bands = 10) {
    std::vector<punctual_band> raw(bands);
    std::size_t filled = 0;
    check(punctual_cheat_sheet(quantum.count(), raw.data(), raw.size(), &filled));
    std::vector<band> sheet;
    sheet.reserve(filled);
    for (std::size_t i = 0; i < filled; i++) {
        sheet.push_back(band{raw[i].k, std::chrono::milliseconds(raw[i].request_ms), nanoseconds(raw[i].cost_ns),
                             raw[i].rate_hz});
    }
    return sheet;
}

// What a plain sleep costs (punctual_probe): each request's mean cost back to back, the
// floor, and the quantum when sleeps are quantised, the overshoot when not.
struct probe_report {
    struct cost {
        std::chrono::milliseconds request;
        nanoseconds mean;
    };
    std::uint32_t samples;
    nanoseconds floor;
    std::optional<nanoseconds> quantum;
    std::optional<nanoseconds> overshoot;
    std::string primitive;  // the OS call timed ("Win32 Sleep()"), empty for a caller's sleep
    std::vector<cost> costs;

    // The cheat sheet of the quantum; empty when sleeps are not quantised.
    std::vector<band> cheat_sheet(std::size_t bands = 10) const {
        return quantum ? punctual::cheat_sheet(*quantum, bands) : std::vector<band>{};
    }
};

namespace detail {
template <class Sleep>
struct probe_context {
    Sleep &sleep;
    std::exception_ptr thrown;
};

// Returned by the trampoline when the sleep threw: its own code, then rethrown.
constexpr int32_t sleep_threw = 1;

template <class Context>
int32_t sleep_trampoline(std::uint32_t ms, void *user_data) noexcept {
    auto *context = static_cast<Context *>(user_data);
    try {
        context->sleep(std::chrono::milliseconds(ms));
        return 0;
    } catch (...) {
        context->thrown = std::current_exception();
        return sleep_threw;
    }
}

inline probe_report to_probe_report(const punctual_probe_report &r) {
    probe_report out{r.samples, nanoseconds(r.floor_ns), std::nullopt, std::nullopt,
                     r.primitive ? r.primitive : "", {}};
    if (r.quantum_ns >= 0) {
        out.quantum = nanoseconds(r.quantum_ns);
    }
    if (r.overshoot_ns >= 0) {
        out.overshoot = nanoseconds(r.overshoot_ns);
    }
    for (std::uint32_t i = 0; i < r.cost_count; i++) {
        out.costs.push_back(probe_report::cost{
            std::chrono::duration_cast<std::chrono::milliseconds>(nanoseconds(r.costs[i].request_ns)),
            nanoseconds(r.costs[i].mean_ns)});
    }
    return out;
}
}  // namespace detail

// Times the OS's plain sleep (Win32 Sleep on Windows) back to back, `samples` times at each
// request from 1 to 30 ms, and says whether it is quantised. Takes about half a second.
inline probe_report probe(std::uint32_t samples = 5) {
    punctual_probe_report r = PUNCTUAL_PROBE_REPORT_INIT;
    check(punctual_probe(samples, nullptr, nullptr, &r));
    return detail::to_probe_report(r);
}

// The same, timing `sleep(std::chrono::milliseconds)` instead (a host's own sleep);
// rethrows whatever it throws, which ends the probe.
template <class Sleep>
probe_report probe(std::uint32_t samples, Sleep &&sleep) {
    using context_type = detail::probe_context<std::remove_reference_t<Sleep>>;
    context_type context{sleep, nullptr};
    punctual_probe_report r = PUNCTUAL_PROBE_REPORT_INIT;
    const int32_t rc = punctual_probe(samples, detail::sleep_trampoline<context_type>, &context, &r);
    if (context.thrown) {
        std::rethrow_exception(context.thrown);
    }
    check(rc);
    return detail::to_probe_report(r);
}

// ---- timer info and real-time controls ------------------------------------------------------

struct timer_info {
    std::string mechanism;
    bool high_resolution;
    nanoseconds resolution;   // -1 ns where the OS reports none
    nanoseconds timer_slack;  // -1 ns where the OS has none
    std::string degraded;     // empty when not degraded
};

inline timer_info get_timer_info() {
    punctual_timer_info info = PUNCTUAL_TIMER_INFO_INIT;
    check(punctual_get_timer_info(&info));
    return timer_info{info.mechanism, info.high_resolution != 0, nanoseconds(info.resolution_ns),
                      nanoseconds(info.timer_slack_ns), info.degraded ? info.degraded : ""};
}

// The calling thread to real-time scheduling at `priority`; throws error (the message names
// the fixes when refused).
inline void set_realtime_priority(int32_t priority) { check(punctual_set_realtime_priority(priority, nullptr)); }
inline void set_normal_scheduling() { check(punctual_set_normal_scheduling(nullptr)); }
inline void lock_memory() { check(punctual_lock_memory()); }
inline void unlock_memory() { check(punctual_unlock_memory()); }

template <class Rep, class Period>
void set_timer_slack(const std::chrono::duration<Rep, Period> &slack) {
    check(punctual_set_timer_slack_ns(slack.count() <= 0 ? 0 : detail::ceil_ns(slack)));
}

// The calling thread's timer slack in force (zero under a real-time policy); throws error
// with PUNCTUAL_E_UNSUPPORTED off Linux.
inline nanoseconds timer_slack() {
    std::int64_t slack_ns = 0;
    check(punctual_timer_slack_ns(&slack_ns));
    return nanoseconds(slack_ns);
}

enum class scheduling_policy : punctual_policy {
    unknown = PUNCTUAL_POLICY_UNKNOWN,
    other = PUNCTUAL_POLICY_OTHER,
    fifo = PUNCTUAL_POLICY_FIFO,
    round_robin = PUNCTUAL_POLICY_ROUND_ROBIN,
    batch = PUNCTUAL_POLICY_BATCH,
    idle = PUNCTUAL_POLICY_IDLE,
    deadline = PUNCTUAL_POLICY_DEADLINE,
    time_critical = PUNCTUAL_POLICY_TIME_CRITICAL,
    time_constraint = PUNCTUAL_POLICY_TIME_CONSTRAINT,
};

// A thread's scheduling: its policy, its priority within it (the OS's own number), and
// whether the policy is a real-time one.
struct scheduling {
    scheduling_policy policy;
    std::int32_t priority;
    bool realtime;
};

// The calling thread's scheduling.
inline scheduling current_scheduling() {
    punctual_scheduling s = PUNCTUAL_SCHEDULING_INIT;
    check(punctual_current_scheduling(&s));
    return scheduling{static_cast<scheduling_policy>(s.policy), s.priority, s.realtime != 0};
}

// The real-time priorities set_realtime_priority accepts, lowest and highest.
struct priority_limits {
    std::int32_t min;
    std::int32_t max;
};

inline priority_limits priority_range() {
    priority_limits range{0, 0};
    check(punctual_priority_range(&range.min, &range.max));
    return range;
}

// Restricts the calling thread to `cpus` (numbered from 0), all or nothing; throws error
// with PUNCTUAL_E_INVALID_AFFINITY for an empty list or CPUs it cannot run on (the affinity
// unchanged), PUNCTUAL_E_UNSUPPORTED on macOS.
inline void set_affinity(const std::vector<std::size_t> &cpus) {
    check(punctual_set_affinity(cpus.data(), cpus.size()));
}

// Holds a CPU idle-exit latency request while it lives (RAII over punctual_dma_latency).
class dma_latency_guard {
  public:
    template <class Rep, class Period>
    explicit dma_latency_guard(const std::chrono::duration<Rep, Period> &latency) {
        check(punctual_dma_latency_new(latency.count() < 0 ? -1 : detail::ceil_ns(latency), &handle_));
    }
    ~dma_latency_guard() { punctual_dma_latency_free(handle_); }
    dma_latency_guard(dma_latency_guard &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    dma_latency_guard &operator=(dma_latency_guard &&) = delete;
    dma_latency_guard(const dma_latency_guard &) = delete;
    dma_latency_guard &operator=(const dma_latency_guard &) = delete;

  private:
    punctual_dma_latency *handle_ = nullptr;
};

}  // namespace punctual

#endif  // PUNCTUAL_HPP
