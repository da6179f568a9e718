/* fork() while another thread sleeps on a handle (docs/clients.md, "fork safety"): in the
 * child that handle is PUNCTUAL_E_BUSY (the sleeping thread was not copied, and its call
 * still holds the handle), while a fresh handle and the process-wide sleep work. */
#include "harness.h"

#if !defined(__linux__)
void test_fork(void) {
    printf("skip: fork (a Linux test: no fork() on Windows)\n");
    harness_skipped++;
}
#else
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct held_sleep {
    punctual_sleeper *sleeper;
    volatile int done;
    int32_t rc;
} held_sleep;

static void sleep_on_it(void *arg) {
    held_sleep *job = (held_sleep *)arg;
    job->rc = punctual_sleeper_sleep_ns(job->sleeper, 400000000, NULL); /* 400 ms */
    job->done = 1;
}

/* The child's checks, one bit each in its exit status (0: all passed). */
enum {
    CHILD_HELD_NOT_BUSY = 1 << 0,
    CHILD_HELD_MESSAGE = 1 << 1,
    CHILD_FRESH_FAILED = 1 << 2,
    CHILD_FRESH_EARLY = 1 << 3,
    CHILD_GLOBAL_EARLY = 1 << 4,
};

static int child_checks(punctual_sleeper *held) {
    int failed = 0;
    if (punctual_sleeper_sleep_ns(held, 0, NULL) != PUNCTUAL_E_BUSY) {
        failed |= CHILD_HELD_NOT_BUSY;
    } else if (strstr(punctual_last_error_message(), "in use by another thread") == NULL) {
        failed |= CHILD_HELD_MESSAGE;
    }
    punctual_sleeper *fresh = NULL;
    if (punctual_sleeper_new(PUNCTUAL_STRATEGY_HYBRID, &fresh) != PUNCTUAL_OK) {
        return failed | CHILD_FRESH_FAILED;
    }
    for (int i = 0; i < 20; i++) {
        int64_t start = os_monotonic_ns();
        int64_t wait_ns = (i % 4) * 250000;
        if (punctual_sleeper_sleep_ns(fresh, wait_ns, NULL) != PUNCTUAL_OK) {
            failed |= CHILD_FRESH_FAILED;
        }
        if (os_monotonic_ns() - start < wait_ns) {
            failed |= CHILD_FRESH_EARLY;
        }
        start = os_monotonic_ns();
        if (punctual_sleep_ns(wait_ns, NULL) != PUNCTUAL_OK || os_monotonic_ns() - start < wait_ns) {
            failed |= CHILD_GLOBAL_EARLY;
        }
    }
    if (punctual_sleeper_free(fresh) != PUNCTUAL_OK) {
        failed |= CHILD_FRESH_FAILED;
    }
    return failed;
}

/* Forks while another thread's call holds `job`'s handle; 0 when that call ended before
 * this thread saw it hold the handle (nothing forked), else 1. */
static int fork_while_held(held_sleep *job) {
    /* This thread's own call on the handle is the busy one only while the other holds it. */
    int held = 0;
    while (!held && !job->done) {
        held = punctual_sleeper_sleep_ns(job->sleeper, 0, NULL) == PUNCTUAL_E_BUSY;
        if (!held) {
            punctual_sleep_ns(1000000, NULL);
        }
    }
    if (!held) {
        return 0;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        _exit(child_checks(job->sleeper));
    }
    if (pid > 0) {
        int status = 0;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        int failed = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        printf("fork: in the child the handle another thread slept on is %s; a fresh handle %s\n",
               failed & CHILD_HELD_NOT_BUSY ? "NOT busy" : "PUNCTUAL_E_BUSY",
               failed & (CHILD_FRESH_FAILED | CHILD_FRESH_EARLY) ? "FAILED" : "sleeps, never early");
        if (failed != 0) {
            fprintf(stderr, "fork: the child's failed checks: %#x\n", (unsigned)failed);
        }
        CHECK(failed == 0);
    }
    return 1;
}

void test_fork(void) {
    /* Retried, as the busy test in threads.c is: on a loaded machine the sleeping thread may
     * not run before its sleep is over. */
    int forked = 0;
    for (int attempt = 0; attempt < 5 && !forked; attempt++) {
        held_sleep job = {NULL, 0, -100};
        CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_NATIVE, &job.sleeper), PUNCTUAL_OK);
        test_thread thread;
        CHECK(test_thread_start(&thread, sleep_on_it, &job) == 0);
        forked = fork_while_held(&job);
        /* In the parent the sleeping thread is still there: the handle frees as usual. */
        CHECK_CODE(punctual_sleeper_free(job.sleeper), PUNCTUAL_OK);
        test_thread_join(&thread);
        CHECK(job.rc == PUNCTUAL_OK || job.rc == PUNCTUAL_E_INVALID_HANDLE || job.rc == PUNCTUAL_E_BUSY);
    }
    CHECK(forked);
}
#endif
