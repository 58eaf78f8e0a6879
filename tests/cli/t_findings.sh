#!/bin/sh
# Findings against runs with a known cause (fixtures/findings.gen.py): the
# right series, interval (intersection over union >= 0.6 with the truth),
# kind, GPU and evidence; no finding on a series that did not change, none
# at all on the same node without causes; findings first in the text
# report and the page, feeding alerts (rule "finding") and --fail-on.
. tests/cli/lib.sh

check_run() {	# dir seed [stable|jobs|jobs-stable]
	python3 fixtures/findings.gen.py "$T/$1" "$2" ${3:-} || fail "generator"
	# an inference server's metrics lines carry no time: ingest spreads each run's new
	# lines between the file's modification times, so its feed is ingested every 10 s
	t0=$(python3 -c "import json; print(int(json.load(open('$T/$1/truth.json'))['t0']))")
	[ -d "$T/$1/feed" ] && touch -d "@$t0" "$T/$1/logs/infer/metrics.jsonl"
	"$INGEST" -q --db "$T/$1/db" "$T/$1/logs" 2>/dev/null || fail "ingest $1"
	for f in $(ls "$T/$1/feed/"*.jsonl 2>/dev/null); do
		cat "$f" >> "$T/$1/logs/infer/metrics.jsonl"
		touch -d "@$(cat "${f%.jsonl}.ts")" "$T/$1/logs/infer/metrics.jsonl"
		"$INGEST" -q --db "$T/$1/db" "$T/$1/logs" 2>/dev/null || fail "ingest $1 $f"
	done
	since=$(python3 -c "import json; print(json.load(open('$T/$1/truth.json'))['since'])")
	until=$(python3 -c "import json; print(json.load(open('$T/$1/truth.json'))['until'])")
	"$REPORT" --db "$T/$1/db" --since "$since" --until "$until" --format json \
		--output-dir "$T/$1/r" >/dev/null 2>&1 || fail "report $1"
	"$REPORT" --db "$T/$1/db" --since "$since" --until "$until" --format text --no-charts \
		--output-dir "$T/$1/r" >/dev/null 2>&1 || fail "text report $1"
	python3 - "$T/$1/r/report.json" "$T/$1/truth.json" <<'PY' || fail "findings of $1 differ from the truth"
import fnmatch, json, sys, datetime as dt
r = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
bad = []
def s_of(ts):
    return dt.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() - t["t0"]
got = {f["series"]: f for f in r["findings"]}
def find(pat):   # a training run's series names its folder: "train.iteration_ms *job rank 0"
    m = [f for n, f in got.items() if fnmatch.fnmatchcase(n, pat)]
    return m[0] if len(m) == 1 else None
for w in t["findings"]:
    f = find(w["series"])
    if not f:
        bad.append("no finding for " + w["series"]); continue
    a0, a1 = s_of(f["start_ts"]), s_of(f["end_ts"])
    b0, b1 = w["start_s"], w["end_s"]
    inter = max(0.0, min(a1, b1) - max(a0, b0))
    iou = inter / (max(a1, b1) - min(a0, b0))
    print("%-26s %-6s IoU %.3f  device %s  change %+.0f%%  confidence %s" % (
        w["series"], f["kind"], iou, f["device"], f["change_pct"], f["confidence"]))
    if iou < 0.6: bad.append("%s: IoU %.3f" % (w["series"], iou))
    if f["kind"] not in w["kinds"]: bad.append("%s: kind %s" % (w["series"], f["kind"]))
    if f["device"] != w["device"]: bad.append("%s: device %r" % (w["series"], f["device"]))
    if w["change_pct"] is not None and abs(f["change_pct"] - w["change_pct"]) > 0.15 * abs(w["change_pct"]):
        bad.append("%s: change %.1f" % (w["series"], f["change_pct"]))
    names = {(e.get("metric") or e.get("event")) for e in f["evidence"] if e["implicated"]}
    for m in w["evidence"]:
        if m not in names: bad.append("%s: no evidence %s (%s)" % (w["series"], m, names))
    # the throttle reasons and the process, as the generator made them
    ev = {(e.get("metric") or e.get("event")): e for e in f["evidence"] if e["implicated"]}
    if "throttle" in w and ev.get("throttle", {}).get("detail") != w["throttle"]:
        bad.append("%s: throttle %r" % (w["series"], ev.get("throttle")))
    for k in ("process_busier", "process_memory"):
        if k in w["evidence"] and ev.get(k, {}).get("detail") != w["process"]:
            bad.append("%s: %s %r" % (w["series"], k, ev.get(k)))
    if not fnmatch.fnmatchcase(f["sentence"], w["series"] + " *"): bad.append("sentence " + f["sentence"])
for s in t["stable"]:
    if find(s) or any(fnmatch.fnmatchcase(n, s) for n in got):
        bad.append("a finding on the stable series " + s)
if len(r["findings"]) != len(t["findings"]):
    bad.append("%d findings, the truth has %d" % (len(r["findings"]), len(t["findings"])))
# the load: a new process on GPU 1 named as evidence
if t["findings"] and "compact_frontier_kernel" in got:
    ev = got["compact_frontier_kernel"]["evidence"]
    if not any(e.get("event") == "process" and "burn" in e.get("detail", "") and e["device"] == "1" for e in ev):
        bad.append("no new process on GPU 1 in the evidence")
    if "the other 6 kernels did not change" not in got["compact_frontier_kernel"]["sentence"]:
        bad.append("sentence: " + got["compact_frontier_kernel"]["sentence"])
    fa = [a for a in r["alerts"] if a["rule"] == "finding"]
    if sorted(a["subject"] for a in fa) != sorted(w["series"] for w in t["findings"]):
        bad.append("finding alerts %r" % [a["subject"] for a in fa])
for b in bad: print("FAIL", b)
sys.exit(1 if bad else 0)
PY
}

