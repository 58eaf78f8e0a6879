#!/bin/sh
# A whole node's 300 s run (fixtures/node.gen.py): the service's rotated JSON
# lines with anomaly WARN copies of INFO launches and GPU errors mirrored
# into error.log, BitNet-rs records plus Prometheus scrapes of the same
# requests plus a receipt, the performance monitor's files. Every headline
# figure of the report against the generator's own count (expected.json),
# never against gpulog's output.
. tests/cli/lib.sh

python3 fixtures/node.gen.py "$T/node" 29 || fail "generator"
"$INGEST" -q --db "$T/db" "$T/node/logs" 2>/dev/null || [ $? -eq 1 ] || fail "ingest"
E="$T/node/expected.json"
since=$(sed -n 's/.*"since": "\(.*\)".*/\1/p' "$E")
until=$(sed -n 's/.*"until": "\(.*\)".*/\1/p' "$E")
"$REPORT" --db "$T/db" --since "$since" --until "$until" --format json --no-charts \
	--output-dir "$T/r" >/dev/null 2>&1 || fail "report"

python3 - "$T/r/report.json" "$E" <<'PY' || fail "figures differ from the generator's count"
import json, sys
r = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
bad = []
def check(what, got, want, tol=0):
    ok = got == want if tol == 0 else (got is not None and abs(got - want) <= tol * abs(want))
    if not ok:
        bad.append("%s: expected %r, got %r" % (what, want, got))

# one launch, one timing: the anomaly WARN copies are no second timing
k = {x["kernel"]: x for x in r["kernels"]}
for name, n in e["launches"].items():
    check("launches of " + name, k.get(name, {}).get("count"), n)
    check("mean_us of " + name, k.get(name, {}).get("mean_us"), e["kernel_mean_us"][name], 1e-9)
    check("max_us of " + name, k.get(name, {}).get("max_us"), e["kernel_max_us"][name], 1e-9)
check("launch_copies", r["summary"]["launch_copies"], e["launch_copies"])
# errors: once (error.log mirrors), by level, error shapes first
er = r["errors"]
check("errors", er["errors"], e["errors"])
check("mirrored", er["mirrored"], e["mirrored"])
for lv in ("ERROR", "CRITICAL"):
    check("by_level " + lv, er["by_level"][lv], e["by_level"][lv])
lv = [m["level"] for m in er["top_messages"]]
rank = {"CRITICAL": 0, "ERROR": 1, "WARN": 2}
check("top_messages ordered by level", lv, sorted(lv, key=lambda x: rank[x]))
# the process's counters, read once, from zero (the process started in the run)
check("recovery_attempts", er["recovery_attempts"], e["recovery_attempts"])
check("error_count", er["error_count"], e["error_count"])
# requests: the records and the counter are the same requests; the first
# scrape already held a failure
inf = r["inference"]
check("requests", inf["requests"], e["requests"])
check("failed", inf["failed"], e["failed"])
check("requests_from", inf["requests_from"], e["requests_from"])
# the receipt's run totals are in no per-request distribution
check("tokens_generated max", inf["tokens_generated"]["max"], e["tokens_generated_max"])
check("tokens_per_second count", inf["tokens_per_second"]["count"], e["tokens_per_second_count"])
# the monitor's real files: metrics_history.json (its own timestamp first,
# nested metadata.gpu) entry by entry, performance_metrics.json (nested)
mt = {}
for x in r["metrics"]:
    mt.setdefault(x["metric"], []).append(x)
check("history token_throughput samples", [x["count"] for x in mt.get("token_throughput", [])],
      [e["monitor_entries"]])
check("history metadata.gpu.utilization samples", [x["count"] for x in mt.get("gpu.utilization", [])],
      [e["monitor_entries"]])
check("history metadata.gpu.utilization max", [x["max"] for x in mt.get("gpu.utilization", [])],
      [e["monitor_gpu_util_max"]])
check("snapshot process.performance.token_throughput",
      [x["last"] for x in mt.get("process.performance.token_throughput", [])], [e["monitor_throughput_last"]])
check("token_throughput trend", [t["verdict"] for t in r["trends"] if t["kernel"] == "token_throughput"],
      ["degrading"])
# alerts grouped: the monitor's alert files are one entry per (source, rule,
# subject, severity); no rule fires on the monitor's own alert records
m = e["monitor_alerts"]
g = [a for a in r["alerts"] if a["source"] == "log" and a["rule"] == m["rule"]]
check("monitor alert entries", len(g), 1)
if g:
    check("monitor alert count", g[0]["count"], m["count"])
    check("monitor alert severity", g[0]["severity"], m["severity"])
    check("monitor alert subject", g[0]["subject"], m["subject"])
    check("monitor alert first_ts", g[0]["first_ts"][:23], m["first_ts"][:23])
    check("monitor alert last_ts", g[0]["last_ts"][:23], m["last_ts"][:23])
    check("monitor alert worst", g[0]["worst"], m["worst"], 1e-9)
# no anomaly rate on a kernel of 60 timings (3 spikes would read 5%, critical)
check("kernel_anomaly_pct on tiny_fill", [a["severity"] for a in r["alerts"]
      if a["rule"] == "kernel_anomaly_pct" and a["subject"] == "tiny_fill"], [])
keys = [(a["source"], a["rule"], a["subject"], a["severity"]) for a in r["alerts"]]
check("one entry per key", len(keys), len(set(keys)))
# growing_gemm's growth is told once in the verdict: the finding that it grew
# steadily, not also the trend rule's alert on the same kernel
check("growing_gemm's growth told once",
      sorted(a["rule"] for a in r["alerts"] if a["subject"] == "growing_gemm" and
             a["rule"] in ("finding", "kernel_trend_change_pct")), ["finding"])
