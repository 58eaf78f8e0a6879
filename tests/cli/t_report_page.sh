#!/bin/sh
# The page a person reads (issue 30): one display name per kernel, the
# metrics section's per-GPU table, Prometheus "_created" series not shown as
# metrics, histogram buckets with their le. Expected figures are computed
# here from the logs themselves (awk, Python), not taken from the report.
. tests/cli/lib.sh

# --- display names: the sample logs, whose gpufl and nsys files name kernels
# mangled (_Z17force_pass_kernelPK6float4PS_i) and whose text logs name the
# same kernels plain (force_pass_kernel)
cp -r fixtures/sample-logs "$T/logs"
# the files without times of their own take their modification time (as t_report_golden.sh)
touch -d '2025-11-16T23:00:00Z' "$T"/logs/rmm/* "$T"/logs/inference/vllm_server.log \
	"$T"/logs/inference/bitnet_metrics.jsonl "$T"/logs/profiler/nsys_cuda_gpu_trace.csv
"$INGEST" -q --db "$T/s.db" --config fixtures/sample-logs.ingest.json "$T/logs" || [ $? -eq 1 ] ||
	fail "ingest sample logs"
"$REPORT" --db "$T/s.db" --days 7 --until 2025-11-17 --output-dir "$T/s" >"$T/s.txt" 2>&1 ||
	[ $? -eq 1 ] || fail "report sample logs"
python3 - "$T/s/report.json" "$T/s/index.html" "$T/s.txt" <<'PY' || fail "display names"
import json, re, sys
rep = json.load(open(sys.argv[1]))
page = open(sys.argv[2]).read()
text = open(sys.argv[3]).read()

def h16(s):		# FNV-1a, 32 bits, its halves xor-ed (kname.c's "#xxxx")
    h = 2166136261
    for b in s.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return "%04x" % ((h >> 16) ^ (h & 0xFFFF))

ks = {k["kernel"]: k["display"] for k in rep["kernels"]}
# the plain name keeps its name; the mangled one, which reads the same, gets its hash
want = {"force_pass_kernel": "force_pass_kernel",
        "_Z17force_pass_kernelPK6float4PS_i": "force_pass_kernel#" + h16("_Z17force_pass_kernelPK6float4PS_i"),
        "_Z15force_pass_kernelPK6float4PS_i": "force_pass_kern"}
for full, d in want.items():
    assert ks.get(full) == d, (full, ks.get(full), d)
# a demangled name: no return type, no parameters
for full, d in ks.items():
    if full.startswith("void ") and "(" in full:
        assert not d.startswith("void ") and "(" not in d, (full, d)
assert len(set(ks.values())) == len(ks), "two kernels of one display name: %r" % ks
# the names a person reads: no "(...)", no mangled name
for what, s in (("page", re.sub(r'title="[^"]*"', "", page)), ("text", text)):
    assert "(...)" not in s, what + ": (...) after a name"
    assert "_Z17force" not in s and "_Z15force" not in s, what + ": a mangled name"
# trends and anomalies name a kernel as the kernels section does
for t in rep["trends"]:
    if t["series"] == "kernel":
        assert t["display"] == ks.get(t["kernel"], t["display"]), t
for a in rep["anomalies"]["items"]:
    assert a["display"] == ks[a["kernel"]], a
PY

# --- the per-GPU table: the real 2 x H100 run, figures from nvidia-smi.csv
"$INGEST" -q --db "$T/r.db" fixtures/realrun 2>/dev/null || [ $? -eq 1 ] || fail "ingest realrun"
"$REPORT" --db "$T/r.db" --since 2026-11-26 --until 2026-11-27 --output-dir "$T/r" >/dev/null 2>&1 ||
	[ $? -eq 1 ] || fail "report realrun"
python3 - fixtures/realrun/nvidia-smi.csv "$T/r/index.html" <<'PY' || fail "per-GPU table"
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1]), skipinitialspace=True))
head, rows = rows[0], rows[1:]
col = {h.split(" [")[0]: i for i, h in enumerate(head)}
def num(s):
    return float(s.split()[0])
def p95(v):		# linear interpolation between order statistics (numpy's default)
    v = sorted(v); x = 0.95 * (len(v) - 1); i = int(x)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (x - i)
want = {}
for g in sorted({r[col["index"]] for r in rows}):
    rs = [r for r in rows if r[col["index"]] == g]
    u = [num(r[col["utilization.gpu"]]) for r in rs]
    p = [num(r[col["power.draw"]]) for r in rs]
    want["GPU " + g] = [sum(u) / len(u), p95(u),
                        max(num(r[col["memory.used"]]) for r in rs),
                        max(num(r[col["memory.total"]]) for r in rs),
                        sum(p) / len(p), max(p),
                        max(num(r[col["temperature.gpu"]]) for r in rs)]
page = open(sys.argv[2]).read()
m = re.search(r'<table class="gpus">(.*?)</table>', page, re.S)
assert m, "no per-GPU table"
got = {}
for tr in re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S)[1:]:
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
    got[cells[0]] = [float(c) for c in cells[1:8]]
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
for g in want:
    for w, v in zip(want[g], got[g]):	# the page writes 4 significant digits
        assert abs(w - v) <= max(1e-3 * abs(w), 0.006), (g, want[g], got[g])
print("per-GPU:", got)
PY
# the series grouped per GPU under a heading; the name column not wrapped
grep -q '<th colspan="14" class="grp">(no host) / GPU 1</th>' "$T/r/index.html" || fail "no GPU heading"
grep -q 'td.k{[^}]*white-space:nowrap' "$T/r/index.html" || fail "name column wraps"

# --- Prometheus: a counter's _created is no metric; buckets show their le
mkdir -p "$T/p"
cat >"$T/p/metrics.prom" <<'EOF'
# TYPE app_requests counter
app_requests_total{code="200"} 5 1735689600000
app_requests_created{code="200"} 1735689000 1735689600000
app_requests_total{code="200"} 9 1735689660000
app_requests_created{code="200"} 1735689000 1735689660000
# TYPE app_latency_seconds histogram
app_latency_seconds_bucket{le="0.25"} 3 1735689600000
app_latency_seconds_bucket{le="+Inf"} 5 1735689600000
app_latency_seconds_bucket{le="0.25"} 4 1735689660000
app_latency_seconds_bucket{le="+Inf"} 9 1735689660000
EOF
"$INGEST" -q --db "$T/p.db" "$T/p" || [ $? -eq 1 ] || fail "ingest prom"
"$REPORT" --db "$T/p.db" --since 2025-01-01 --until 2025-01-02 --output-dir "$T/pr" >/dev/null 2>&1 ||
	[ $? -eq 1 ] || fail "report prom"
[ "$(q "$T/p.db" "select count(*) from series s join names n on n.id = s.metric_id
	where n.name like '%_created'")" -ge 1 ] || fail "the fixture's _created series not stored"
grep -q 'app_requests_created' "$T/pr/index.html" && fail "_created shown as a metric on the page"
grep -q 'app_requests_created' "$T/pr/report.json" && fail "_created listed as a metric in report.json"
grep -q 'app_requests_total' "$T/pr/index.html" || fail "the counter itself not shown"
for le in 0.25 +Inf; do
	grep -q "app_latency_seconds_bucket <small>le=$le</small>" "$T/pr/index.html" ||
		fail "bucket le=$le not shown"
done
exit 0