check_run node 32
check_run node2 7
check_run stable 33 stable
check_run stable2 34 stable
check_run jobs 40 jobs
check_run jobs2 41 jobs
check_run jobs_stable 42 jobs-stable
check_run jobs_stable2 43 jobs-stable

# the real run (fixtures/realrun/README.md): a second process loaded GPU 1 for the
# interval in truth.json (its own clock); the service ran on GPU 1
"$INGEST" -q --db "$T/real.db" fixtures/realrun 2>/dev/null || fail "ingest realrun"
"$REPORT" --db "$T/real.db" --since 2026-11-26T15:45:00Z --until 2026-11-26T15:50:00Z \
	--format json --no-charts --output-dir "$T/real" >/dev/null 2>&1 || fail "report realrun"
python3 - "$T/real/report.json" fixtures/realrun/truth.json <<'PY' || fail "realrun findings"
import json, sys, datetime as dt
r = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
def s_of(ts): return dt.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
bad = []
got = {f["series"]: f for f in r["findings"]}
f = got.get("compact_frontier_kernel")
if not f:
    sys.exit("no finding for compact_frontier_kernel: %r" % list(got))
a0, a1, b0, b1 = s_of(f["start_ts"]), s_of(f["end_ts"]), t["load_start"], t["load_end"]
iou = max(0.0, min(a1, b1) - max(a0, b0)) / (max(a1, b1) - min(a0, b0))
print("realrun compact_frontier_kernel %s IoU %.3f device %s change %+.0f%% %s" % (
    f["kind"], iou, f["device"], f["change_pct"], f["confidence"]))
if iou < 0.6: bad.append("IoU %.3f" % iou)
if f["kind"] != "window": bad.append("kind " + f["kind"])
if f["device"] != "1": bad.append("device %r" % f["device"])
imp = {(e.get("metric") or e.get("event")) for e in f["evidence"] if e["implicated"]}
for m in ("gpu.power_w", "gpu.utilization_pct", "process"):
    if m not in imp: bad.append("no evidence " + m)
if any(e["device"] == "0" for e in f["evidence"]): bad.append("idle GPU 0 as evidence")
for k in ("force_pass_kernel", "integrate_kernel", "spring_kernel", "reduce_sum_kernel",
          "constraint_kernel", "scatter_kernel"):
    if k in got: bad.append("a finding on " + k)
for b in bad: print("FAIL", b)
sys.exit(1 if bad else 0)
PY

# the real one-GPU run (fixtures/realjobs/README.md): a training job and an inference server,
# a second process loading the GPU for the interval in truth.json; the inference server's
# metrics lines replayed every 10 s at the times the recorder wrote them
R=fixtures/realjobs
mkdir -p $T/rj/logs/job $T/rj/logs/infer
cp $R/nvidia-smi.csv $R/compute-apps.csv $R/pmon.log $T/rj/logs/
gzip -dc $R/console.log.gz > $T/rj/logs/job/console.log
python3 - $R/metrics.feed.gz $T/rj/feed <<'PY' || fail "realjobs feed"
import gzip, os, sys
rows = [l.split(" ", 1) for l in gzip.open(sys.argv[1], "rt")]
os.makedirs(sys.argv[2])
b, k = int(float(rows[0][0])), 0
open(os.path.join(sys.argv[2], "start"), "w").write("%d\n" % b)
while rows:
    b += 10
    open(os.path.join(sys.argv[2], "%03d.jsonl" % k), "w").write("".join(r[1] for r in rows if float(r[0]) < b))
    open(os.path.join(sys.argv[2], "%03d.ts" % k), "w").write("%d\n" % b)
    rows = [r for r in rows if float(r[0]) >= b]
    k += 1