check("no rule on the monitor's alerts",
      [a["rule"] for a in r["alerts"] if a["source"] == "gpulog" and a["subject"] == m["subject"]], [])
# trends: growing_gemm's change from the medians of its first and last tenth
# (its fitted line leaves the data's range); falling tokens/s is degrading
# (the records carry no time: trended in their order); counters' raw totals
# and _created not trended; no change below -100%; a verdict always has its change
tr = r["trends"]
gg = [t for t in tr if t["series"] == "kernel" and t["kernel"] == "growing_gemm"]
check("growing_gemm trend", [t["verdict"] for t in gg], ["degrading"])
if gg:
    check("growing_gemm change_pct", gg[0]["change_pct"], e["growing_gemm_change_pct"], 1e-9)
tps = [t for t in tr if t["series"] == "inference" and t["kernel"] == "tokens_per_second"]
check("tokens/s trend", [t["verdict"] for t in tps], ["degrading"])
check("raw counters trended", [t["kernel"] for t in tr if t["series"] == "metric" and
      (t["kernel"].endswith("_total") or t["kernel"].endswith("_created"))], [])
# a counter trended as its rate per second between scrapes (10 scrapes: 9 rates)
rt = [t for t in tr if (t["kernel"] or "").startswith("bitnet_requests_total") and t["kernel"].endswith(" rate")]
check("counter rate trends", sorted((t["unit"], t["n"]) for t in rt), [("/s", 9), ("/s", 9)])
check("changes below -100%", [t["kernel"] for t in tr if t["change_pct"] is not None and t["change_pct"] < -100], [])
check("significant without change", [t["kernel"] for t in tr if t["verdict"] != "stable" and t["change_pct"] is None], [])
check("utilisation judged neutral", [t["verdict"] for t in tr if t["kernel"] == "gpu.utilization_pct"
      and t["verdict"] in ("degrading", "improving")], [])
# Kineto scopes: ProfilerStep#N grouped as HTA does, one row per path and
# device (the CPU range and its GPU copy apart), the step's kernels inside
import re
sc = r["scopes"]
check("per-step rows", [s["scope"] for s in sc if re.search(r"ProfilerStep#[0-9]", s["scope"])], [])
steps = sorted((s["device"] or "", s["count"], s["kernels"]) for s in sc if s["scope"] == "ProfilerStep#*")
check("ProfilerStep#* rows", steps, [("", e["profiler_steps"], e["trace_kernels"]),
                                     ("0", e["profiler_steps"], e["trace_kernels"])])
# the GPU copies (pid 0, no args.device) a tree of their own on device 0,
# written out of start order: each a root holding its own 3 kernels per
# step; no path repeats a name; the CPU rows on no device
check("paths repeating a name", [s["scope"] for s in sc
      if len(set(s["scope"].split("|"))) != len(s["scope"].split("|"))], [])
gpu = sorted((s["scope"], s["count"], s["kernels"]) for s in sc if s["device"] == "0")
check("GPU rows", gpu, sorted([("## backward ##", e["profiler_steps"], 3 * e["profiler_steps"]),
                               ("## forward ##", e["profiler_steps"], 3 * e["profiler_steps"]),
                               ("ProfilerStep#*", e["profiler_steps"], e["trace_kernels"])]))
check("CPU rows' device", sorted(set(s["device"] for s in sc if s["device"] != "0")), [None])
# the status: alerts fired (warning or critical), not ok and not no_data
if r["summary"]["status"] not in ("warning", "critical"):
    bad.append("status %r" % r["summary"]["status"])
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
# every count of errors shown is the generator's: the text's and the page's
# "N errors", the text's Levels line (ERROR + CRITICAL records)
"$REPORT" --db "$T/db" --since "$since" --until "$until" --output-dir "$T/rh" >"$T/rh.txt" 2>&1 ||
	fail "report (page and text)"
python3 - "$T/rh.txt" "$T/rh/index.html" "$E" <<'PY' || fail "error counts differ between renderings"
import json, re, sys
txt, page, e = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
n = e["errors"]
bad = []
lv = dict((k, int(v)) for k, v in re.findall(r"\b(ERROR|CRITICAL) (\d+)", re.search(r"^Levels.*$", txt, re.M).group(0)))
if lv.get("ERROR", 0) + lv.get("CRITICAL", 0) != n:
    bad.append("Levels line: %r" % lv)
# the text's errors line, the page's summary and errors section
if re.search(r"^(\d+) errors, ", txt, re.M) is None or int(re.search(r"^(\d+) errors, ", txt, re.M).group(1)) != n:
    bad.append("text errors line")
pg = [int(x) for x in re.findall(r"(\d+) errors \(ERROR and CRITICAL\)", page)]
if not pg or set(pg) != {n}:
    bad.append("page: %r, expected %d" % (pg, n))
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
# the monitor's configuration file, as the seed documents it
"$REPORT" --db "$T/db" --since "$since" --until "$until" --format json --no-charts \
	--config "$T/node/logs/monitor/monitor_config.json" --output-dir "$T/rc" >/dev/null 2>"$T/rc.err" ||
	fail "--config monitor_config.json: $(cat "$T/rc.err")"
# an empty window after the run: no_data, and --fail-on exits 3
"$REPORT" --db "$T/db" --since 2025-11-21 --days 1 --format json --no-charts \
	--output-dir "$T/empty" --fail-on critical >/dev/null 2>&1
expect_eq "--fail-on critical on an empty window" 3 $?
grep -q '"status": "no_data"' "$T/empty/report.json" || fail "empty window is not no_data"
exit 0
