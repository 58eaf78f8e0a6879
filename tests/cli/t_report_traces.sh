# The report on profiler traces: a hand-written gpufl run (kernels with
# launch figures, stacks and scopes; nested scopes) and a hand-written
# Kineto trace (CPU and GPU annotations, kernels placed by time). The
# expected kernels' trace fields, hotspots and scope statistics are computed
# by python3 from the lines it writes, not from gpulog's output. Also: the
# scopes section in every format, scopes.png decodes and is not blank, and
# a gpufl kernel whose duration rises linearly over two days is degrading
# (trends) and a regression against the preceding day (baseline).
. tests/cli/lib.sh

command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"
PNGCHECK="$PWD/$BUILD/bench/pngcheck"
[ -x "$PNGCHECK" ] || fail "$PNGCHECK not built"

mkdir -p $T/tr/gpufl $T/tr/kineto
python3 - "$T" <<'PY' || fail "python3 writes the traces"
import json, sys
T = sys.argv[1]
T0 = 1763251200 * 10**9            # 2025-11-16T00:00:00Z in ns
S = 10**9
base = {"pid": 7, "app": "app", "logPath": "app"}
def line(**kw):
    d = dict(base); d.update(kw); return json.dumps(d)

# --- gpufl kernels ---------------------------------------------------
# (name, device, start s, dur us, overhead us, queue us (negative: the GPU
#  started before the call returned, queue 0), occupancy, stack, scope)
K = [
    ("_Z5kernAPfi", "0", 0.3, 100, 5, 1, 0.5, "a.py:1|b.py:2", "epoch|train|fwd"),
    ("_Z5kernAPfi", "0", 0.4, 200, 6, 2, 0.5, "a.py:1|b.py:2", "epoch|train|fwd"),
    ("_Z5kernAPfi", "1", 2.6, 300, 7, 3, 0.75, "a.py:1|b.py:2", "epoch|train|fwd"),
    ("_Z5kernAPfi", "0", 2.7, 400, 8, 4, 0.75, "a.py:1|b.py:2", "epoch|train|fwd"),
    ("_Z5kernAPfi", "1", 4.5, 500, 9, -2, 1.0, "c.py:3", "epoch|train"),
    ("_Z5kernAPfi", "0", 4.6, 600, 10, 5, 1.0, "c.py:3", "epoch|train"),
    ("plain_kernel", "1", 6.5, 1000, 20, 10, 0.25, "d.py:4", "epoch|eval"),
    ("plain_kernel", "1", 7.5, 1000, 30, 10, 0.25, "d.py:4", "epoch|eval"),
    ("plain_kernel", "1", 28.0, 1000, 40, 10, 0.5, "e.py:5", "epoch|eval"),
    # no scope, no stack: placed by its launch time within the gpufl scopes
    ("_ZN2ns5inner7computeEv", "0", 1.0, 50, 4, 6, 0.5, None, None),
    ("_ZN2ns5inner7computeEv", "0", 30.0, 70, 4, 6, 0.5, None, None),
]
init = line(type="init", ts_ns=T0, devices=[{"id": 0, "name": "GPU A"}, {"id": 1, "name": "GPU A"}])
out = [init]
for i, (n, dev, t, dur, ov, qu, occ, stack, scope) in enumerate(K):
    a0 = T0 + int(t * S)
    a1 = a0 + ov * 1000
    st = a1 + qu * 1000
    ev = dict(type="kernel_event", name=n, device_id=dev, start_ns=st, end_ns=st + dur * 1000,
              api_start_ns=a0, api_exit_ns=a1, grid="(1,1,1)", block="(32,1,1)", num_regs=16,
              dyn_shared_bytes=0, static_shared_bytes=0, occupancy=occ, stream_id=1,
              corr_id=100 + i, cuda_error=0)
    if scope:
        ev["user_scope"] = scope
        ev["stack_trace"] = stack
    out.append(line(**ev))
open(T + "/tr/gpufl/app.kernel.0.log", "w").write("\n".join(out) + "\n")