PY
: > $T/rj/logs/infer/metrics.jsonl
touch -d "@$(cat $T/rj/feed/start)" $T/rj/logs/infer/metrics.jsonl
"$INGEST" -q --db "$T/rj/db" $T/rj/logs 2>/dev/null || fail "ingest realjobs"
for f in $T/rj/feed/*.jsonl; do
	cat "$f" >> $T/rj/logs/infer/metrics.jsonl
	touch -d "@$(cat "${f%.jsonl}.ts")" $T/rj/logs/infer/metrics.jsonl
	"$INGEST" -q --db "$T/rj/db" $T/rj/logs 2>/dev/null || fail "ingest realjobs $f"
done
"$REPORT" --db "$T/rj/db" --since 2026-11-26T18:00:00Z --until 2026-11-26T18:10:00Z \
	--format json --no-charts --output-dir "$T/rj/r" >/dev/null 2>&1 || fail "report realjobs"
python3 - "$T/rj/r/report.json" $R/truth.json $R/compute-apps.csv <<'PY' || fail "realjobs findings"
import json, sys, datetime as dt
r = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
def s_of(ts): return dt.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
def smi(ts): return dt.datetime.strptime(ts, "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=dt.timezone.utc).timestamp()
# the second process: the pid compute-apps lists first within 5 s of the load's start
first = {}
for l in list(open(sys.argv[3]))[1:]:
    f = [x.strip() for x in l.split(",")]
    first.setdefault(f[2], smi(f[0]))
burn = [p for p, s in first.items() if abs(s - t["load_start"]) < 5]
bad = [] if len(burn) == 1 else ["the second process in compute-apps.csv: %r" % burn]
b0, b1 = t["load_start"], t["load_end"]
for name in ("train.iteration_ms *job", "train.tokens_per_s *job"):
    fs = [f for f in r["findings"] if f["series"].startswith(name.split()[0]) and f["series"].endswith("job")]
    if len(fs) != 1:
        bad.append("%s: %d findings" % (name, len(fs))); continue
    f = fs[0]
    a0, a1 = s_of(f["start_ts"]), s_of(f["end_ts"])
    iou = max(0.0, min(a1, b1) - max(a0, b0)) / (max(a1, b1) - min(a0, b0))
    print("realjobs %s %s IoU %.3f device %s change %+.0f%% %s" % (
        f["series"], f["kind"], iou, f["device"], f["change_pct"], f["confidence"]))
    if iou < 0.6: bad.append("%s: IoU %.3f" % (name, iou))
    if f["kind"] != "window" or not f["worse"]: bad.append("%s: %s worse %s" % (name, f["kind"], f["worse"]))
    if f["device"] != "0": bad.append("%s: device %r" % (name, f["device"]))
    if burn and not any(e.get("event") == "process" and e["detail"].endswith("pid " + burn[0])
                        and e["implicated"] for e in f["evidence"]):
        bad.append("%s: the second process (pid %s) is no evidence" % (name, burn[0]))
# the inference server did not slow with the load: no inference finding over it
for f in r["findings"]:
    if f["source"] == "inference" and min(s_of(f["end_ts"]), b1) > max(s_of(f["start_ts"]), b0):
        bad.append("an inference finding over the load: " + f["sentence"])
for b in bad: print("FAIL", b)
sys.exit(1 if bad else 0)
PY

# first in the text report and on the page (right after the verdict)
first=$(grep -n -m1 '^Findings$' $T/node/r/report.txt | cut -d: -f1)
kern=$(grep -n -m1 '^Kernels' $T/node/r/report.txt | cut -d: -f1)
[ -n "$first" ] && [ "$first" -lt "$kern" ] || fail "text: Findings not before Kernels"
h=$T/node/r/index.html
s1=$(grep -n -m1 '<section id="findings"' $h | cut -d: -f1)
s2=$(grep -n '<section id="' $h | head -n 1 | cut -d: -f1)
[ -n "$s1" ] && [ "$s1" = "$s2" ] || fail "html: findings is not the first section"
for k in 1 2 3; do
	[ -s $T/node/r/finding_$k.png ] || fail "finding_$k.png"
done
[ -e $T/stable/r/finding_1.png ] && fail "a finding chart without a finding"
grep -q 'No series changed' $T/stable/r/report.txt || fail "stable: no 'No series changed'"

# --fail-on: the findings alone (kernel_* rules off) make the exit status
cat > $T/only.json <<'EOF'
{"alerts": [{"rule": "finding", "match": "*", "warning": 20, "critical": 100}]}
EOF
for d in node stable; do
	"$REPORT" --db "$T/$d/db" --config $T/only.json --since 2025-11-21T14:00:00Z \
		--until 2025-11-21T14:05:01Z --format json --no-charts --fail-on warning \
		--output-dir "$T/$d/f" >/dev/null 2>&1
	eval rc_$d=$?
done
# --no-findings: the section left out (make bench times the report without it)
"$REPORT" --db "$T/node/db" --since 2025-11-21T14:00:00Z --until 2025-11-21T14:05:01Z \
	--format json --no-charts --no-findings --output-dir "$T/node/nf" >/dev/null 2>&1 ||
	fail "report --no-findings"
expect_eq "--no-findings" "False 0 False" "$(python3 -c "
import json, os; r = json.load(open('$T/node/nf/report.json'))
print('findings' in r, sum(a['rule'] == 'finding' for a in r['alerts']),
      os.path.exists('$T/node/nf/findings.csv'))")"
expect_eq "--fail-on warning with findings" 3 "$rc_node"
expect_eq "--fail-on warning on the stable node" 0 "$rc_stable"
exit 0
