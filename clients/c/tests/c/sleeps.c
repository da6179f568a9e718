/* Never early: mixed sleeps on every strategy, against punctual's clock and the OS's. */
#include "harness.h"

static const int64_t durations_ns[] = {0, 1, 50, 500, 2000, 10000, 30000};
#define DURATIONS (sizeof durations_ns / sizeof durations_ns[0])

/* One checked wait: sleep `duration_ns` (form 0, 2) or until now + it (form 1, 3), by
 * `sleeper` or the thread's own when NULL, through the exported functions (forms 0, 1) or
 * the header's inline ones that spin the last stretch here (forms 2, 3). Returns 1 when
 * every promise held. */
int checked_wait(punctual_sleeper *sleeper, int64_t duration_ns, int form) {
    punctual_wake wake = PUNCTUAL_WAKE_INIT;
    int64_t before = punctual_now_ns();
    int64_t target = before + duration_ns;
    int until = form % 2;
    int32_t rc;
    if (sleeper == NULL && form < 2) {
        rc = until ? punctual_sleep_until_ns(target, &wake) : punctual_sleep_ns(duration_ns, &wake);
    } else if (sleeper == NULL) {
        rc = until ? punctual_sleep_until_inline_ns(target, &wake) : punctual_sleep_inline_ns(duration_ns, &wake);
    } else if (form < 2) {
        rc = until ? punctual_sleeper_sleep_until_ns(sleeper, target, &wake)
                   : punctual_sleeper_sleep_ns(sleeper, duration_ns, &wake);
    } else {
        rc = until ? punctual_sleeper_sleep_until_inline_ns(sleeper, target, &wake)
                   : punctual_sleeper_sleep_inline_ns(sleeper, duration_ns, &wake);
    }
    int64_t after = punctual_now_ns();
    int64_t os_after = os_monotonic_ns();
    int ok = rc == PUNCTUAL_OK && wake.size == sizeof wake && after >= target &&
             os_after >= wake.deadline_ns && wake.woke_ns >= wake.deadline_ns &&
             wake.lateness_ns == wake.woke_ns - wake.deadline_ns && wake.spun_ns >= 0 &&
             (until ? wake.deadline_ns == target : wake.deadline_ns >= target) && after >= wake.woke_ns;
    if (!ok) {
        fprintf(stderr,
                "early or wrong: rc %d, duration %lld, form %d, before %lld, deadline %lld, woke %lld, "
                "after %lld, os after %lld\n",
                (int)rc, (long long)duration_ns, form, (long long)before, (long long)wake.deadline_ns,
                (long long)wake.woke_ns, (long long)after, (long long)os_after);
    }
    return ok;
}

void test_sleeps(void) {
    long count = env_count("PUNCTUAL_TEST_SLEEPS", 100000);
    punctual_sleeper *sleepers[4] = {NULL, NULL, NULL, NULL};
    CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_NATIVE, &sleepers[1]), PUNCTUAL_OK);
    CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_HYBRID, &sleepers[2]), PUNCTUAL_OK);
    CHECK_CODE(punctual_sleeper_new(PUNCTUAL_STRATEGY_SPIN, &sleepers[3]), PUNCTUAL_OK);
    long failures = 0;
    for (long i = 0; i < count; i++) {
        /* Strides coprime with each other mix every duration with every sleeper and form. */
        int64_t duration = durations_ns[(size_t)i % DURATIONS];
        if (!checked_wait(sleepers[i % 4], duration, (int)((i / 4) % 4)) && ++failures > 10) {
            break;
        }
    }
    printf("%ld mixed sleeps (set PUNCTUAL_TEST_SLEEPS for another count): %ld early or wrong\n", count,
           failures);
    CHECK(failures == 0);
    /* A deadline already passed returns at once, its lateness reported. */
    punctual_wake wake = PUNCTUAL_WAKE_INIT;
    int64_t past = punctual_now_ns() - 5000000;
    CHECK_CODE(punctual_sleep_until_ns(past, &wake), PUNCTUAL_OK);
    CHECK(wake.deadline_ns == past && wake.lateness_ns >= 5000000);
    CHECK_CODE(punctual_sleep_until_ns(0, NULL), PUNCTUAL_OK);
    CHECK_CODE(punctual_sleep_until_inline_ns(past, &wake), PUNCTUAL_OK);
    CHECK(wake.deadline_ns == past && wake.lateness_ns >= 5000000 && wake.woke_ns - wake.deadline_ns == wake.lateness_ns);
    CHECK_CODE(punctual_sleep_inline_ns(0, NULL), PUNCTUAL_OK);
    /* The inline forms give the exported ones' errors, before any wait. */
    CHECK_CODE(punctual_sleep_inline_ns(-1, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleep_until_inline_ns(-1, NULL), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_sleeper_sleep_inline_ns(NULL, 1000, NULL), PUNCTUAL_E_NULL_POINTER);
    punctual_wake small = PUNCTUAL_WAKE_INIT;
    small.size = 4;
    CHECK_CODE(punctual_sleep_until_inline_ns(punctual_now_ns(), &small), PUNCTUAL_E_INVALID_ARGUMENT);
    /* The way back: learned within its bounds, whatever is recorded. */
    int64_t lead = punctual_way_back_ns();
    CHECK(lead >= 1000 && lead <= 50000);
    punctual_way_back_record_ns(INT64_MIN);
    punctual_way_back_record_ns(INT64_MAX);
    for (int i = 0; i < 64; i++) {
        punctual_way_back_record_ns(punctual_now_ns() - 1000000000);
    }
    CHECK(punctual_way_back_ns() == 50000);
    for (int i = 1; i < 4; i++) {
        CHECK_CODE(punctual_sleeper_free(sleepers[i]), PUNCTUAL_OK);
    }
}
