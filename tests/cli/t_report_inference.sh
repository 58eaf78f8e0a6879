#!/bin/sh
# gpulog-report's inference section end to end: a hand-written Prometheus
# exposition (a counter that resets, success and failure counters, two
# histograms) and a BitNet-rs metrics file through gpulog-ingest; the
# counter increases and histogram_quantile figures against a hand
# calculation, the request statistics against python3's own reading of the
# file, the tokens/s trend of falling vLLM throughput, and the alert rules
# tokens_per_second_below, ttft_p95_above, failed_requests_pct_above; the
# chart inference.png only when there are tokens/s or TTFT samples.
. tests/cli/lib.sh

mkdir -p "$T/prom" "$T/bitnet" "$T/vllm"
# four scrapes a minute apart from 2025-01-01T00:00:00Z
cat > "$T/prom/metrics.prom" <<'EOF'
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0"} 100 1735689600000
vllm:generation_tokens_total{engine="0"} 250 1735689660000
vllm:generation_tokens_total{engine="0"} 40 1735689720000
vllm:generation_tokens_total{engine="0"} 90 1735689780000
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0"} 0 1735689600000
vllm:request_success_total{engine="0"} 90 1735689780000
# TYPE vllm:request_failure_total counter
vllm:request_failure_total{engine="0"} 0 1735689600000
vllm:request_failure_total{engine="0"} 10 1735689780000
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1"} 0 1735689600000
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.5"} 0 1735689600000
vllm:time_to_first_token_seconds_bucket{engine="0",le="1"} 0 1735689600000
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf"} 0 1735689600000
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1"} 10 1735689780000
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.5"} 60 1735689780000
vllm:time_to_first_token_seconds_bucket{engine="0",le="1"} 90 1735689780000
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf"} 100 1735689780000
vllm:time_to_first_token_seconds_bucket{engine="1",le="0.2"} 50 1735689780000
vllm:time_to_first_token_seconds_bucket{engine="1",le="0.4"} 100 1735689780000
vllm:time_to_first_token_seconds_bucket{engine="1",le="+Inf"} 100 1735689780000
EOF
ingest "$T/p.db" "$T/prom" || fail "ingest prom"
cat > "$T/alerts.json" <<'EOF'
{"alerts": [
 {"rule": "ttft_p95_above", "warning": 500, "critical": 2000},
 {"rule": "failed_requests_pct_above", "warning": 5, "critical": 20},
 {"rule": "tokens_per_second_below", "warning": 50, "critical": 10}
]}
EOF
W="--since 2025-01-01 --until 2025-01-02"
# a window from the second scrape on: the series has a scrape before it, so
# its first scrape in the window (250) is a base: +40 after the reset, +50 = 90
"$REPORT" --db "$T/p.db" --since 2025-01-01T00:00:30 --until 2025-01-02 --format json \
	--no-charts --output-dir "$T/late" >/dev/null 2>&1 || fail "report prom late"
python3 - "$T/late/report.json" <<'EOF' || fail "counter base in a later window"
import json, sys
c = {x["metric"]: x for x in json.load(open(sys.argv[1]))["inference"]["counters"]}
assert abs(c["vllm:generation_tokens_total"]["increase"] - 90) < 1e-9, c
EOF
for f in json csv; do
	"$REPORT" --db "$T/p.db" $W --config "$T/alerts.json" --format $f --no-charts \
		--output-dir "$T/pj" >/dev/null 2>&1 || fail "report prom $f"