# --- gpufl scopes (nested): (name, begin s, end s) in file order ---------
SC = [("epoch", 0, None), ("train", 0.1, None), ("fwd", 0.2, 2.2), ("fwd", 2.5, 4.0),
      ("train", None, 5.1), ("eval", 6, 9), ("epoch", None, 10),
      ("epoch", 20, None), ("train", 20.1, None), ("fwd", 20.2, 23.2), ("train", None, 26.1),
      ("eval", 27, 31), ("epoch", None, 32)]
out = [init]
ev = []
for n, b, e in SC:
    if b is not None:
        ev.append((b, "scope_begin", n))
    if e is not None:
        ev.append((e, "scope_end", n))
for t, typ, n in ev:   # in file order, as written
    out.append(line(type=typ, name=n, tag="", ts_ns=T0 + int(t * S)))
open(T + "/tr/gpufl/app.scope.0.log", "w").write("\n".join(out) + "\n")

# --- Kineto: µs since the epoch ------------------------------------------
U = T0 // 1000 + 100 * 10**6       # 100 s after T0
def X(cat, name, ts, dur, pid, tid, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": U + ts, "dur": dur, "args": args}
te = [
    X("user_annotation", "step", 0, 1000, 99, 10),
    X("gpu_user_annotation", "step", 50, 2000, 0, 7, device=0, stream=7),
    X("cuda_runtime", "cudaLaunchKernel", 100, 10, 99, 10, correlation=1),
    X("kernel", "kA", 150, 100, 0, 7, device=0, stream=7, correlation=1),
    X("cuda_runtime", "cudaLaunchKernel", 1100, 20, 99, 10, correlation=2),
    X("kernel", "kB", 1500, 300, 0, 7, device=0, stream=7, correlation=2),
    X("cuda_runtime", "cudaLaunchKernel", 1200, 10, 99, 10, correlation=3),
    X("kernel", "kC", 1300, 50, 0, 8, device=1, stream=8, correlation=3),
    X("kernel", "kD", 2100, 10, 0, 7, device=0, stream=7, correlation=4),
]
# laid out as Kineto's writer does: one event over a few lines
def kv(d):
    return ", ".join("%s: %s" % (json.dumps(k), json.dumps(v)) for k, v in d.items())
ev_txt = []
for e in te:
    args = e.pop("args")
    ev_txt.append("  {\n    %s,\n    \"args\": {\n      %s\n    }\n  }" % (kv(e), kv(args)))
open(T + "/tr/kineto/w.pt.trace.json", "w").write(
    '{\n  "schemaVersion": 1,\n  "traceEvents": [\n' + ",\n".join(ev_txt) +
    '\n  ],\n  "displayTimeUnit": "ms"\n}\n')

# --- expected ---------------------------------------------------------
def q(v, p):   # numpy's default: linear between order statistics
    v = sorted(v); h = (len(v) - 1) * p; lo = int(h)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (h - lo)
spans = {}
stack = []
for t, typ, n in ev:
    if typ == "scope_begin":
        stack.append((n, t))
    else:
        assert stack[-1][0] == n
        path = "|".join(x for x, _ in stack)
        spans.setdefault(path, []).append((stack[-1][1], t))
        stack.pop()
want = {"kernels": {}, "scopes": {}}
for name in ("_Z5kernAPfi", "plain_kernel", "_ZN2ns5inner7computeEv"):
    ks = [k for k in K if k[0] == name]
    devs = []
    for k in ks:
        if k[1] not in devs:
            devs.append(k[1])
    pairs = {}
    for k in ks:
        if k[8]:
            pairs[(k[7], k[8])] = pairs.get((k[7], k[8]), 0) + 1
    w = {"count": len(ks), "total_us": sum(k[3] for k in ks),
         "launch_overhead_us": sum(k[4] for k in ks) / len(ks),
         "queue_us": sum(max(0, k[5]) for k in ks) / len(ks),
         "occupancy": sum(k[6] for k in ks) / len(ks),
         "device": ",".join(devs), "source": "gpufl"}
    if pairs:
        best = max(pairs.values())
        (s, sc) = [p for p in pairs if pairs[p] == best][0]
        w["hotspot"] = {"stack": s, "scope": sc, "count": best}
    want["kernels"][name] = w
for path, sp in spans.items():
    d = [(e - b) * 1000 for b, e in sp]
    kin = [k for k in K if k[8] and (k[8] == path or k[8].startswith(path + "|"))]
    # kernels without a scope: their launch (api_start) inside a span of the path
    kin += [k for k in K if not k[8] and any(b <= k[2] < e for b, e in sp)]
    want["scopes"][path + "@"] = {"count": len(d), "total_ms": sum(d), "mean_ms": sum(d) / len(d),
        "p50_ms": q(d, .5), "p95_ms": q(d, .95), "max_ms": max(d),
        "kernels": len(kin), "gpu_ms": sum(k[3] for k in kin) / 1000}
# Kineto: the CPU range holds kernels launched in it, the GPU range (device 0)
# kernels of device 0 starting in it
want["scopes"]["step@"] = {"count": 1, "total_ms": 1.0, "mean_ms": 1.0, "p50_ms": 1.0,
    "p95_ms": 1.0, "max_ms": 1.0, "kernels": 1, "gpu_ms": 0.1}
want["scopes"]["step@0"] = {"count": 1, "total_ms": 2.0, "mean_ms": 2.0, "p50_ms": 2.0,
    "p95_ms": 2.0, "max_ms": 2.0, "kernels": 2, "gpu_ms": 0.4}
json.dump(want, open(T + "/want.json", "w"), indent=1, sort_keys=True)
PY

ingest $T/db $T/tr || fail "ingest"
expect_eq "gpufl kernels stored" 11 "$(q $T/db "select count(*) from events where source = 'gpufl' and kernel_id is not null")"
expect_eq "kineto kernels stored" 4 "$(q $T/db "select count(*) from events where source = 'kineto' and kernel_id is not null")"
expect_eq "spans stored" 11 "$(q $T/db "select count(*) from spans")"

"$REPORT" --db $T/db --since 2025-11-16 --until 2025-11-17 --format json --top 20 \
	--output-dir $T/json >/dev/null || fail "report json"
python3 - $T/want.json $T/json/report.json <<'PY' || fail "json differs from python3's values"
import json, math, sys
want = json.load(open(sys.argv[1])); got = json.load(open(sys.argv[2]))
bad = []
def close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b
ks = {k["kernel"]: k for k in got["kernels"]}
for name, w in want["kernels"].items():
    g = ks.get(name)
    if not g:
        bad.append("kernel %s missing" % name); continue
    for f, v in w.items():
        if f == "hotspot":
            if g.get("hotspot") != v:
                bad.append("%s hotspot %r != %r" % (name, g.get("hotspot"), v))
        elif not close(v, g.get(f)):
            bad.append("%s.%s: want %r got %r" % (name, f, v, g.get(f)))
    if "hotspot" not in w and "hotspot" in g:
        bad.append("%s: a hotspot without a stack" % name)
for name in ("kA", "kB", "kC", "kD"):
    if ks.get(name, {}).get("source") != "kineto" or ks[name].get("device") != ("1" if name == "kC" else "0"):
        bad.append("kineto kernel %s: source/device %r" % (name, ks.get(name)))
if not close(ks["kA"]["launch_overhead_us"], 10.0) or not close(ks["kA"]["queue_us"], 40.0):
    bad.append("kA launch figures %r" % ks["kA"])
if ks["kD"].get("launch_overhead_us") is not None:
    bad.append("kD has no launch call: %r" % ks["kD"])
sc = {r["scope"] + "@" + (r["device"] or ""): r for r in got["scopes"]}
if sorted(sc) != sorted(want["scopes"]):
    bad.append("scope rows %s != %s" % (sorted(sc), sorted(want["scopes"])))
for key, w in want["scopes"].items():
    for f, v in w.items():
        if key in sc and not close(v, sc[key][f]):
            bad.append("scope %s.%s: want %r got %r" % (key, f, v, sc[key][f]))
tot = [r["total_ms"] for r in got["scopes"]]
if tot != sorted(tot, reverse=True):
    bad.append("scopes not by total time")
tr = [t for t in got["trends"] if t["series"] == "scope"]
if sorted((t["kernel"], t["device"] or "") for t in tr) != sorted(tuple(k.split("@")) for k in want["scopes"]):
    bad.append("one scope trend per row: %r" % [(t["kernel"], t.get("device")) for t in tr])
if any(t["unit"] != "ms" for t in tr):
    bad.append("scope trend unit")
ep = [t for t in tr if t["kernel"] == "epoch"]
if not ep or ep[0]["n"] != 2 or not close(ep[0]["span_s"], 20.0):
    bad.append("epoch trend %r" % ep)
bad and print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# CSV: the same rows as the JSON
"$REPORT" --db $T/db --since 2025-11-16 --until 2025-11-17 --format csv --no-charts \
	--output-dir $T/csv >/dev/null || fail "report csv"
expect_eq "scopes.csv header" "scope,device,count,total_ms,mean_ms,p50_ms,p95_ms,max_ms,kernels,gpu_ms" \
	"$(head -n 1 $T/csv/scopes.csv | tr -d '\r')"
python3 - $T/json/report.json $T/csv/scopes.csv $T/csv/kernels.csv <<'PY' || fail "csv differs from json"
import csv, json, math, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
bad = []
if len(rows) != len(j["scopes"]):
    bad.append("scopes.csv rows %d, json %d" % (len(rows), len(j["scopes"])))
for r, s in zip(rows, j["scopes"]):
    if r["scope"] != s["scope"] or (r["device"] or None) != s["device"] or int(r["count"]) != s["count"] \
       or int(r["kernels"]) != s["kernels"] or not math.isclose(float(r["total_ms"]), s["total_ms"]) \
       or not math.isclose(float(r["gpu_ms"]), s["gpu_ms"]):
        bad.append("scopes.csv %r vs %r" % (r, s))
k = {r["kernel"]: r for r in csv.DictReader(open(sys.argv[3], newline=""))}
r = k["_Z5kernAPfi"]
if (r["device"], r["source"], r["hot_stack"], r["hot_scope"], r["hot_count"]) != ("0,1", "gpufl", "a.py:1|b.py:2", "epoch|train|fwd", "4") \
   or not math.isclose(float(r["launch_overhead_us"]), 7.5) or not math.isclose(float(r["queue_us"]), 2.5) \
   or not math.isclose(float(r["occupancy"]), 0.75):
    bad.append("kernels.csv %r" % r)
bad and print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# text: the scopes block with its rows, the hotspots with shortened names
"$REPORT" --db $T/db --since 2025-11-16 --until 2025-11-17 --format text --no-charts \
	--top 20 > $T/text || fail "report text"
sed -n '/^Scopes/,/^$/p' $T/text > $T/scopes.txt
expect_eq "text: scope rows" 6 "$(grep -Ec '^(epoch|step)' $T/scopes.txt)"
grep -Eq '^epoch +2 +22\.0k +11\.0k +11\.0k +11\.9k +12\.0k +11 ' $T/scopes.txt ||
	fail "text: epoch row: $(grep '^epoch ' $T/scopes.txt)"
grep -Eq '^step @0 +1 +2 +2 +2 +2 +2 +2 +0\.4$' $T/scopes.txt || fail "text: the GPU range row: $(cat $T/scopes.txt)"
grep -Eq '^kernA ' $T/text || fail "text: demangled kernA (its display name)"
grep -Eq '^ns::inner::compute ' $T/text || fail "text: demangled nested name"
grep -Eq '^kernA +2100 +7\.5 +2\.5 0\.75 0,1 +a\.py:1\|b\.py:2 \[epoch\|train\|fwd\] \(4\)$' $T/text ||
	fail "text: kernA hotspot: $(grep '^kernA' $T/text)"
awk 'length > 100 { exit 1 }' $T/text || fail "text wider than 100 columns"

# HTML and the chart
"$REPORT" --db $T/db --since 2025-11-16 --until 2025-11-17 --format json \
	--output-dir $T/h >/dev/null || fail "report with charts"
h=$T/h/index.html
grep -q '<section id="scopes">' $h || fail "html: no scopes section"
expect_eq "html: ids are unique" "" "$(grep -o ' id="[^"]*"' $h | sort | uniq -d)"
sed -n '/<section id="scopes">/,/<\/section>/p' $h > $T/scopes.html
expect_eq "html: scope rows" 6 "$(grep -c '<tr><td class="k">' $T/scopes.html)"
grep -q '<tr><td class="k">epoch|train|fwd</td><td></td><td class="n">3</td>' $T/scopes.html ||
	fail "html: epoch|train|fwd row"
grep -q '<figure id="chart-scopes"><a href="scopes.png"><img alt="Time per scope' $T/scopes.html || fail "html: scopes.png inline"
grep -q '<h3>Hotspots</h3>' $h || fail "html: hotspots"
grep -q 'title="_Z5kernAPfi">kernA</td>' $h || fail "html: the kernel written as mangled in the title"
"$PNGCHECK" $T/h/scopes.png 1600 900 > $T/png.out || fail "scopes.png does not decode: $(cat $T/png.out)"
grep -q 'colours=[0-9]' $T/png.out 2>/dev/null || true
# not blank: the two bar colours of the palette are drawn (Okabe-Ito blue and orange)
python3 - $T/h/scopes.png <<'PY' || fail "scopes.png: bars not drawn"
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n"
i, idat, w, h, ct = 8, b"", 0, 0, 0
while i < len(b):
    n, = struct.unpack(">I", b[i:i + 4]); t = b[i + 4:i + 8]; d = b[i + 8:i + 8 + n]; i += 12 + n
    if t == b"IHDR":
        w, h, bd, ct = struct.unpack(">IIBB", d[:10])
    elif t == b"IDAT":
        idat += d
raw = zlib.decompress(idat); bpp = {2: 3, 6: 4}[ct]; stride = w * bpp
prev = bytearray(stride); seen = set(); o = 0
for y in range(h):
    f = raw[o]; line = bytearray(raw[o + 1:o + 1 + stride]); o += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; up = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + up) & 255
        elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp * 4):
        seen.add(tuple(line[x:x + 3]))
