#include "harness.h"

#include <stdlib.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#include <time.h>
#endif

int harness_passed = 0;
int harness_failed = 0;
int harness_skipped = 0;

#ifdef _WIN32
int64_t os_monotonic_ns(void) {
    LARGE_INTEGER frequency, count;
    QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&count);
    /* Scaled as Rust's Instant scales it: whole seconds, then the remainder, truncated. */
    return (count.QuadPart / frequency.QuadPart) * 1000000000LL +
           (count.QuadPart % frequency.QuadPart) * 1000000000LL / frequency.QuadPart;
}

static DWORD WINAPI thread_main(LPVOID arg) {
    test_thread *thread = (test_thread *)arg;
    thread->fn(thread->arg);
    return 0;
}

int test_thread_start(test_thread *thread, void (*fn)(void *), void *arg) {
    thread->fn = fn;
    thread->arg = arg;
    thread->native = CreateThread(NULL, 0, thread_main, thread, 0, NULL);
    return thread->native != NULL ? 0 : -1;
}

void test_thread_join(test_thread *thread) {
    WaitForSingleObject((HANDLE)thread->native, INFINITE);
    CloseHandle((HANDLE)thread->native);
}
#else
int64_t os_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *thread_main(void *arg) {
    test_thread *thread = (test_thread *)arg;
    thread->fn(thread->arg);
    return NULL;
}

int test_thread_start(test_thread *thread, void (*fn)(void *), void *arg) {
    pthread_t *native = malloc(sizeof *native);
    thread->fn = fn;
    thread->arg = arg;
    thread->native = native;
    if (native == NULL || pthread_create(native, NULL, thread_main, thread) != 0) {
        free(native);
        return -1;
    }
    return 0;
}

void test_thread_join(test_thread *thread) {
    pthread_join(*(pthread_t *)thread->native, NULL);
    free(thread->native);
}
#endif

long env_count(const char *name, long fallback) {
    const char *value = getenv(name);
    return value != NULL && *value != '\0' ? strtol(value, NULL, 10) : fallback;
}

int main(void) {
    printf("libpunctual %s\n", punctual_version());
    test_bad_input();
    test_sleeps();
    test_signals();
    test_threads();
    test_ticker();
    test_poll();
    test_info_and_rt();
    test_probe();
    test_fork();
    if (harness_skipped > 0) {
        printf("%d skipped (see above)\n", harness_skipped);
    }
    printf("%d passed, %d failed\n", harness_passed, harness_failed);
    return harness_failed == 0 ? 0 : 1;
}
