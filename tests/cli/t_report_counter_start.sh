#!/bin/sh
# A Prometheus counter's first value in a window counts from zero or is a
# base, by when the counter was zero (reports/counter.h): its own _created
# sample, else process_start_time_seconds of its job and instance, else
# whether the series has a sample before the window. The window is
# 01:00-02:00 on 2025-01-01; the increases below are worked by hand.
. tests/cli/lib.sh

mkdir -p "$T/prom"
# ms of 2025-01-01T01:00:00Z and of 01:10:00Z
h1=1735693200000 h110=1735693800000
awk -v h1=$h1 -v h110=$h110 'BEGIN {
	for (k = 0; k < 3; k++) {
		t = h110 + k * 60000; e = h1 + k * 60000
		# job a: the process started at 00:00, before the window
		printf("process_start_time_seconds{job=\"a\",instance=\"h:1\"} 1735689600 %.0f\n", t)
		printf("a_requests_total{job=\"a\",instance=\"h:1\"} %d %.0f\n", 100 + 30 * k, t)
		# a failure counter of job a created at 01:09:10, in the window
		printf("c_errors_total{job=\"a\",instance=\"h:1\",code=\"500\"} %d %.0f\n", k ? 3 : 2, t)
		printf("c_errors_created{job=\"a\",instance=\"h:1\",code=\"500\"} 1735693750 %.0f\n", t)
		# job b: the process started at 01:05, in the window
		printf("process_start_time_seconds{job=\"b\",instance=\"h:2\"} 1735693500 %.0f\n", t)
		printf("b_requests_total{job=\"b\",instance=\"h:2\"} %d %.0f\n", 100 + 30 * k, t)
		# job e: started at 00:59:50, scraped from 01:00:00 (one interval)
		printf("process_start_time_seconds{job=\"e\",instance=\"h:3\"} 1735693190 %.0f\n", e)
		printf("e_tokens_total{job=\"e\",instance=\"h:3\"} %d %.0f\n", 5 + 5 * k, e)
		# job z: no start known
		printf("d_tokens_total{job=\"z\"} %d %.0f\n", 50 + 20 * k, t)
	}
}' > "$T/prom/metrics.prom"
ingest "$T/db" "$T/prom" || fail "ingest"
"$REPORT" --db "$T/db" --since 2025-01-01T01:00:00Z --until 2025-01-01T02:00:00Z \
	--format json --no-charts --output-dir "$T/r" >/dev/null 2>&1 || fail "report"
python3 - "$T/r/report.json" <<'PY' || fail "counter increases"
import json, sys
r = json.load(open(sys.argv[1]))
got = {c["metric"]: c["increase"] for c in r["inference"]["counters"]}
want = {
    "a_requests_total": 160 - 100,   # process counted before the window: a base
    "c_errors_total": 3,             # created in the window: from zero
    "b_requests_total": 160,         # process started in the window: from zero
    "e_tokens_total": 15,            # starts with its process: from zero
    "d_tokens_total": 90,            # no start known, none before: from zero
}
bad = ["%s: expected %r, got %r" % (m, v, got.get(m)) for m, v in want.items() if got.get(m) != v]
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
exit 0
