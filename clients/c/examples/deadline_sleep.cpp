// The C++ deadline_sleep project's exercise, through punctual.hpp: 5 sleeps at each of
// 50, 20, 10, 5 and 1 ms, 500, 100 and 1 us, in that order, from a fresh process, each
// timed by the caller: std::chrono::steady_clock read before the call and after it
// returns. Prints each sleep's error as the original does, then per length the median and
// worst error and the CPU time per sleep (the thread's CPU clock; GetThreadTimes on Windows).
//
//   deadline_sleep [SLEEPS] [deadline|precise|std]    (5 sleeps, deadline_sleep by default)
//
// Exits 1 if any sleep returned before its time: punctual's sleeps never do.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include <punctual.h>
#include <punctual.hpp>

#if defined(_WIN32)
#include <windows.h>
// The thread's kernel and user time. Windows charges it per scheduler tick, so a figure per
// sleep is an average of whole ticks; std::clock there counts wall time, not CPU.
static double thread_cpu_ns() {
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) return 0;
    auto ticks = [](FILETIME t) { return (double(t.dwHighDateTime) * 4294967296.0 + double(t.dwLowDateTime)) * 100.0; };
    return ticks(kernel) + ticks(user);
}
#else
static double thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * double(ts.tv_sec) + double(ts.tv_nsec);
}
#endif

int main(int argc, char **argv) {
    using namespace std::chrono;
    const int sleeps = argc > 1 ? std::atoi(argv[1]) : 5;
    const char *how = argc > 2 ? argv[2] : "deadline";
    if (sleeps < 1 || (std::strcmp(how, "deadline") && std::strcmp(how, "precise") && std::strcmp(how, "std"))) {
        std::fprintf(stderr, "usage: %s [SLEEPS >= 1] [deadline|precise|std]\n", argv[0]);
        return 2;
    }
    const nanoseconds waits[] = {50ms, 20ms, 10ms, 5ms, 1ms, 500us, 100us, 1us};
    bool early = false;
    std::printf("%-8s %14s %14s %12s   (%s, %d sleeps each, caller's steady_clock)\n", "wait", "median error",
                "worst error", "cpu/sleep", how, sleeps);
    for (nanoseconds wait : waits) {
        std::vector<double> errors;
        double cpu = 0;
        for (int i = 0; i < sleeps; i++) {
            double cpu0 = thread_cpu_ns();
            auto start = steady_clock::now();
            if (!std::strcmp(how, "deadline")) {
                punctual::deadline_sleep::sleep_for(wait);
            } else if (!std::strcmp(how, "precise")) {
                punctual::precise_sleep::sleep_for(wait);
            } else {
                std::this_thread::sleep_for(wait);
            }
            auto elapsed = steady_clock::now() - start;
            cpu += thread_cpu_ns() - cpu0;
            double error = double(duration_cast<nanoseconds>(elapsed - wait).count());
            early = early || error < 0;
            errors.push_back(error);
        }
        std::vector<double> sorted = errors;
        std::sort(sorted.begin(), sorted.end());
        std::printf("%-8.3g %11.3f us %11.3f us %9.3f us   errors (us):", double(wait.count()) / 1e6,
                    sorted[(sorted.size() - 1) / 2] / 1e3, sorted.back() / 1e3, cpu / sleeps / 1e3);
        for (double e : errors) std::printf(" %.3f", e / 1e3);
        std::printf("\n");
    }
    std::printf("(wait in ms)\n");
    if (early) {
        std::fprintf(stderr, "a sleep returned before its time\n");
        return 1;
    }
    return 0;
}
