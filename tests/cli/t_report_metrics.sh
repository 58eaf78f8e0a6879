#!/bin/sh
# gpulog-report's metrics section end to end: hand-written nvidia-smi CSV
# and dmon -o DT files through gpulog-ingest, then the section's statistics
# against python3's own reading of the same files (count, min, max, mean,
# p50/p95/p99 by linear interpolation between order statistics, last),
# JSON and CSV fields, the text table per GPU, --metric, the alert rules
# (metric_above, metric_below, the seed monitor's alert_thresholds and
# degradation_detection), and gpu_telemetry.png decoding and not blank.
. tests/cli/lib.sh
PNGCHECK=$PWD/$BUILD/bench/pngcheck

mkdir -p "$T/logs"
# GPU 1 has one [N/A] utilisation: a missing value, not a sample
cat > "$T/logs/gpu.csv" <<'EOF'
timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu
2025/01/01 00:00:00.000, 0, NVIDIA A100, 10 %, 1000 MiB, 40960 MiB, 100.00 W, 40
2025/01/01 00:00:00.000, 1, NVIDIA A100, 50 %, 2000 MiB, 40960 MiB, 200.00 W, 50
2025/01/01 00:00:10.000, 0, NVIDIA A100, 20 %, 1500 MiB, 40960 MiB, 110.00 W, 41
2025/01/01 00:00:10.000, 1, NVIDIA A100, [N/A], 2500 MiB, 40960 MiB, 210.00 W, 52
2025/01/01 00:00:20.000, 0, NVIDIA A100, 30 %, 1200 MiB, 40960 MiB, 120.00 W, 43
2025/01/01 00:00:20.000, 1, NVIDIA A100, 70 %, 3000 MiB, 40960 MiB, 230.00 W, 55
2025/01/01 00:00:30.000, 0, NVIDIA A100, 100 %, 1100 MiB, 40960 MiB, 150.50 W, 44
EOF
# a second host's GPU 0 from dmon -o DT (pwr W, gtemp C, sm %, fb MiB)
cat > "$T/dmon.log" <<'EOF'
#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec     fb   bar1
#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %     MB     MB
 20250101   00:00:00      0     60     35      -      5      1      0      0    500      2
 20250101   00:00:05      0     61     36      -     15      2      0      0    700      2
 20250101   00:00:10      0     90     39      -     95      9      0      0   7000      2
EOF
ingest "$T/db" "$T/logs" || fail "ingest csv"
"$INGEST" -q --db "$T/db" --host node2 "$T/dmon.log" || fail "ingest dmon"

W="--since 2025-01-01 --until 2025-01-02"
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/j" >/dev/null 2>&1 || fail "report json"
"$REPORT" --db "$T/db" $W --format csv --output-dir "$T/c" --no-charts >/dev/null 2>&1 ||
	fail "report csv"

# python3 reads the hand-written files itself and compares every field
python3 - "$T/logs/gpu.csv" "$T/dmon.log" "$T/j/report.json" "$T/c/metrics.csv" <<'EOF' || fail "statistics"
import csv, json, math, sys
csvf, dmonf, repf, metf = sys.argv[1:5]
cols = {"utilization.gpu [%]": "gpu.utilization_pct", "memory.used [MiB]": "gpu.memory_used_mib",
        "memory.total [MiB]": "gpu.memory_total_mib", "power.draw [W]": "gpu.power_w",
        "temperature.gpu": "gpu.temperature_c"}
want = {}
rows = [[c.strip() for c in r] for r in csv.reader(open(csvf))]
hdr = rows[0]
for r in rows[1:]:
    for i, h in enumerate(hdr):
        if h in cols and r[i] != "[N/A]":
            want.setdefault(("", r[1], cols[h]), []).append(float(r[i].split()[0]))
dm = {"pwr": "gpu.power_w", "gtemp": "gpu.temperature_c", "sm": "gpu.utilization_pct",
      "mem": "gpu.memory_utilization_pct", "fb": "gpu.memory_used_mib"}
lines = open(dmonf).read().splitlines()
dh = lines[0][1:].split()
for l in lines[2:]:
    f = l.split()
    for i, h in enumerate(dh):
        if h in dm and f[i] != "-":
            want.setdefault(("node2", f[2], dm[h]), []).append(float(f[i]))
def q(v, p):
    s = sorted(v); h = (len(s) - 1) * p; lo = math.floor(h)
    return s[lo] if lo + 1 >= len(s) else s[lo] + (h - lo) * (s[lo + 1] - s[lo])
rep = json.load(open(repf))
got = {(m["host"], m["device"], m["metric"]): m for m in rep["metrics"]}
for k, v in want.items():
    m = got.get(k)
    assert m, ("missing series", k)
    exp = {"count": len(v), "min": min(v), "max": max(v), "mean": sum(v) / len(v),
           "p50": q(v, .5), "p95": q(v, .95), "p99": q(v, .99), "last": v[-1]}
    for f, e in exp.items():
        assert abs(m[f] - e) < 1e-9 * max(1, abs(e)), (k, f, m[f], e)