need = {(0, 114, 178), (230, 159, 0)}   # the palette's first two colours
sys.exit(0 if need <= seen else 1)
PY

# --- a kernel slowing down across a profiled run ----------------------
mkdir -p $T/slow
python3 - $T/slow <<'PY' || fail "python3 writes the slow run"
import json, sys
T0 = 1763251200 * 10**9 - 86400 * 10**9   # 2025-11-15T00:00:00Z
out = [json.dumps({"pid": 1, "app": "slow", "type": "init", "ts_ns": T0})]
for i in range(192):                         # every 15 minutes for two days
    a0 = T0 + i * 900 * 10**9
    dur = (200 + 2 * i) * 1000                # 200 us rising by 2 us a launch
    out.append(json.dumps({"pid": 1, "app": "slow", "type": "kernel_event", "name": "slow_kernel",
        "device_id": "0", "start_ns": a0 + 10000, "end_ns": a0 + 10000 + dur, "api_start_ns": a0,
        "api_exit_ns": a0 + 5000, "corr_id": i, "occupancy": 0.5}))
open(sys.argv[1] + "/slow.kernel.0.log", "w").write("\n".join(out) + "\n")
PY
ingest $T/slow.db $T/slow || fail "ingest the slow run"
"$REPORT" --db $T/slow.db --since 2025-11-16 --until 2025-11-17 --format json --no-charts \
	--output-dir $T/slowr >/dev/null || fail "report the slow run"