done
# Hand calculation. Counter: the series starts in the window (no scrape of it
# before), so its first scrape counts from zero: 100, then +150, then a reset
# to 40 (+40), then +50 = 340.
# requests: success 90 + failure 10 = 100; failed 10 = 10 %.
# engine 0 bucket increases 10, 60, 90, 100 over le 0.1, 0.5, 1, +Inf:
#   p50 rank 50 in (0.1, 0.5]: 0.1 + 0.4 * (50 - 10) / 50 = 0.42
#   p95 rank 95 in +Inf: the largest finite bound, 1; p99 likewise.
# engine 1 (one scrape: the buckets as scraped) 50, 100, 100 over 0.2, 0.4, +Inf:
#   p50 rank 50 in [0, 0.2]: 0.2 * 50 / 50 = 0.2
#   p95 rank 95 in (0.2, 0.4]: 0.2 + 0.2 * 45 / 50 = 0.38; p99: 0.2 + 0.2 * 49 / 50 = 0.396
python3 - "$T/pj/report.json" "$T/pj/inference.csv" <<'EOF' || fail "prom figures"
import csv, json, sys
r = json.load(open(sys.argv[1]))
inf = r["inference"]
def near(a, b): return a is not None and abs(a - b) < 1e-9
c = {x["metric"]: x for x in inf["counters"]}
g = c["vllm:generation_tokens_total"]
assert near(g["increase"], 340) and g["resets"] == 1 and g["samples"] == 4, g
assert g["labels"] == {"engine": "0"}, g
assert near(c["vllm:request_success_total"]["increase"], 90)
assert near(inf["requests"], 100) and near(inf["failed"], 10) and near(inf["failed_pct"], 10), inf
h = {x["labels"]["engine"]: x for x in inf["histograms"]}
assert h["0"]["metric"] == "vllm:time_to_first_token_seconds" and h["0"]["from"] == "increase"
assert near(h["0"]["p50"], 0.42) and near(h["0"]["p95"], 1) and near(h["0"]["p99"], 1), h["0"]
assert near(h["0"]["count"], 100) and h["0"]["buckets"] == 4
assert h["1"]["from"] == "cumulative", h["1"]
assert near(h["1"]["p50"], 0.2) and near(h["1"]["p95"], 0.38) and near(h["1"]["p99"], 0.396), h["1"]
assert inf["tokens_per_second"]["count"] == 0 and inf["tokens_per_second"]["mean"] is None
al = {(a["rule"], a["subject"]): a for a in r["alerts"]}
# ttft: engine 0 p95 1000 ms >= 500 (warning); engine 1 380 ms does not fire
k = ('ttft_p95_above', 'vllm:time_to_first_token_seconds {"engine":"0"}')
assert k in al and al[k]["severity"] == "warning" and near(al[k]["value"], 1000), al
assert not any("engine\":\"1" in s for (_, s) in al), al
assert al[("failed_requests_pct_above", "inference")]["severity"] == "warning"
assert not any(ru == "tokens_per_second_below" for (ru, _) in al), al
rows = list(csv.DictReader(open(sys.argv[2])))
cr = [x for x in rows if x["kind"] == "counter" and x["name"] == "vllm:generation_tokens_total"]
assert len(cr) == 1 and float(cr[0]["increase"]) == 340 and cr[0]["resets"] == "1", cr
hr = [x for x in rows if x["kind"] == "histogram" and '"1"' in x["labels"]]
assert len(hr) == 1 and abs(float(hr[0]["p95"]) - 0.38) < 1e-9, hr
EOF

# BitNet-rs: five records (one TTFT null), times spread over the file's mtime
cat > "$T/bitnet/metrics.jsonl" <<'EOF'
{"total_latency_ms": 900.0, "tokens_generated": 32, "tokens_per_second": 40.0, "first_token_latency_ms": 95.0, "average_token_latency_ms": 25.0}
{"total_latency_ms": 3300.5, "tokens_generated": 128, "tokens_per_second": 38.5, "first_token_latency_ms": 110.0, "average_token_latency_ms": 26.0}
{"total_latency_ms": 1600.0, "tokens_generated": 64, "tokens_per_second": 41.25, "first_token_latency_ms": null, "average_token_latency_ms": 24.0}
{"total_latency_ms": 800.0, "tokens_generated": 30, "tokens_per_second": 37.0, "first_token_latency_ms": 80.0, "average_token_latency_ms": 27.5}
{"total_latency_ms": 2000.0, "tokens_generated": 80, "tokens_per_second": 42.0, "first_token_latency_ms": 101.0, "average_token_latency_ms": 23.0}
EOF
touch -d '2025-01-01T00:10:00Z' "$T/bitnet/metrics.jsonl"
ingest "$T/b.db" "$T/bitnet" || fail "ingest bitnet"
for f in json text; do
	"$REPORT" --db "$T/b.db" $W --config "$T/alerts.json" --format $f --no-charts \
		--output-dir "$T/bj" >/dev/null 2>&1 || fail "report bitnet $f"
done
python3 - "$T/bitnet/metrics.jsonl" "$T/bj/report.json" <<'EOF' || fail "bitnet statistics"
import json, math, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
inf = json.load(open(sys.argv[2]))["inference"]
def q(v, f):
    v = sorted(v); h = (len(v) - 1) * f; i = math.floor(h)
    return v[i] if i + 1 >= len(v) else v[i] + (h - i) * (v[i + 1] - v[i])