units = {"gpu.utilization_pct": "%", "gpu.memory_used_mib": "MiB", "gpu.memory_total_mib": "MiB",
         "gpu.power_w": "W", "gpu.temperature_c": "C", "gpu.memory_utilization_pct": "%"}
for k, m in got.items():
    if k in want:
        assert m["unit"] == units[k[2]], (k, m["unit"])
m = got[("", "0", "gpu.power_w")]
assert m["device_name"] == "NVIDIA A100" and m["labels"] == {"name": "NVIDIA A100"}, m
assert m["first_ts"] == "2025-01-01T00:00:00Z" and m["last_ts"] == "2025-01-01T00:00:30Z", m
assert m["source"] == "nvsmi", m
assert got[("node2", "0", "gpu.power_w")]["device_name"] == ""
# one trend per series
tr = [t for t in rep["trends"] if t["series"] == "metric"]
assert len(tr) == len(rep["metrics"]), (len(tr), len(rep["metrics"]))
t = [t for t in tr if t["kernel"] == "gpu.power_w" and t["device"] == "0" and t["host"] == ""][0]
assert t["n"] == 4 and t["unit"] == "W", t
# least squares slope of power (W per day) over t in days, by hand
xs = [0, 10, 20, 30]; ys = [100, 110, 120, 150.5]
mx = sum(xs) / 4; my = sum(ys) / 4
slope_s = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
assert abs(t["slope_per_day"] - slope_s * 86400) < 1e-6 * slope_s * 86400, (t, slope_s)
# metrics.csv: same rows, same header
r = list(csv.DictReader(open(metf, newline="")))
assert list(r[0].keys()) == ["metric", "unit", "device", "device_name", "host", "source", "labels",
    "count", "min", "max", "mean", "p50", "p95", "p99", "last", "first_ts", "last_ts"], r[0].keys()
assert len(r) == len(rep["metrics"])
for row in r:
    m = got[(row["host"], row["device"], row["metric"])]
    assert int(row["count"]) == m["count"] and abs(float(row["p95"]) - m["p95"]) < 1e-6 * max(1, abs(m["p95"]))
EOF

# text: one line per GPU; GPU 0: util mean (10+20+30+100)/4 = 40, p95 of
# 10,20,30,100 = 30 + 0.85*70 = 89.5, memory peak 1500, power mean
# (100+110+120+150.5)/4 = 120.125, max 150.5, temperature max 44
"$REPORT" --db "$T/db" $W --format text > "$T/t.txt" 2>/dev/null || fail "text"
grep -q '^GPU and host metrics' "$T/t.txt" || fail "text heading"
line=$(grep '^0  ' "$T/t.txt") || fail "text GPU 0 line: $(cat "$T/t.txt")"
expect_eq "text GPU 0" "40 89.5 1500 120.1 150.5 44" "$(echo "$line" | awk '{print $2, $3, $4, $5, $6, $7}')"
# node2's GPU 0 from dmon: util 5,15,95 mean 38.33; p95 = 15 + 0.9*80 = 87; fb peak 7000
line=$(grep '^node2/0 ' "$T/t.txt") || fail "text node2 line"
expect_eq "text node2/0" "38.3 87.0 7000" "$(echo "$line" | awk '{print $2, $3, $4}')"
awk '{ if (length($0) > 100) bad = 1 } END { exit bad }' "$T/t.txt" || fail "text width"

# --metric: only the globs' metrics; repeatable
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/m" --no-charts \
	--metric 'gpu.power*' --metric 'gpu.temperature_c' >/dev/null 2>&1 || fail "--metric"
expect_eq "--metric series" "gpu.power_w gpu.temperature_c" \
	"$(python3 -c "import json,sys; print(' '.join(sorted({m['metric'] for m in json.load(open(sys.argv[1]))['metrics']})))" "$T/m/report.json")"
expect_eq "--metric series count" 6 \
	"$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['metrics']))" "$T/m/report.json")"
# --host applies to series too
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/h" --no-charts --host node2 >/dev/null 2>&1 ||
	fail "--host"
expect_eq "--host node2" "node2" \
	"$(python3 -c "import json,sys; print(' '.join(sorted({m['host'] for m in json.load(open(sys.argv[1]))['metrics']})))" "$T/h/report.json")"

# alert rules. metric_above on max power: GPU 1 max 230 (critical at 220),
# GPU 0 max 150.5 (warning at 150), node2 90 (none)
cat > "$T/above.json" <<'EOF'
{"alerts": [{"rule": "metric_above", "metric": "gpu.power_w", "statistic": "max", "warning": 150, "critical": 220},
            {"rule": "metric_below", "metric": "gpu.utilization_pct", "warning": 45, "critical": 39}]}
EOF
"$REPORT" --db "$T/db" $W --format csv --output-dir "$T/a" --no-charts --config "$T/above.json" \
	>/dev/null 2>&1 || fail "above rc"