python3 - $T/slowr/report.json <<'PY' || fail "the rising kernel is not degrading"
import json, sys
r = json.load(open(sys.argv[1]))
t = [x for x in r["trends"] if x["series"] == "kernel" and x["kernel"] == "slow_kernel"][0]
# the window holds launches 96..191: 392 .. 582 us, 2 us per 15 minutes = 192 us/day
assert t["verdict"] == "degrading", t
assert abs(t["slope_per_day"] - 192.0) < 1e-6, t
assert abs(t["change_pct"] - (582 - 392) / 392 * 100) < 1e-6, t
b = [x for x in r["baseline"]["kernels"] if x["kernel"] == "slow_kernel"][0]
# the preceding day holds launches 0..95: mean 295 us; this day's mean 487 us
assert b["count_before"] == 96 and b["count"] == 96, b
assert abs(b["mean_before_us"] - 295.0) < 1e-9 and abs(b["mean_us"] - 487.0) < 1e-9, b
assert b["verdict"] == "regression", b
k = [x for x in r["kernels"] if x["kernel"] == "slow_kernel"][0]
assert k["source"] == "gpufl" and abs(k["launch_overhead_us"] - 5.0) < 1e-9 and abs(k["queue_us"] - 5.0) < 1e-9, k
PY
exit 0
