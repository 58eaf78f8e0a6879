# The kernel pass replayed from memory runs on a thread of its own beside
# the samples pass (issue 34): the report is the same, byte for byte, as
# when the kernel pass is read from the database (a kernel cache bound of
# one timing), which runs it alone before the samples pass; and the figures
# of both passes are those counted here from the log: each kernel's
# timings and its largest, and the samples of each of the service's
# figures.
. tests/cli/lib.sh

# 30,000 kernel lines over 10 hours on 6 kernels, each with the service's
# memory and utilisation figures (the peak and the utilisation are samples); every 97th timing
# of a kernel is a spike of 50x, for the anomaly test.
mkdir -p $T/logs
awk 'BEGIN {
	s = 7;
	for (i = 0; i < 30000; i++) {
		t = i * 1.2; sec = int(t);
		ts = sprintf("2025-11-16T%02d:%02d:%02d.%06dZ", int(sec / 3600), int(sec / 60) % 60,
			     sec % 60, (t - sec) * 1000000);
		s = (s * 1103515245 + 12345) % 2147483648;
		k = s % 6;
		d = 100 + k * 40 + (s % 1000) / 100;
		if (i % 97 == 0)
			d = d * 50;
		printf("{\"timestamp\": \"%s\", \"level\": \"INFO\", \"component\": \"gpu\", \"message\": \"step %d\", \"gpu_metrics\": {\"kernel_name\": \"kern_%d\", \"execution_time_us\": %.2f, \"memory_allocated_mb\": %d, \"memory_peak_mb\": %d, \"gpu_utilization_percent\": %d}}\n",
		       ts, i, k, d, 1000 + i % 500, 2000 + i % 300, 40 + i % 60);
	}
}' > $T/logs/gpu.log
ingest $T/k.db $T/logs || fail "ingest"

report() { "$REPORT" --db $T/k.db --until 2025-11-17 --days 1 --format json --top 50 \
	--output-dir "$1" > /dev/null || fail "report $1"; }
report $T/r-thread
GPULOG_REPORT_TEST_KERNEL_CACHE=1 report $T/r-db
cmp -s $T/r-thread/report.json $T/r-db/report.json ||
	fail "the kernel pass beside the samples pass gives another report than the one read alone"

# Counted from the log: timings and the largest per kernel, and the lines.
awk -F'"' '/kernel_name/ {
	for (i = 1; i < NF; i++) {
		if ($i == "kernel_name") k = $(i + 2);
		if ($i == "execution_time_us") { split($(i + 1), a, /[:,]/); d = a[2] + 0; }
	}
	n[k]++; if (d > mx[k]) mx[k] = d; lines++
} END { for (k in n) printf("%s %d %.2f\n", k, n[k], mx[k]); printf("lines %d\n", lines) }' \
	$T/logs/gpu.log | sort > $T/want.txt
python3 - $T/r-thread/report.json $T/want.txt <<'PY' || fail "figures"
import json, sys
r = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    f = line.split()
    want[f[0]] = f[1:]
lines = int(want.pop("lines")[0])
got = {k["kernel"]: k for k in r["kernels"]}
assert set(got) == set(want), (sorted(got), sorted(want))
for k, (n, mx) in want.items():
    assert got[k]["count"] == int(n), (k, got[k]["count"], n)
    assert abs(got[k]["max_us"] - float(mx)) < 0.006, (k, got[k]["max_us"], mx)
# the anomaly test judged the kernels' timings (the kernel pass ran)
assert r["anomalies"]["total"] > 0, r["anomalies"]
# the peak memory and the utilisation have a sample a line (the samples pass ran)
figs = {}
for m in r["metrics"]:
    figs[m["metric"]] = figs.get(m["metric"], 0) + m["count"]
assert figs.get("gpu.memory_peak_mib") == lines, (figs, lines)
assert figs.get("gpu.utilization_pct") == lines, (figs, lines)
PY
echo "ok"