# metric_below on mean utilisation: GPU 0 40 (warning at 45), GPU 1 60 (none),
# node2 38.33 (critical at 39)
expect_eq "metric alerts" "critical,metric_above,gpu.power_w GPU 1,230
critical,metric_below,gpu.utilization_pct on node2 GPU 0,38.33
warning,metric_above,gpu.power_w GPU 0,150.5
warning,metric_below,gpu.utilization_pct GPU 0,40" \
	"$(awk -F, 'NR > 1 { printf "%s,%s,%s,%.4g\n", $1, $2, $3, $4 }' "$T/a/alerts.csv" | tr -d '\r' | sort)"
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/a2" --no-charts --config "$T/above.json" \
	--fail-on critical >/dev/null 2>&1
expect_eq "--fail-on critical on a metric alert" 3 $?

# the seed monitor's own file as it is: thresholds on max, warnings
cat > "$T/seed.json" <<'EOF'
{"alert_thresholds": {"cpu_usage": 85.0, "memory_usage": 90.0, "gpu_utilization": 95.0,
                      "gpu.temperature_c": 54},
 "degradation_detection": {"window_size": 4, "threshold": 0.15}}
EOF
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/s" --no-charts --config "$T/seed.json" \
	>/dev/null 2>&1 || fail "seed rc"
# gpu_utilization 95: GPU 0 max 100, node2 max 95 (at the threshold); GPU 1 max 70 none.
# gpu.temperature_c 54: GPU 1 max 55. degradation (>= 4 samples, fitted change >= 15 %):
# GPU 0 power 100,110,120,150.5: slope 1.615/s, fits 95.9 -> 144.35: +50.52 %;
# memory 1000,1500,1200,1100:
# slope 0, stable; utilisation fits -2 -> 88 (fit(first) <= 0: no change);
# temperature 40,41,43,44: slope 0.14/s, fits 39.9 -> 44.1: +10.5 %, stable;
# GPU 1 power 200,210,230 and node2's series have 3 < 4 samples: not judged
python3 - "$T/s/report.json" <<'EOF' || fail "seed alerts"
import json, sys
rep = json.load(open(sys.argv[1]))
got = sorted((a["severity"], a["rule"], a["subject"]) for a in rep["alerts"] if a["rule"].startswith(("alert_", "degradation")))
want = sorted([
 ("warning", "alert_thresholds.gpu_utilization", "gpu.utilization_pct GPU 0"),
 ("warning", "alert_thresholds.gpu_utilization", "gpu.utilization_pct on node2 GPU 0"),
 ("warning", "alert_thresholds.gpu.temperature_c", "gpu.temperature_c GPU 1"),
])
assert got == want, got
t = {(t["kernel"], t["host"], t["device"]): t for t in rep["trends"] if t["series"] == "metric"}
p = t[("gpu.power_w", "", "0")]
# power has no bad direction: its +50.52 % is "rising", and no degradation alert
assert p["verdict"] == "rising" and abs(p["change_pct"] - 48.45 / 95.9 * 100) < 1e-6, p
assert t[("gpu.power_w", "", "1")]["verdict"] == "stable"
assert t[("gpu.memory_used_mib", "", "0")]["verdict"] == "stable"
tt = t[("gpu.temperature_c", "", "0")]
assert tt["verdict"] == "stable" and abs(tt["change_pct"] - 4.2 / 39.9 * 100) < 1e-6, tt
EOF

# config errors name the key
printf '{"alert_thresholds": {"disk_usage": 80}}' > "$T/bad1.json"
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/x" --config "$T/bad1.json" 2> "$T/err" >/dev/null
expect_eq "bad seed key rc" 2 $?	# a bad --config: 2, as in gpulog-ingest
grep -q "unknown key 'disk_usage' in alert_thresholds" "$T/err" || fail "bad seed key: $(cat "$T/err")"
printf '{"alerts": [{"rule": "metric_above", "warning": 1}]}' > "$T/bad2.json"
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/x" --config "$T/bad2.json" 2> "$T/err" >/dev/null
grep -q 'needs "metric"' "$T/err" || fail "metric rule without metric: $(cat "$T/err")"
printf '{"alerts": [{"rule": "metric_above", "metric": "*", "statistic": "median", "warning": 1}]}' > "$T/bad3.json"
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/x" --config "$T/bad3.json" 2> "$T/err" >/dev/null
grep -q "statistic must be mean, max, min, p95 or last, not 'median'" "$T/err" || fail "bad statistic: $(cat "$T/err")"

# the chart: decodes, 1600 x 1400, not blank; listed in index.html next to the metrics table
"$PNGCHECK" "$T/j/gpu_telemetry.png" 1600 1400 >/dev/null || fail "gpu_telemetry.png"
grep -q 'gpu_telemetry' "$T/j/index.html" || fail "index.html lists the chart"
grep -q 'id="metrics"' "$T/j/index.html" || fail "index.html metrics section"
exit 0
