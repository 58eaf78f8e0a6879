#!/bin/sh
# A Prometheus histogram trended by its quantiles per scrape interval
# (histogram_quantile over the buckets' increases), never as raw _bucket,
# _count or _sum values. Six scrapes a minute apart; the observations of
# each interval, per bucket (0,0.1] (0.1,0.5] (0.5,1] (1,+Inf):
#   0-1 min: 80 20 0 0    p50 0.1*50/80 = 0.0625   p95 0.1+0.4*15/20 = 0.4
#   1-2 min: none (the same counts scraped again): no point
#   2-3 min: 50 50 0 0    p50 0.1                  p95 0.1+0.4*45/50 = 0.46
#   3-4 min: the server restarted, 20 60 20 0 since: p50 0.1+0.4*30/60 = 0.3,
#            p95 0.5+0.5*15/20 = 0.875
#   4-5 min: 10 30 60 0   p50 0.5+0.5*10/60        p95 0.5+0.5*55/60
# The slope of each line is checked against a least-squares fit of these
# points, in days, computed here.
. tests/cli/lib.sh

mkdir -p "$T/prom"
python3 - "$T/prom/metrics.prom" <<'PY'
import sys
t0 = 1735689600000
scrapes = [(10, 10, 10, 10), (90, 110, 110, 110), (90, 110, 110, 110),
           (140, 210, 210, 210), (20, 80, 100, 100), (30, 120, 200, 200)]
with open(sys.argv[1], "w") as f:
    f.write("# TYPE ttft_seconds histogram\n")
    for k, cum in enumerate(scrapes):
        for le, c in zip(("0.1", "0.5", "1", "+Inf"), cum):
            f.write('ttft_seconds_bucket{model="m",le="%s"} %d %d\n' % (le, c, t0 + k * 60000))
        f.write('ttft_seconds_count{model="m"} %d %d\n' % (cum[-1], t0 + k * 60000))
        f.write('ttft_seconds_sum{model="m"} %.1f %d\n' % (cum[-1] * 0.3, t0 + k * 60000))
PY
ingest "$T/db" "$T/prom" || fail "ingest"
"$REPORT" --db "$T/db" --since 2025-01-01 --until 2025-01-02 --format json --no-charts --output-dir "$T/r" >/dev/null 2>&1 || fail "report"
python3 - "$T/r/report.json" <<'PY' || fail "histogram quantile trends"
import json, sys
r = json.load(open(sys.argv[1]))
tr = {t["kernel"]: t for t in r["trends"] if t["kernel"]}
x = [m / 1440 for m in (1, 3, 4, 5)]          # the intervals' ends, in days
want = {"p50": [0.0625, 0.1, 0.3, 0.5 + 0.5 * 10 / 60],
        "p95": [0.4, 0.46, 0.875, 0.5 + 0.5 * 55 / 60]}
bad = []
for q, y in want.items():
    name = 'ttft_seconds {"model":"m"} ' + q
    t = tr.get(name)
    if not t:
        bad.append("no trend %r among %r" % (name, sorted(tr)))
        continue
    mx, my = sum(x) / 4, sum(y) / 4
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
    if t["n"] != 4 or t["unit"] != "s" or abs(t["slope_per_day"] - slope) > 1e-9 * abs(slope):
        bad.append("%s: n %r unit %r slope_per_day %r, expected 4 s %r"
                   % (q, t["n"], t["unit"], t["slope_per_day"], slope))
raw = [k for k in tr if k.startswith("ttft_seconds") and not k.endswith((" p50", " p95"))]
if raw:
    bad.append("raw histogram parts trended: %r" % raw)
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY
exit 0
