/* A tiny test harness for the C tests of libpunctual: checks, counts, threads, the OS clock. */
#ifndef PUNCTUAL_TEST_HARNESS_H
#define PUNCTUAL_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>

#include "punctual.h"

extern int harness_passed;
extern int harness_failed;
extern int harness_skipped;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) {                                                                   \
            harness_passed++;                                                         \
        } else {                                                                      \
            harness_failed++;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                             \
    } while (0)

#define CHECK_CODE(expr, expected)                                                    \
    do {                                                                              \
        int32_t rc_ = (expr);                                                         \
        if (rc_ == (expected)) {                                                      \
            harness_passed++;                                                         \
        } else {                                                                      \
            harness_failed++;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s returned %d (%s; %s), expected %d\n",    \
                    __FILE__, __LINE__, #expr, (int)rc_, punctual_strerror(rc_),       \
                    punctual_last_error_message(), (int)(expected));                  \
        }                                                                             \
    } while (0)

/* Now on the OS clock punctual_now_ns() claims to read, read directly. */
int64_t os_monotonic_ns(void);

/* A thread running fn(arg). */
typedef struct test_thread {
    void *native;
    void (*fn)(void *);
    void *arg;
} test_thread;
int test_thread_start(test_thread *thread, void (*fn)(void *), void *arg);
void test_thread_join(test_thread *thread);

/* One checked wait (sleeps.c): 1 when it was never early and its report adds up. */
int checked_wait(punctual_sleeper *sleeper, int64_t duration_ns, int until);

/* The number in environment variable `name`, or `fallback`. */
long env_count(const char *name, long fallback);

void test_sleeps(void);
void test_signals(void);
void test_threads(void);
void test_ticker(void);
void test_poll(void);
void test_bad_input(void);
void test_info_and_rt(void);
void test_probe(void);
void test_fork(void);

#endif
