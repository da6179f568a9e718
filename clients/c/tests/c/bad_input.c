/* Every bad input gets an error code and a message, never a crash. */
#include "harness.h"

#include <string.h>

static void handles(void) {
    punctual_sleeper *sleeper = NULL;
    punctual_ticker *ticker = NULL;
    punctual_sleeper *made_up = (punctual_sleeper *)(uintptr_t)0x1234;
    int32_t strategy = -1;
    int64_t margin = -1;

    CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_HYBRID, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_sleeper_new(3, &sleeper), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleeper_new(-1, &sleeper), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleeper_new(INT32_MAX, &sleeper), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(sleeper == NULL);
    CHECK(strstr(punctual_last_error_message(), "unknown strategy") != NULL);

    CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_SPIN, &sleeper), PUNCTUAL_OK);
    CHECK_CODE(punctual_sleeper_strategy(sleeper, &strategy), PUNCTUAL_OK);
    CHECK(strategy == PUNCTUAL_STRATEGY_SPIN);
    CHECK_CODE(punctual_sleeper_margin_ns(sleeper, &margin), PUNCTUAL_OK);
    CHECK(margin >= 0);
    CHECK_CODE(punctual_sleeper_strategy(sleeper, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_sleeper_margin_ns(sleeper, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_sleeper_sleep_ns(sleeper, -1, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleeper_sleep_ns(sleeper, INT64_MIN, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleeper_sleep_until_ns(sleeper, -1, NULL), PUNCTUAL_E_INVALID_ARGUMENT);

    /* NULL, a made-up value, another kind of handle: never dereferenced. */
    CHECK_CODE(punctual_sleeper_sleep_ns(NULL, 0, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_sleeper_sleep_until_ns(NULL, 0, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_sleeper_strategy(NULL, &strategy), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_sleeper_sleep_ns(made_up, 0, NULL), PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_sleeper_free(made_up), PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_ticker_new(1000000, PUNCTUAL_STRATEGY_NATIVE, PUNCTUAL_MISSED_TICK_SKIP, &ticker),
               PUNCTUAL_OK);
    CHECK_CODE(punctual_sleeper_sleep_ns((punctual_sleeper *)(void *)ticker, 0, NULL),
               PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_sleeper_free((punctual_sleeper *)(void *)ticker), PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_ticker_free((punctual_ticker *)(void *)sleeper), PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_ticker_tick(NULL, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_ticker_next_index(ticker, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_ticker_missed(ticker, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_ticker_deadline_ns(ticker, 0, NULL), PUNCTUAL_E_NULL_POINTER);

    /* Double free, and use after free. */
    CHECK_CODE(punctual_sleeper_free(sleeper), PUNCTUAL_OK);
    CHECK_CODE(punctual_sleeper_free(sleeper), PUNCTUAL_E_INVALID_HANDLE);
    CHECK(strstr(punctual_last_error_message(), "not a live punctual_sleeper") != NULL);
    CHECK_CODE(punctual_sleeper_sleep_ns(sleeper, 0, NULL), PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_OK);
    CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_E_INVALID_HANDLE);
    CHECK_CODE(punctual_ticker_tick(ticker, NULL), PUNCTUAL_E_INVALID_HANDLE);
    /* A misaligned out parameter: an error, and no handle made. */
    union {
        void *align;
        unsigned char bytes[2 * sizeof(void *)];
    } slot;
    memset(&slot, 0, sizeof slot);
    CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_NATIVE, (punctual_sleeper **)(void *)(slot.bytes + 1)),
               PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(strstr(punctual_last_error_message(), "aligned") != NULL);
    /* free(NULL) does nothing, as with free(3). */
    CHECK_CODE(punctual_sleeper_free(NULL), PUNCTUAL_OK);
    CHECK_CODE(punctual_ticker_free(NULL), PUNCTUAL_OK);
    CHECK_CODE(punctual_dma_latency_free(NULL), PUNCTUAL_OK);
}

static void reports(void) {
    punctual_wake zero = {0, 0, 0, 0, 0, 0};
    CHECK_CODE(punctual_sleep_ns(0, &zero), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(strstr(punctual_last_error_message(), "sizeof(punctual_wake)") != NULL);
    zero.size = sizeof zero - 1;
    CHECK_CODE(punctual_sleep_until_ns(0, &zero), PUNCTUAL_E_INVALID_ARGUMENT);

    /* A larger struct from a newer header: filled up to our size, the rest left alone. */
    struct {
        punctual_wake wake;
        int64_t newer_field;
    } newer;
    memset(&newer, 0, sizeof newer);
    newer.wake.size = sizeof newer;
    newer.newer_field = 77;
    CHECK_CODE(punctual_sleep_ns(1000, &newer.wake), PUNCTUAL_OK);
    CHECK(newer.wake.size == sizeof(punctual_wake) && newer.newer_field == 77);
    CHECK(newer.wake.woke_ns >= newer.wake.deadline_ns);

    /* Misaligned. */
    union {
        int64_t align;
        unsigned char bytes[2 * sizeof(punctual_wake)];
    } buffer;
    memset(&buffer, 0, sizeof buffer);
    punctual_wake *misaligned = (punctual_wake *)(void *)(buffer.bytes + 1);
    CHECK_CODE(punctual_sleep_ns(0, misaligned), PUNCTUAL_E_INVALID_ARGUMENT);

    CHECK_CODE(punctual_sleep_ns(-1, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(strstr(punctual_last_error_message(), "negative") != NULL);
    CHECK_CODE(punctual_sleep_ns(INT64_MIN, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleep_until_ns(-1, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleep_until_ns(INT64_MIN, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    punctual_timer_info info = PUNCTUAL_TIMER_INFO_INIT;
    info.size = 4;
    CHECK_CODE(punctual_get_timer_info(&info), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_get_timer_info(NULL), PUNCTUAL_E_NULL_POINTER);
}

static void codes(void) {
    const int32_t all[] = {PUNCTUAL_OK, PUNCTUAL_E_NULL_POINTER, PUNCTUAL_E_INVALID_HANDLE,
                           PUNCTUAL_E_INVALID_ARGUMENT, PUNCTUAL_E_OUT_OF_RANGE, PUNCTUAL_E_BUSY,
                           PUNCTUAL_E_TIMED_OUT, PUNCTUAL_E_CONDITION, PUNCTUAL_E_PERMISSION_DENIED,
                           PUNCTUAL_E_UNSUPPORTED, PUNCTUAL_E_INVALID_PRIORITY, PUNCTUAL_E_INVALID_SLACK,
                           PUNCTUAL_E_INVALID_AFFINITY, PUNCTUAL_E_OS, PUNCTUAL_E_INTERNAL};
    const char *unknown = punctual_strerror(12345);
    CHECK(unknown != NULL && strstr(unknown, "unknown") != NULL);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *text = punctual_strerror(all[i]);
        CHECK(text != NULL && text[0] != '\0' && strcmp(text, unknown) != 0);
    }
    CHECK(punctual_version_number() == PUNCTUAL_VERSION_NUMBER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", PUNCTUAL_VERSION_MAJOR, PUNCTUAL_VERSION_MINOR,
             PUNCTUAL_VERSION_PATCH);
    CHECK(strcmp(punctual_version(), version) == 0);
    CHECK(0 - PUNCTUAL_E_BUSY == 5);
}

void test_bad_input(void) {
    handles();
    reports();
    codes();
}
