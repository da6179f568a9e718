/* Signals during sleeps: SIGUSR1 without SA_RESTART does not shorten a sleep. */
#include "harness.h"

#ifdef _WIN32
void test_signals(void) {
    printf("skip: signals during sleeps (Windows has no POSIX signals to deliver)\n");
    harness_skipped++;
}
#else
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t signals_caught = 0;
static volatile int stop_signalling = 0;

static void on_sigusr1(int signal) {
    (void)signal;
    signals_caught++;
}

static void signaller(void *target) {
    struct timespec pause = {0, 300000};
    while (!stop_signalling) {
        pthread_kill(*(pthread_t *)target, SIGUSR1);
        nanosleep(&pause, NULL);
    }
}

void test_signals(void) {
    struct sigaction action, previous;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sigusr1;
    action.sa_flags = 0; /* no SA_RESTART: every interrupted call sees EINTR */
    sigemptyset(&action.sa_mask);
    CHECK(sigaction(SIGUSR1, &action, &previous) == 0);

    pthread_t self = pthread_self();
    test_thread thread;
    stop_signalling = 0;
    CHECK(test_thread_start(&thread, signaller, &self) == 0);
    punctual_sleeper *sleepers[3];
    long failures = 0;
    for (int s = 0; s < 3; s++) {
        CHECK_CODE(punctual_sleeper_new(s, &sleepers[s]), PUNCTUAL_OK);
        for (int i = 0; i < 100; i++) {
            failures += !checked_wait(sleepers[s], 2000000, i % 2);
        }
        failures += !checked_wait(NULL, 2000000, 0);
        CHECK_CODE(punctual_sleeper_free(sleepers[s]), PUNCTUAL_OK);
    }
    stop_signalling = 1;
    test_thread_join(&thread);
    sigaction(SIGUSR1, &previous, NULL);
    printf("signals: %d SIGUSR1 caught during 303 sleeps of 2 ms; %ld early\n", (int)signals_caught,
           failures);
    CHECK(signals_caught > 100);
    CHECK(failures == 0);
}
#endif
