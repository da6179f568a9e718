/* Timer info and the real-time controls: each either works or says why, with the fix. */
#include "harness.h"

#include <string.h>

static int is_one_of(int32_t rc, int32_t a, int32_t b, int32_t c) {
    return rc == a || rc == b || rc == c;
}

static void realtime_in_a_thread(void *arg) {
    int *failures = (int *)arg;
    punctual_scheduling scheduling = PUNCTUAL_SCHEDULING_INIT;
    int32_t rc = punctual_set_realtime_priority(1, &scheduling);
    if (rc == PUNCTUAL_OK) {
        *failures += !(scheduling.realtime == 1);
        *failures += punctual_set_normal_scheduling(&scheduling) != PUNCTUAL_OK;
        *failures += !(scheduling.realtime == 0 && scheduling.policy == PUNCTUAL_POLICY_OTHER);
    } else {
        /* Refused: the message names the fixes. */
        *failures += !(rc == PUNCTUAL_E_PERMISSION_DENIED &&
                       strstr(punctual_last_error_message(), "CAP_SYS_NICE") != NULL);
    }
}

void test_info_and_rt(void) {
    punctual_timer_info info = PUNCTUAL_TIMER_INFO_INIT;
    CHECK_CODE(punctual_get_timer_info(&info), PUNCTUAL_OK);
    CHECK(info.size == sizeof info && info.mechanism != NULL && info.mechanism[0] != '\0');
    CHECK(info.high_resolution == 0 || info.high_resolution == 1);
    CHECK(info.resolution_ns >= -1 && info.timer_slack_ns >= -1);
    printf("timer: %s, %s resolution, %s%s\n", info.mechanism, info.high_resolution ? "high" : "low",
           info.degraded ? "degraded: " : "not degraded", info.degraded ? info.degraded : "");

    int32_t min = 0, max = 0;
    CHECK_CODE(punctual_priority_range(&min, &max), PUNCTUAL_OK);
    CHECK(min >= 1 && max >= min);
    CHECK_CODE(punctual_priority_range(NULL, &max), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_set_realtime_priority(min - 1, NULL), PUNCTUAL_E_INVALID_PRIORITY);
    CHECK(strstr(punctual_last_error_message(), "out of range") != NULL);
    CHECK_CODE(punctual_set_realtime_priority(max + 1, NULL), PUNCTUAL_E_INVALID_PRIORITY);
    CHECK_CODE(punctual_set_realtime_priority(INT32_MIN, NULL), PUNCTUAL_E_INVALID_PRIORITY);
    punctual_scheduling scheduling = PUNCTUAL_SCHEDULING_INIT;
    CHECK_CODE(punctual_current_scheduling(&scheduling), PUNCTUAL_OK);
    CHECK(scheduling.size == sizeof scheduling);
    CHECK_CODE(punctual_current_scheduling(NULL), PUNCTUAL_E_NULL_POINTER);
    int failures = 0;
    test_thread thread;
    CHECK(test_thread_start(&thread, realtime_in_a_thread, &failures) == 0);
    test_thread_join(&thread);
    CHECK(failures == 0);

    int64_t slack = 0;
    int32_t rc = punctual_timer_slack_ns(&slack);
    CHECK(rc == PUNCTUAL_OK || rc == PUNCTUAL_E_UNSUPPORTED);
    CHECK_CODE(punctual_timer_slack_ns(NULL), PUNCTUAL_E_NULL_POINTER);
    CHECK(is_one_of(punctual_set_timer_slack_ns(0), PUNCTUAL_E_INVALID_SLACK, PUNCTUAL_E_UNSUPPORTED, 1));
    CHECK_CODE(punctual_set_timer_slack_ns(-1), PUNCTUAL_E_INVALID_ARGUMENT);
    rc = punctual_set_timer_slack_ns(1);
    CHECK(rc == PUNCTUAL_OK || rc == PUNCTUAL_E_UNSUPPORTED);

    punctual_dma_latency *request = NULL;
    CHECK_CODE(punctual_dma_latency_new(-1, &request), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_dma_latency_new(0, NULL), PUNCTUAL_E_NULL_POINTER);
    rc = punctual_dma_latency_new(10000, &request);
    CHECK(is_one_of(rc, PUNCTUAL_OK, PUNCTUAL_E_PERMISSION_DENIED, PUNCTUAL_E_UNSUPPORTED));
    if (rc == PUNCTUAL_OK) {
        CHECK_CODE(punctual_dma_latency_free(request), PUNCTUAL_OK);
        CHECK_CODE(punctual_dma_latency_free(request), PUNCTUAL_E_INVALID_HANDLE);
    } else if (rc == PUNCTUAL_E_PERMISSION_DENIED) {
        CHECK(strstr(punctual_last_error_message(), "/dev/cpu_dma_latency") != NULL);
    }

    rc = punctual_lock_memory();
    CHECK(is_one_of(rc, PUNCTUAL_OK, PUNCTUAL_E_PERMISSION_DENIED, PUNCTUAL_E_UNSUPPORTED));
    if (rc == PUNCTUAL_OK) {
        CHECK_CODE(punctual_unlock_memory(), PUNCTUAL_OK);
    } else if (rc == PUNCTUAL_E_PERMISSION_DENIED) {
        CHECK(strstr(punctual_last_error_message(), "CAP_IPC_LOCK") != NULL);
    }

    size_t no_such_cpu = 100000;
    CHECK(is_one_of(punctual_set_affinity(&no_such_cpu, 1), PUNCTUAL_E_INVALID_AFFINITY, PUNCTUAL_E_UNSUPPORTED, 1));
    CHECK(is_one_of(punctual_set_affinity(NULL, 0), PUNCTUAL_E_INVALID_AFFINITY, PUNCTUAL_E_UNSUPPORTED, 1));
    CHECK_CODE(punctual_set_affinity(NULL, 1), PUNCTUAL_E_NULL_POINTER);
}
