#!/bin/sh
# The metrics section over many samples: gen_telemetry's nvidia-smi CSV,
# 5 GPUs x 5000 s (25,000 rows, 150,000 samples in 30 series), enough for
# the section to describe its series four at a time on two threads
# (>= 100,000 samples, > 4 series), with the values stored narrow
# (utilisation and temperature as int16, memory as float, power as double),
# and a sixth GPU written here whose memory in use passes 32767 MiB (its
# series widens from int16 to float). Every series' count, min, max, mean, p50/p95/p99 and last
# against python3's own reading of the CSV files (sort and interpolate),
# and the same report twice is the same byte for byte (the split between
# the threads changes nothing).
. tests/cli/lib.sh
GEN=$PWD/$BUILD/bench/gen_telemetry

mkdir -p "$T/logs"
"$GEN" "$T/logs/gpu.csv" 5 5000 3 >/dev/null || fail "gen_telemetry"
awk 'BEGIN {
	print "timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]"
	for (i = 0; i < 3000; i++)
		printf("2025/01/01 %02d:%02d:%02d.500, 5, NVIDIA H100 80GB HBM3, %d %%, %d MiB, %d W\n",
		       int(i / 3600), int(i / 60) % 60, i % 60, i % 101,
		       30000 + 2 * i, 300 + i % 50)
}' > "$T/logs/gpu5.csv"
ingest "$T/db" "$T/logs" || fail "ingest"
W="--since 2025-01-01 --until 2025-01-02"
"$REPORT" --db "$T/db" $W --format json --no-charts --output-dir "$T/a" >/dev/null 2>&1 ||
	fail "report"
"$REPORT" --db "$T/db" $W --format json --no-charts --output-dir "$T/b" >/dev/null 2>&1 ||
	fail "report again"
cmp -s "$T/a/report.json" "$T/b/report.json" || fail "two runs differ"

python3 - "$T/a/report.json" "$T/logs/gpu.csv" "$T/logs/gpu5.csv" <<'PY' || fail "statistics"
import csv, json, math, sys
repf = sys.argv[1]
cols = {"utilization.gpu [%]": "gpu.utilization_pct",
        "utilization.memory [%]": "gpu.memory_utilization_pct",
        "memory.used [MiB]": "gpu.memory_used_mib", "memory.total [MiB]": "gpu.memory_total_mib",
        "power.draw [W]": "gpu.power_w", "temperature.gpu": "gpu.temperature_c"}
want = {}
for csvf in sys.argv[2:]:
    rows = [[c.strip() for c in r] for r in csv.reader(open(csvf))]
    hdr = rows[0]
    for r in rows[1:]:
        for i, h in enumerate(hdr):
            if h in cols:
                want.setdefault((r[1], cols[h]), []).append(float(r[i].split()[0]))
def q(v, p):
    s = sorted(v); h = (len(s) - 1) * p; lo = math.floor(h)
    return s[lo] if lo + 1 >= len(s) else s[lo] + (h - lo) * (s[lo + 1] - s[lo])
rep = json.load(open(repf))
got = {(m["device"], m["metric"]): m for m in rep["metrics"]}
assert len(want) == 33 and len(got) == 33, (len(want), len(got))
assert sum(len(v) for v in want.values()) == 159000
mem = want[("5", "gpu.memory_used_mib")]
assert mem[0] <= 32767 < max(mem), "memory in use should start below int16's range and pass it"
for k, v in want.items():
    m = got[k]
    exp = {"count": len(v), "min": min(v), "max": max(v), "mean": math.fsum(v) / len(v),
           "p50": q(v, .5), "p95": q(v, .95), "p99": q(v, .99), "last": v[-1]}
    for f, e in exp.items():
        assert abs(m[f] - e) <= 1e-9 * max(1, abs(e)), (k, f, m[f], e)
    for f in ("min", "max", "last"):
        assert m[f] == exp[f], (k, f, m[f], exp[f])
PY
exit 0
