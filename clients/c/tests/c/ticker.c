/* Ticker arithmetic: exact deadlines and the missed-tick policies. */
#include "harness.h"

static void burst_on_time(void) {
    const int64_t period = 250000;
    int64_t first = punctual_now_ns() + 2000000;
    punctual_ticker *ticker = NULL;
    CHECK_CODE(punctual_ticker_new_at(first, period, PUNCTUAL_STRATEGY_HYBRID, PUNCTUAL_MISSED_TICK_BURST,
                                      &ticker),
               PUNCTUAL_OK);
    const uint64_t indexes[] = {0, 1, 7, 1000, 1000000000};
    for (size_t i = 0; i < sizeof indexes / sizeof indexes[0]; i++) {
        int64_t deadline = 0;
        CHECK_CODE(punctual_ticker_deadline_ns(ticker, indexes[i], &deadline), PUNCTUAL_OK);
        CHECK(deadline == first + (int64_t)indexes[i] * period);
    }
    for (uint64_t k = 0; k < 20; k++) {
        punctual_tick tick = PUNCTUAL_TICK_INIT;
        CHECK_CODE(punctual_ticker_tick(ticker, &tick), PUNCTUAL_OK);
        CHECK(tick.index == k && tick.deadline_ns == first + (int64_t)k * period);
        CHECK(tick.woke_ns >= tick.deadline_ns && punctual_now_ns() >= tick.deadline_ns);
        CHECK(tick.lateness_ns == tick.woke_ns - tick.deadline_ns);
    }
    uint64_t missed = 99;
    CHECK_CODE(punctual_ticker_missed(ticker, &missed), PUNCTUAL_OK);
    CHECK(missed == 0);
    CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_OK);
}

static void skip_past_ticks(void) {
    const int64_t period = 1000000;
    int64_t first = punctual_now_ns() - 10 * period - 1;
    punctual_ticker *ticker = NULL;
    CHECK_CODE(punctual_ticker_new_at(first, period, PUNCTUAL_STRATEGY_NATIVE, PUNCTUAL_MISSED_TICK_SKIP,
                                      &ticker),
               PUNCTUAL_OK);
    int64_t before = punctual_now_ns();
    punctual_tick tick = PUNCTUAL_TICK_INIT;
    CHECK_CODE(punctual_ticker_tick(ticker, &tick), PUNCTUAL_OK);
    /* The first grid point not yet past when the call began, every earlier one missed. */
    CHECK(tick.index >= 11 && tick.missed == tick.index);
    CHECK(tick.deadline_ns == first + (int64_t)tick.index * period);
    CHECK(tick.deadline_ns >= before && tick.deadline_ns - period < punctual_now_ns());
    uint64_t next = 0, missed = 0;
    CHECK_CODE(punctual_ticker_next_index(ticker, &next), PUNCTUAL_OK);
    CHECK_CODE(punctual_ticker_missed(ticker, &missed), PUNCTUAL_OK);
    CHECK(next == tick.index + 1 && missed == tick.missed);
    CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_OK);
}

static void burst_catches_up(void) {
    const int64_t period = 1000000;
    int64_t first = punctual_now_ns() - 5 * period;
    punctual_ticker *ticker = NULL;
    CHECK_CODE(punctual_ticker_new_at(first, period, PUNCTUAL_STRATEGY_SPIN, PUNCTUAL_MISSED_TICK_BURST,
                                      &ticker),
               PUNCTUAL_OK);
    for (uint64_t k = 0; k < 3; k++) {
        punctual_tick tick = PUNCTUAL_TICK_INIT;
        CHECK_CODE(punctual_ticker_tick(ticker, &tick), PUNCTUAL_OK);
        CHECK(tick.index == k && tick.missed == 0 && tick.deadline_ns == first + (int64_t)k * period);
        CHECK(tick.lateness_ns >= (int64_t)(5 - k) * period - period);
    }
    CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_OK);
}

static void delay_reanchors(void) {
    const int64_t period = 1000000;
    int64_t first = punctual_now_ns() - 3 * period - 1;
    punctual_ticker *ticker = NULL;
    CHECK_CODE(punctual_ticker_new_at(first, period, PUNCTUAL_STRATEGY_HYBRID, PUNCTUAL_MISSED_TICK_DELAY,
                                      &ticker),
               PUNCTUAL_OK);
    punctual_tick late = PUNCTUAL_TICK_INIT, next = PUNCTUAL_TICK_INIT;
    CHECK_CODE(punctual_ticker_tick(ticker, &late), PUNCTUAL_OK);
    CHECK(late.index == 0 && late.deadline_ns == first && late.missed >= 3);
    /* Re-anchored on the late tick: later ticks are whole periods after its wake. */
    int64_t deadline = 0;
    CHECK_CODE(punctual_ticker_deadline_ns(ticker, 0, &deadline), PUNCTUAL_OK);
    CHECK(deadline == late.woke_ns);
    CHECK_CODE(punctual_ticker_deadline_ns(ticker, 3, &deadline), PUNCTUAL_OK);
    CHECK(deadline == late.woke_ns + 3 * period);
    CHECK_CODE(punctual_ticker_tick(ticker, &next), PUNCTUAL_OK);
    CHECK(next.index == 1 && next.deadline_ns == late.woke_ns + period);
    CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_OK);
}