fields = {"tokens_per_second": "tokens_per_second", "ttft_ms": "first_token_latency_ms",
          "latency_ms": "total_latency_ms", "token_latency_ms": "average_token_latency_ms",
          "tokens_generated": "tokens_generated"}
for k, f in fields.items():
    v = [r[f] for r in recs if r[f] is not None]
    want = {"mean": sum(v) / len(v), "p50": q(v, .5), "p95": q(v, .95), "p99": q(v, .99),
            "min": min(v), "max": max(v)}
    got = inf[k]
    assert got["count"] == len(v), (k, got)
    for s, w in want.items():
        assert abs(got[s] - w) < 1e-9 * max(1, abs(w)), (k, s, got[s], w)
assert inf["requests"] == len(recs) and inf["failed"] is None, inf
EOF
grep -q '^tokens_per_second *tokens/s *5 ' "$T/bj/report.txt" || fail "text row"
grep -q 'warning  inference: mean tokens per second 39.8 tokens/s' "$T/bj/report.txt" ||
	fail "tokens_per_second_below alert in the text"

# vLLM generation throughput falling 800 -> 400 tokens/s over ten minutes: degrading
awk 'BEGIN { for (i = 0; i < 20; i++)
	printf("(APIServer pid=1) INFO 01-01 00:%02d:%02d [loggers.py:123] Engine 000: Avg prompt throughput: 100.0 tokens/s, Avg generation throughput: %.1f tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.0%%, Prefix cache hit rate: 0.0%%\n", int(i * 30 / 60), (i * 30) % 60, 800 - i * 20) }' \
	> "$T/vllm/vllm_server.log"
touch -d '2025-01-01T00:20:00Z' "$T/vllm/vllm_server.log"
ingest "$T/v.db" "$T/vllm" || fail "ingest vllm"
"$REPORT" --db "$T/v.db" $W --format json --no-charts --output-dir "$T/vj" >/dev/null 2>&1 ||
	fail "report vllm"
python3 - "$T/vj/report.json" <<'EOF' || fail "vllm trend"
import json, sys
r = json.load(open(sys.argv[1]))
t = [x for x in r["trends"] if x["series"] == "inference" and x["kernel"] == "tokens_per_second"]
assert len(t) == 1 and t[0]["verdict"] == "degrading" and t[0]["n"] == 20, t
v = [800 - i * 20 for i in range(20)]
assert abs(r["inference"]["tokens_per_second"]["mean"] - sum(v) / 20) < 1e-9
assert r["inference"]["requests"] is None and r["inference"]["failed"] is None
EOF
# failed: from counters' labels (vLLM finished_reason abort/error, an HTTP
# status >= 400 on a *requests_total), else from vLLM's access lines (POST
# /v1/... answered >= 400), else null; which one in failed_from.
mkdir -p "$T/fr" "$T/st" "$T/ac"
cat > "$T/fr/metrics.prom" <<'P'
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop"} 5 1735689600000
vllm:request_success_total{engine="0",finished_reason="length"} 0 1735689600000
vllm:request_success_total{engine="0",finished_reason="abort"} 1 1735689600000
vllm:request_success_total{engine="0",finished_reason="stop"} 55 1735689660000
vllm:request_success_total{engine="0",finished_reason="length"} 30 1735689660000
vllm:request_success_total{engine="0",finished_reason="abort"} 21 1735689660000
P
cat > "$T/st/metrics.prom" <<'P'
# TYPE bitnet_requests_total counter
bitnet_requests_total{endpoint="/v1/completions",status="200"} 0 1735689600000
bitnet_requests_total{endpoint="/v1/completions",status="404"} 0 1735689600000
bitnet_requests_total{endpoint="/v1/completions",status="500"} 0 1735689600000
bitnet_requests_total{endpoint="/v1/completions",status="200"} 40 1735689660000
bitnet_requests_total{endpoint="/v1/completions",status="404"} 2 1735689660000
bitnet_requests_total{endpoint="/v1/completions",status="500"} 8 1735689660000
P
cat > "$T/ac/vllm_server.log" <<'P'
(APIServer pid=1) INFO 01-01 00:00:01 [api_server.py:1895] vLLM API server version 0.11.0
(APIServer pid=1) INFO:     10.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 200 OK
(APIServer pid=1) INFO:     10.0.0.1:5001 - "POST /v1/chat/completions HTTP/1.1" 200 OK
(APIServer pid=1) INFO:     10.0.0.1:5002 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request
(APIServer pid=1) INFO:     10.0.0.1:5003 - "GET /metrics HTTP/1.1" 200 OK
(APIServer pid=1) INFO:     10.0.0.1:5004 - "GET /v1/nothing HTTP/1.1" 404 Not Found
(APIServer pid=1) INFO:     10.0.0.1:5005 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error
(APIServer pid=1) INFO:     10.0.0.1:5006 - "POST /v1/completions HTTP/1.1" 200 OK
(APIServer pid=1) ERROR 01-01 00:00:09 [serving_chat.py:200] Error in preprocessing prompt inputs
(APIServer pid=1) INFO:     10.0.0.1:5007 - "POST /v1/completions HTTP/1.1" 200 OK
P
touch -d '2025-01-01T00:10:00Z' "$T/ac/vllm_server.log"
for d in fr st ac; do
	ingest "$T/$d.db" "$T/$d" || fail "ingest $d"
	"$REPORT" --db "$T/$d.db" $W --format json --no-charts --output-dir "$T/${d}j" >/dev/null 2>&1 ||
		fail "report $d"
