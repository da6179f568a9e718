/*
 * punctual-waits: how long waits of the C API's native, hybrid and spin strategies take,
 * in the layout of a Windows wait-method comparison ("timetest"): MIN, AVG and MAX of the
 * measured wait and MAX OVER (the largest overshoot), in nanoseconds.
 *
 *   punctual-waits [MS [PASSES]]     e.g. punctual-waits 10 500: 500 waits of 10 ms
 *
 * Defaults: 50 waits of 100 ms. Each wait is timed on punctual_now_ns(), the clock the
 * deadlines use (as timetest times on QPC ticks, which favours the methods on that clock).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "punctual.h"

static long parse_positive(const char *text, const char *what) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value <= 0 || value > 1000000) {
        fprintf(stderr, "punctual-waits: %s must be a whole number from 1 to 1000000, got '%s'\n", what, text);
        fprintf(stderr, "usage: punctual-waits [MS [PASSES]]   (default: 100 ms, 50 passes)\n");
        exit(2);
    }
    return value;
}

int main(int argc, char **argv) {
    long wait_ms = argc > 1 ? parse_positive(argv[1], "MS") : 100;
    long passes = argc > 2 ? parse_positive(argv[2], "PASSES") : 50;
    if (argc > 3) {
        fprintf(stderr, "usage: punctual-waits [MS [PASSES]]\n");
        return 2;
    }
    const int64_t wait_ns = (int64_t)wait_ms * 1000000;
    const struct {
        const char *name;
        punctual_strategy strategy;
    } methods[] = {
        {"punctual native", PUNCTUAL_STRATEGY_NATIVE},
        {"punctual hybrid", PUNCTUAL_STRATEGY_HYBRID},
        {"punctual spin", PUNCTUAL_STRATEGY_SPIN},
    };

    punctual_timer_info info = PUNCTUAL_TIMER_INFO_INIT;
    if (punctual_get_timer_info(&info) == PUNCTUAL_OK) {
        printf("libpunctual %s: %s (%s resolution)%s%s\n", punctual_version(), info.mechanism,
               info.high_resolution ? "high" : "low", info.degraded ? "; degraded: " : "",
               info.degraded ? info.degraded : "");
    }
    printf("### TEST OF %ld x %ld ms wait routine runs\n", passes, wait_ms);
    printf("%-22s %12s %12s %12s %11s\n", "nanoseconds", "MIN", "AVG", "MAX", "MAX OVER");
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
        punctual_sleeper *sleeper = NULL;
        int32_t rc = punctual_sleeper_new(methods[m].strategy, &sleeper);
        if (rc != PUNCTUAL_OK) {
            fprintf(stderr, "punctual-waits: %s\n", punctual_last_error_message());
            return 1;
        }
        int64_t min = INT64_MAX, max = 0, total = 0;
        for (long i = 0; i < passes; i++) {
            int64_t start = punctual_now_ns();
            rc = punctual_sleeper_sleep_ns(sleeper, wait_ns, NULL);
            int64_t elapsed = punctual_now_ns() - start;
            if (rc != PUNCTUAL_OK) {
                fprintf(stderr, "punctual-waits: %s\n", punctual_last_error_message());
                return 1;
            }
            min = elapsed < min ? elapsed : min;
            max = elapsed > max ? elapsed : max;
            total += elapsed;
        }
        printf("%-22s %12lld %12lld %12lld %11lld\n", methods[m].name, (long long)min,
               (long long)(total / passes), (long long)max, (long long)(max - wait_ns));
        punctual_sleeper_free(sleeper);
    }
    return 0;
}