static void out_of_range(void) {
    punctual_ticker *ticker = NULL;
    int64_t deadline = 0;
    CHECK_CODE(punctual_ticker_new(INT64_MAX, PUNCTUAL_STRATEGY_NATIVE, PUNCTUAL_MISSED_TICK_SKIP, &ticker),
               PUNCTUAL_OK);
    CHECK_CODE(punctual_ticker_deadline_ns(ticker, 2, &deadline), PUNCTUAL_E_OUT_OF_RANGE);
    CHECK_CODE(punctual_ticker_deadline_ns(ticker, UINT64_MAX, &deadline), PUNCTUAL_E_OUT_OF_RANGE);
    CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_OK);
    CHECK_CODE(punctual_ticker_new(0, PUNCTUAL_STRATEGY_NATIVE, PUNCTUAL_MISSED_TICK_SKIP, &ticker),
               PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_ticker_new(-1, PUNCTUAL_STRATEGY_NATIVE, PUNCTUAL_MISSED_TICK_SKIP, &ticker),
               PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_ticker_new_at(-1, 1000, PUNCTUAL_STRATEGY_NATIVE, PUNCTUAL_MISSED_TICK_SKIP, &ticker),
               PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_ticker_new(1000, PUNCTUAL_STRATEGY_NATIVE, 3, &ticker), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_ticker_new(1000, -1, PUNCTUAL_MISSED_TICK_SKIP, &ticker), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_ticker_new(1000, PUNCTUAL_STRATEGY_NATIVE, PUNCTUAL_MISSED_TICK_SKIP, NULL),
               PUNCTUAL_E_NULL_POINTER);
}

/* The inline tick reads the clock here to the deadline: never early by this caller's
 * reading, on the grid, for every strategy (a native one ignores the lead and spins for
 * nothing); the library's part alone ends at most the lead before the deadline. */
static void inline_ticks(void) {
    const int64_t period = 300000;
    const punctual_strategy strategies[] = {PUNCTUAL_STRATEGY_HYBRID, PUNCTUAL_STRATEGY_SPIN,
                                            PUNCTUAL_STRATEGY_NATIVE};
    for (size_t s = 0; s < sizeof strategies / sizeof strategies[0]; s++) {
        int64_t first = punctual_now_ns() + 1000000;
        punctual_ticker *ticker = NULL;
        CHECK_CODE(punctual_ticker_new_at(first, period, strategies[s], PUNCTUAL_MISSED_TICK_SKIP, &ticker),
                   PUNCTUAL_OK);
        uint64_t next = 0;
        for (int k = 0; k < 30; k++) {
            punctual_tick tick = PUNCTUAL_TICK_INIT;
            CHECK_CODE(punctual_ticker_tick_inline(ticker, &tick), PUNCTUAL_OK);
            int64_t after = punctual_now_ns();
            CHECK(tick.index == next + tick.missed);
            CHECK(tick.deadline_ns == first + (int64_t)tick.index * period);
            CHECK(tick.woke_ns >= tick.deadline_ns && after >= tick.woke_ns);
            CHECK(tick.lateness_ns == tick.woke_ns - tick.deadline_ns && tick.spun_ns >= 0);
            if (strategies[s] == PUNCTUAL_STRATEGY_NATIVE) {
                CHECK(tick.spun_ns == 0);
            }
            next = tick.index + 1;
        }
        punctual_tick ahead = PUNCTUAL_TICK_INIT;
        CHECK_CODE(punctual_ticker_tick_ahead_ns(ticker, 50000, &ahead), PUNCTUAL_OK);
        CHECK(ahead.index == next + ahead.missed && ahead.lateness_ns == ahead.woke_ns - ahead.deadline_ns);
        CHECK(ahead.woke_ns >= ahead.deadline_ns - 50000);
        if (strategies[s] == PUNCTUAL_STRATEGY_NATIVE) {
            CHECK(ahead.woke_ns >= ahead.deadline_ns);
        }
        CHECK_CODE(punctual_ticker_tick_ahead_ns(ticker, -1, &ahead), PUNCTUAL_E_INVALID_ARGUMENT);
        CHECK_CODE(punctual_ticker_tick_ahead_ns(NULL, 0, &ahead), PUNCTUAL_E_NULL_POINTER);
        punctual_tick small = PUNCTUAL_TICK_INIT;
        small.size = 8;
        CHECK_CODE(punctual_ticker_tick_inline(ticker, &small), PUNCTUAL_E_INVALID_ARGUMENT);
        CHECK_CODE(punctual_ticker_tick_inline(ticker, NULL), PUNCTUAL_OK);
        CHECK_CODE(punctual_ticker_free(ticker), PUNCTUAL_OK);
    }
}

void test_ticker(void) {
    inline_ticks();
    burst_on_time();
    skip_past_ticks();
    burst_catches_up();
    delay_reanchors();
    out_of_range();
}
