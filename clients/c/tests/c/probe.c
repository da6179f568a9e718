/* The sleep probe and its cheat sheet: the OS's plain sleep timed, a sleep of the caller's
 * timed in its place, a failing sleep ending the probe, and bad input refused. */
#include "harness.h"

#include <string.h>

#define TICK_NS 15625000LL

struct counting {
    uint32_t asked[3 * PUNCTUAL_PROBE_REQUESTS];
    int calls;
};

/* A sleep of the caller's: punctual's own, never early, each request kept in order. */
static int32_t counting_sleep(uint32_t ms, void *user_data) {
    struct counting *state = (struct counting *)user_data;
    if (state->calls < 3 * PUNCTUAL_PROBE_REQUESTS) {
        state->asked[state->calls] = ms;
    }
    state->calls++;
    return punctual_sleep_ns((int64_t)ms * 1000000, NULL);
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

/* The OS's plain sleep, timed at every request: what the report holds, not what it found. */
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
    /* Only the name the library reports for the call it timed (punctual-sys's PLAIN_SLEEP):
     * that the call is Win32 Sleep is punctual-sys's own, and nothing here can tell by its
     * behaviour. Under Wine, Sleep is not quantised (it is NtDelayExecution there, as the
     * library's native waits are), so only how late each wake is would tell it from the
     * waitable timer: a latency figure, which no test asserts. */
#ifdef _WIN32
    CHECK(report.primitive != NULL && strcmp(report.primitive, "Win32 Sleep()") == 0);
#else
    CHECK(report.primitive != NULL && strcmp(report.primitive, "std::thread::sleep") == 0);
#endif
    printf("probe: %s costs at least %.3f ms; %s %.3f ms\n", report.primitive, report.floor_ns / 1e6,
           report.quantum_ns >= 0 ? "quantised at" : "not quantised, overshoot",
           (report.quantum_ns >= 0 ? report.quantum_ns : report.overshoot_ns) / 1e6);
}

/* Whether a quantum is found is arithmetic, tested on a fake clock in the library
 * (quantum/probe.rs); on this clock only what never fails is checked. */
static void callers_sleep_timed(void) {
    struct counting state = {{0}, 0};
    punctual_probe_report report = PUNCTUAL_PROBE_REPORT_INIT;
    CHECK_CODE(punctual_probe(2, counting_sleep, &state, &report), PUNCTUAL_OK);
    CHECK(report.primitive == NULL && report.samples == 2 && report.cost_count == PUNCTUAL_PROBE_REQUESTS);
    CHECK(state.calls == 3 * PUNCTUAL_PROBE_REQUESTS);
    for (int i = 0; i < 3 * PUNCTUAL_PROBE_REQUESTS; i++) {
        CHECK(state.asked[i] == (uint32_t)requests_ms[i / 3]); /* once unmeasured, then twice */
    }
    for (uint32_t i = 0; i < report.cost_count; i++) {
        CHECK(report.costs[i].mean_ns >= report.costs[i].request_ns); /* it never woke early */
    }
    CHECK(report.floor_ns >= 1000000);
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
    callers_sleep_timed();
}
