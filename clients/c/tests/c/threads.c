/* Several threads sleeping at once; one handle shared by two threads; free during a sleep. */
#include "harness.h"

typedef struct sleeper_run {
    int strategy;
    long sleeps;
    long failures;
} sleeper_run;

static void run_sleeps(void *arg) {
    sleeper_run *run = (sleeper_run *)arg;
    punctual_sleeper *sleeper = NULL;
    if (punctual_sleeper_new(run->strategy, &sleeper) != PUNCTUAL_OK) {
        run->failures = run->sleeps;
        return;
    }
    for (long i = 0; i < run->sleeps; i++) {
        run->failures += !checked_wait(i % 2 ? sleeper : NULL, (i % 5) * 20000, (int)(i % 3 == 0));
    }
    if (punctual_sleeper_free(sleeper) != PUNCTUAL_OK) {
        run->failures++;
    }
}

typedef struct long_sleep {
    punctual_sleeper *sleeper;
    int64_t duration_ns;
    volatile int started;
    volatile int done;
    int32_t rc;
} long_sleep;

static void sleep_long(void *arg) {
    long_sleep *job = (long_sleep *)arg;
    job->started = 1;
    job->rc = punctual_sleeper_sleep_ns(job->sleeper, job->duration_ns, NULL);
    job->done = 1;
}

void test_threads(void) {
    enum { THREADS = 4 };
    test_thread threads[THREADS];
    sleeper_run runs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        runs[t].strategy = t % 3;
        runs[t].sleeps = 2000;
        runs[t].failures = 0;
        CHECK(test_thread_start(&threads[t], run_sleeps, &runs[t]) == 0);
    }
    long failures = 0;
    for (int t = 0; t < THREADS; t++) {
        test_thread_join(&threads[t]);
        failures += runs[t].failures;
    }
    printf("threads: %d threads, %d sleeps each: %ld early or wrong\n", THREADS, 2000, failures);
    CHECK(failures == 0);

    /* A second call on a handle in use is PUNCTUAL_E_BUSY, not a race. Retried, since the
     * sleeping thread may not have entered its call yet when this one runs; and that thread
     * may enter while this one's probe holds the handle, and be the busy one. */
    int saw_busy = 0;
    for (int attempt = 0; attempt < 5 && !saw_busy; attempt++) {
        long_sleep job = {NULL, 300000000, 0, 0, -100};
        CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_NATIVE, &job.sleeper), PUNCTUAL_OK);
        test_thread thread;
        CHECK(test_thread_start(&thread, sleep_long, &job) == 0);
        while (!job.done && !saw_busy) {
            int32_t rc = punctual_sleeper_sleep_ns(job.sleeper, 0, NULL);
            saw_busy = rc == PUNCTUAL_E_BUSY;
            if (rc != PUNCTUAL_OK && rc != PUNCTUAL_E_BUSY) {
                CHECK_CODE(rc, PUNCTUAL_E_BUSY);
                break;
            }
            punctual_sleep_ns(1000000, NULL);
        }
        test_thread_join(&thread);
        /* Whichever call came second is the busy one: when this thread's probe held the
         * handle as the sleeping thread entered, the sleep got PUNCTUAL_E_BUSY. */
        if (job.rc == PUNCTUAL_E_BUSY) {
            saw_busy = 1;
        } else {
            CHECK_CODE(job.rc, PUNCTUAL_OK);
        }
        CHECK_CODE(punctual_sleeper_free(job.sleeper), PUNCTUAL_OK);
    }
    CHECK(saw_busy);

    /* Freed while another thread sleeps on it: that sleep ends normally, the handle is gone. */
    long_sleep job = {NULL, 100000000, 0, 0, -100};
    CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_HYBRID, &job.sleeper), PUNCTUAL_OK);
    test_thread thread;
    CHECK(test_thread_start(&thread, sleep_long, &job) == 0);
    while (!job.started) {
        punctual_sleep_ns(100000, NULL);
    }
    punctual_sleep_ns(20000000, NULL);
    CHECK_CODE(punctual_sleeper_free(job.sleeper), PUNCTUAL_OK);
    test_thread_join(&thread);
    CHECK(job.rc == PUNCTUAL_OK || job.rc == PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_sleeper_sleep_ns(job.sleeper, 0, NULL), PUNCTUAL_E_INVALID_HANDLE);
}
