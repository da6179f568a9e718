/* The sleep probe and its cheat sheet: the OS's plain sleep timed, a sleep of the caller's
 * with a 15.625 ms tick found, a failing sleep ending the probe, and bad input refused. */
#include "harness.h"

#include <string.h>

#define TICK_NS 15625000LL

/* Win32 Sleep on the default timer, modelled: a request ends at the first 15.625 ms tick
 * edge (of punctual_now_ns()'s clock) at or after it. */
static int32_t tick_sleep(uint32_t ms, void *user_data) {
    const int64_t end = punctual_now_ns() + (int64_t)ms * 1000000;
    (void)user_data;
    return punctual_sleep_until_ns((end + TICK_NS - 1) / TICK_NS * TICK_NS, NULL);
}

struct failing {
    int calls;
};

/* Fails on its third call, with a code of its own. */
static int32_t failing_sleep(uint32_t ms, void *user_data) {
    struct failing *state = (struct failing *)user_data;
    (void)ms;
    return ++state->calls == 3 ? 7 : 0;
}

static const int64_t requests_ms[PUNCTUAL_PROBE_REQUESTS] = {1, 2, 5, 10, 15, 16, 20, 30};

static void plain_sleep_probed(void) {
    punctual_probe_report report = PUNCTUAL_PROBE_REPORT_INIT;
    CHECK_CODE(punctual_probe(1, NULL, NULL, &report), PUNCTUAL_OK);
    CHECK(report.size == sizeof report && report.samples == 1);
    CHECK(report.cost_count == PUNCTUAL_PROBE_REQUESTS && report.sleep_error == 0);
    for (uint32_t i = 0; i < report.cost_count; i++) {
        CHECK(report.costs[i].request_ns == requests_ms[i] * 1000000);
        CHECK(report.costs[i].mean_ns >= report.floor_ns);
    }
    CHECK(report.floor_ns > 0);
    /* Quantised or not: exactly one of the two verdicts. */
    CHECK((report.quantum_ns >= 0) != (report.overshoot_ns >= 0));
#ifdef _WIN32
    CHECK(report.primitive != NULL && strcmp(report.primitive, "Win32 Sleep()") == 0);
#else
    CHECK(report.primitive != NULL && strcmp(report.primitive, "std::thread::sleep") == 0);
#endif
    printf("probe: %s costs at least %.3f ms; %s %.3f ms\n", report.primitive, report.floor_ns / 1e6,
           report.quantum_ns >= 0 ? "quantised at" : "not quantised, overshoot",
           (report.quantum_ns >= 0 ? report.quantum_ns : report.overshoot_ns) / 1e6);
}

static void tick_found(void) {
    punctual_probe_report report = PUNCTUAL_PROBE_REPORT_INIT;
    CHECK_CODE(punctual_probe(2, tick_sleep, NULL, &report), PUNCTUAL_OK);
    CHECK(report.primitive == NULL && report.overshoot_ns == -1);
    CHECK(report.quantum_ns > TICK_NS - 1000000 && report.quantum_ns < TICK_NS + 1000000);
    /* 1 to 10 ms cost one tick, 16 to 30 two: the seed's step at 16. */
    CHECK(report.costs[5].mean_ns > report.costs[3].mean_ns * 3 / 2);
    punctual_band bands[10];
    size_t filled = 0;
    CHECK_CODE(punctual_cheat_sheet(report.quantum_ns, bands, 10, &filled), PUNCTUAL_OK);
    CHECK(filled == 10 && bands[0].k == 1 && bands[0].request_ms >= 7 && bands[0].request_ms <= 9);
}

static void failing_sleep_ends_it(void) {
    struct failing state = {0};
    punctual_probe_report report = PUNCTUAL_PROBE_REPORT_INIT;
    CHECK_CODE(punctual_probe(5, failing_sleep, &state, &report), PUNCTUAL_E_CONDITION);
    CHECK(strstr(punctual_last_error_message(), "own code 7") != NULL);
    CHECK(state.calls == 3 && report.sleep_error == 7 && report.cost_count == 0);
}

static void bad_input(void) {
    punctual_probe_report report = PUNCTUAL_PROBE_REPORT_INIT;
    struct failing state = {0};
    CHECK_CODE(punctual_probe(0, failing_sleep, &state, &report), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(strstr(punctual_last_error_message(), "samples") != NULL);
    CHECK_CODE(punctual_probe(1, failing_sleep, &state, NULL), PUNCTUAL_E_NULL_POINTER);
    report.size = 8;
    CHECK_CODE(punctual_probe(1, failing_sleep, &state, &report), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK(state.calls == 0);
}

static void cheat_sheet(void) {
    punctual_band bands[16];
    size_t filled = 0;
    static const int64_t seeds[10] = {8, 23, 39, 55, 70, 86, 102, 117, 133, 148};
    CHECK_CODE(punctual_cheat_sheet(TICK_NS, bands, 16, &filled), PUNCTUAL_OK);
    CHECK(filled == 16);
    for (int k = 0; k < 10; k++) {
        CHECK(bands[k].k == (uint32_t)k + 1 && bands[k].request_ms == seeds[k]);
    }
    CHECK(bands[15].request_ms == 242 && bands[1].cost_ns == 2 * TICK_NS && bands[7].rate_hz == 8.0);
    CHECK_CODE(punctual_cheat_sheet(TICK_NS, bands, 3, NULL), PUNCTUAL_OK);
    CHECK_CODE(punctual_cheat_sheet(0, bands, 3, &filled), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_cheat_sheet(-1, bands, 3, &filled), PUNCTUAL_E_INVALID_ARGUMENT);
    CHECK_CODE(punctual_cheat_sheet(TICK_NS, NULL, 3, &filled), PUNCTUAL_E_NULL_POINTER);
    CHECK_CODE(punctual_cheat_sheet(TICK_NS, NULL, 0, &filled), PUNCTUAL_OK);
    CHECK(filled == 0);
}

void test_probe(void) {
    bad_input();
    cheat_sheet();
    failing_sleep_ends_it();
    plain_sleep_probed();
    tick_found();
}