done
# By hand. fr: the series start in the window, so their first scrapes count
# from zero: stop 55, length 30, abort 21: 106 requests, 21 failed.
# st: 200 +40, 404 +2, 500 +8: 50 requests, 10 failed. ac: six POST /v1/
# lines, the 400 and the 500 failed (the GETs and the ERROR line not counted).
# Then the access lines next to counters: the counters' figures stand.
cp -p "$T/ac/vllm_server.log" "$T/fr/"
ingest "$T/frac.db" "$T/fr" || fail "ingest fr + ac"
"$REPORT" --db "$T/frac.db" $W --format json --no-charts --output-dir "$T/fracj" >/dev/null 2>&1 ||
	fail "report fr + ac"
python3 - "$T" <<'PY' || fail "failed requests"
import json, sys
def inf(d): return json.load(open(sys.argv[1] + "/" + d + "/report.json"))["inference"]
for d, req, fl, src in [("frj", 106, 21, "counters"), ("stj", 50, 10, "counters"),
                        ("acj", 6, 2, "access_lines"), ("fracj", 106, 21, "counters")]:
    i = inf(d)
    got = (i["requests"], i["failed"], i["failed_from"], i["requests_from"])
    assert got == (req, fl, src, src) and abs(i["failed_pct"] - fl * 100 / req) < 1e-9, (d, i)
i = inf("vj")
assert i["failed"] is None and i["failed_from"] is None, i
PY

# inference.png: written when the window has tokens/s or TTFT samples, listed in
# index.html; one panel (vLLM only: 900 px), three (BitNet-rs tokens/s and TTFT
# with vLLM: 1200 px); not written, and an old one removed, without them.
PNGCHECK="$PWD/$BUILD/bench/pngcheck"
"$REPORT" --db "$T/v.db" $W --format json --output-dir "$T/vc" >"$T/vc.out" 2>&1 ||
	fail "report vllm charts"
"$PNGCHECK" "$T/vc/inference.png" 1600 900 >/dev/null || fail "$("$PNGCHECK" "$T/vc/inference.png" 1600 900)"
grep -qx "$T/vc/inference.png" "$T/vc.out" || fail "inference.png not printed"
grep -q '<figure id="chart-inference"><a href="inference.png"><img alt="Tokens generated per second' "$T/vc/index.html" ||
	fail "index.html lists inference.png"
cp -p "$T/vllm/vllm_server.log" "$T/bitnet/"
ingest "$T/bv.db" "$T/bitnet" || fail "ingest bitnet + vllm"
"$REPORT" --db "$T/bv.db" $W --format json --output-dir "$T/bvc" >/dev/null 2>&1 ||
	fail "report bitnet + vllm charts"
"$PNGCHECK" "$T/bvc/inference.png" 1600 1200 >/dev/null ||
	fail "$("$PNGCHECK" "$T/bvc/inference.png" 1600 1200)"
mkdir -p "$T/pc" && cp "$T/vc/inference.png" "$T/pc/"
"$REPORT" --db "$T/p.db" $W --format json --output-dir "$T/pc" >"$T/pc.out" 2>&1 ||
	fail "report prom charts"
[ ! -e "$T/pc/inference.png" ] || fail "inference.png without tokens/s or TTFT samples"
grep -q 'inference.png' "$T/pc.out" "$T/pc/index.html" && fail "inference.png listed without data"
[ -s "$T/pc/gpu_telemetry.png" ] || fail "the other charts are written"
echo "ok"
