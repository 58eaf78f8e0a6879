#!/bin/sh
# Alerts a log wrote next to gpulog's own: the performance monitor's
# alert_<ts>.json files and the "alerts" of its metrics_history.json (read by
# fmt_jsondoc.c) are listed in the report's alerts with source "log", their
# severity, metric, component, value, threshold and time as written; an alert
# kept in a history rewritten twice is listed once; one outside the window is
# not; gpulog's own (tokens_per_second_below on BitNet-rs records) carry
# source "gpulog" and no time. --component applies to the log's alerts.
. tests/cli/lib.sh
command -v python3 >/dev/null || skip "skipped: python3 absent"
D=$T/logs/echo_stats
mkdir -p "$D" "$T/logs/bitnet"
# 1735689600 = 2025-01-01T00:00:00Z
cat > "$D/alert_1735689600.json" <<'J'
{
  "timestamp": 1735689600.5,
  "severity": "warning",
  "component": "echo_core",
  "message": "High CPU usage",
  "metric": "cpu_usage",
  "value": 93.1,
  "threshold": 90.0
}
J
cat > "$D/alert_1735689630.json" <<'J'
{
  "timestamp": 1735689630,
  "severity": "critical",
  "component": "echo_gpu",
  "message": "GPU memory exhausted"
}
J
# the next day: outside the window [2025-01-01, 2025-01-02)
cat > "$D/alert_1735776000.json" <<'J'
{
  "timestamp": 1735776000,
  "severity": "critical",
  "component": "echo_core",
  "message": "tomorrow"
}
J
history() {
	python3 - "$D/metrics_history.json" "$1" <<'PY'
import json, sys
n = int(sys.argv[2])
m = [{"timestamp": 1735689600 + 60 * i, "component_id": "echo_mem", "token_throughput": 100 + i}
     for i in range(n)]
a = [{"timestamp": 1735689700, "severity": "info", "component": "echo_mem",
      "message": "Throughput recovered", "metric": "token_throughput", "value": 120,
      "threshold": 100}]
with open(sys.argv[1], "w") as f:
    json.dump({"metrics": m, "alerts": a}, f, indent=2)
PY
}
history 2
ingest "$T/db" "$T/logs" || fail "ingest"
history 3
ingest "$T/db" "$T/logs" || fail "ingest the rewritten history"
printf '{"tokens_per_second": 39.0, "latency_ms": 800.0}\n{"tokens_per_second": 41.0, "latency_ms": 700.0}\n' \
	> "$T/logs/bitnet/metrics.jsonl"
touch -d '2025-01-01T01:00:00Z' "$T/logs/bitnet/metrics.jsonl"
ingest "$T/db" "$T/logs" || fail "ingest bitnet"
printf '{"alerts": [{"rule": "tokens_per_second_below", "warning": 50, "critical": 10}]}' \
	> "$T/rules.json"
W="--since 2025-01-01 --until 2025-01-02 --config $T/rules.json"
for f in json csv text; do
	"$REPORT" --db "$T/db" $W --format $f --no-charts --output-dir "$T/r" >/dev/null 2>&1 ||
		fail "report $f"
done
# By hand: three log alerts in the window (critical echo_gpu, warning
# cpu_usage 93.1 over 90, info token_throughput 120 over 100) and gpulog's
# warning: mean tokens/s (39 + 41) / 2 = 40 <= 50.
python3 - "$T/r/report.json" "$T/r/alerts.csv" <<'PY' || fail "alerts"
import csv, json, sys
al = json.load(open(sys.argv[1]))["alerts"]
log = [a for a in al if a["source"] == "log"]
own = [a for a in al if a["source"] == "gpulog"]
assert len(al) == 4 and len(log) == 3 and len(own) == 1, al
want = [("critical", "log", "echo_gpu", None, None, "echo_gpu: GPU memory exhausted",
         "2025-01-01T00:00:30"),
        ("warning", "cpu_usage", "echo_core", 93.1, 90.0, "echo_core: High CPU usage",
         "2025-01-01T00:00:00.5"),
        ("info", "token_throughput", "echo_mem", 120, 100, "echo_mem: Throughput recovered",
         "2025-01-01T00:01:40")]
for a, (sev, rule, subj, v, th, msg, t) in zip(log, want):
    assert (a["severity"], a["rule"], a["subject"], a["value"], a["threshold"], a["message"]) == \
        (sev, rule, subj, v, th, msg), a
    assert a["time"].startswith(t), a
o = own[0]
assert o["rule"] == "tokens_per_second_below" and o["severity"] == "warning", o
assert abs(o["value"] - 40) < 1e-9 and o["time"] is None, o
rows = list(csv.DictReader(open(sys.argv[2])))
assert sorted(r["source"] for r in rows) == ["gpulog", "log", "log", "log"], rows
# the time as in the JSON: the log's own, none for gpulog's (an empty cell)
assert [r["time"] for r in rows] == [a["time"] or "" for a in al], rows
PY
# the page's alerts table has the time too
"$REPORT" --db "$T/db" $W --format json --output-dir "$T/h" >/dev/null 2>&1 || fail "report html"
grep -q '<th>source</th><th>time</th></tr>' "$T/h/index.html" || fail "html: no time column"
grep -q '<td>log</td><td>2025-01-01T00:00:30' "$T/h/index.html" || fail "html: the log alert's time"
grep -q '^critical *\[log\] echo_gpu: GPU memory exhausted' "$T/r/report.txt" ||
	fail "text: the log's alert"
"$REPORT" --db "$T/db" $W --component 'echo_c*' --format json --no-charts --output-dir "$T/c" \
	>/dev/null 2>&1 || fail "report --component"
python3 - "$T/c/report.json" <<'PY' || fail "--component"
import json, sys
log = [a for a in json.load(open(sys.argv[1]))["alerts"] if a["source"] == "log"]
assert [a["subject"] for a in log] == ["echo_core"], log
PY
echo "ok"
