/* The poll loop: timeouts with elapsed time and poll count, the condition's own error. */
#include "harness.h"

typedef struct poll_state {
    int calls;
    int hooks;
    int ready_at;   /* the call that reports ready, 0 for never */
    int fail_at;    /* the call that fails, 0 for never */
    int32_t failure;
    int64_t first_call_ns; /* when the condition first ran: the loop started before */
} poll_state;

static int32_t condition(void *user_data) {
    poll_state *state = (poll_state *)user_data;
    if (state->calls++ == 0) {
        state->first_call_ns = punctual_now_ns();
    }
    if (state->fail_at != 0 && state->calls == state->fail_at) {
        return state->failure;
    }
    return state->ready_at != 0 && state->calls >= state->ready_at ? PUNCTUAL_POLL_READY
                                                                    : PUNCTUAL_POLL_PENDING;
}

static void before_sleep(void *user_data) {
    ((poll_state *)user_data)->hooks++;
}

void test_poll(void) {
    /* A step longer than the timeout: one check, one sleep shortened to the deadline, one
     * last check there, then the timeout; within the deadline plus one step. */
    poll_state state = {0, 0, 0, 0, 0, 0};
    punctual_poll_report report = PUNCTUAL_POLL_REPORT_INIT;
    int64_t start = punctual_now_ns();
    int64_t deadline = start + 30000000;
    CHECK_CODE(punctual_poll_until(deadline, 100000000, condition, before_sleep, &state, &report),
               PUNCTUAL_E_TIMED_OUT);
    int64_t end = punctual_now_ns();
    CHECK(report.polls == 2 && state.calls == 2 && state.hooks == 1 && report.condition_error == 0);
    /* The loop's start lies between `start` and the first call of the condition. */
    CHECK(end >= deadline && report.elapsed_ns >= deadline - state.first_call_ns && report.elapsed_ns <= end - start);
    CHECK(end < deadline + 100000000);

    /* Short steps: never more checks than steps fit, a hook before every sleep. */
    poll_state steps = {0, 0, 0, 0, 0, 0};
    start = punctual_now_ns();
    deadline = start + 20000000;
    CHECK_CODE(punctual_poll_until(deadline, 1000000, condition, before_sleep, &steps, &report),
               PUNCTUAL_E_TIMED_OUT);
    CHECK(punctual_now_ns() >= deadline);
    CHECK(report.polls >= 2 && report.polls <= 22 && (int)report.polls == steps.calls);
    CHECK(steps.hooks == steps.calls - 1);

    /* The condition's own error ends the loop with its code. */
    poll_state failing = {0, 0, 0, 3, -42, 0};
    CHECK_CODE(punctual_poll_until(PUNCTUAL_DEADLINE_NEVER, 1000, condition, before_sleep, &failing, &report),
               PUNCTUAL_E_CONDITION);
    CHECK(report.condition_error == -42 && report.polls == 3 && failing.hooks == 2);
    poll_state positive = {0, 0, 0, 1, 5, 0};
    CHECK_CODE(punctual_poll_until(PUNCTUAL_DEADLINE_NEVER, 0, condition, NULL, &positive, &report),
               PUNCTUAL_E_CONDITION);
    CHECK(report.condition_error == 5 && report.polls == 1);

    /* Met: PUNCTUAL_OK, with the polls it took; no hook is fine. */
    poll_state ready = {0, 0, 4, 0, 0, 0};
    CHECK_CODE(punctual_poll_until(punctual_now_ns() + 5000000000LL, 100000, condition, NULL, &ready, &report),
               PUNCTUAL_OK);
    CHECK(report.polls == 4 && ready.calls == 4 && report.condition_error == 0);
    CHECK_CODE(punctual_poll_until(PUNCTUAL_DEADLINE_NEVER, 0, condition, NULL, &ready, NULL), PUNCTUAL_OK);

    /* Bad input, found before the condition runs. */
    poll_state untouched = {0, 0, 1, 0, 0, 0};
    CHECK_CODE(punctual_poll_until(PUNCTUAL_DEADLINE_NEVER, 0, NULL, NULL, &untouched, &report),
               PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_poll_until(PUNCTUAL_DEADLINE_NEVER, -1, condition, NULL, &untouched, &report),
               PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_poll_until(-5, 0, condition, NULL, &untouched, &report), PUNCTUAL_E_INVALID_ARGUMENT);
    punctual_poll_report small = {0, 0, 0, 0};
    CHECK_CODE(punctual_poll_until(PUNCTUAL_DEADLINE_NEVER, 0, condition, NULL, &untouched, &small),
               PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(untouched.calls == 0);

    /* Deadlines. */
    int64_t at = 0, remaining = 0;
    CHECK_CODE(punctual_deadline_after_ns(1000000000, &at), PUNCTUAL_OK);
    CHECK_CODE(punctual_deadline_remaining_ns(at, &remaining), PUNCTUAL_OK);
    CHECK(remaining > 0 && remaining <= 1000000000);
    CHECK_CODE(punctual_deadline_after_ns(INT64_MAX, &at), PUNCTUAL_OK);
    CHECK(at == PUNCTUAL_DEADLINE_NEVER);
    CHECK_CODE(punctual_deadline_remaining_ns(PUNCTUAL_DEADLINE_NEVER, &remaining), PUNCTUAL_OK);
    CHECK(remaining == INT64_MAX);
    CHECK_CODE(punctual_deadline_remaining_ns(0, &remaining), PUNCTUAL_OK);
    CHECK(remaining == 0);
    CHECK_CODE(punctual_deadline_after_ns(-1, &at), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_deadline_after_ns(0, NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_deadline_remaining_ns(-1, &remaining), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_deadline_remaining_ns(0, NULL), PUNCTUAL_E_NULL_POINTER);
}
