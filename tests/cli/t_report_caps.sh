# The report's lists are capped at --top, with totals (issue 28): a gpufl
# scope file of 30 distinct scopes (scope i lasts i + 1 ms) reported with
# --top 5 lists the 5 longest scopes in JSON, CSV and HTML, one trend for
# each listed scope, and summary.scopes_total 30.
. tests/cli/lib.sh
command -v python3 >/dev/null 2>&1 || skip "skipped: python3 absent"
mkdir -p $T/logs
python3 -c '
for i in range(30):
    t = 1763000000000000000 + i * 100000000
    for ty, ts in (("scope_begin", t), ("scope_end", t + (i + 1) * 1000000)):
        print("{\"type\":\"%s\",\"pid\":7,\"app\":\"a\",\"name\":\"s%d\",\"tag\":\"\",\"ts_ns\":%d}" % (ty, i, ts))' \
	> $T/logs/gpufl_a.scope.log
touch -d '1 hour ago' $T/logs/gpufl_a.scope.log
ingest $T/db $T/logs || fail "ingest"
expect_eq "spans" 30 "$(q $T/db 'select count(*) from spans')"
"$REPORT" --db $T/db --until 2025-11-14 --days 2 --top 5 --format json --output-dir $T/out >/dev/null 2>&1
rc=$?
[ $rc -le 3 ] || fail "report json: status $rc"
"$REPORT" --db $T/db --until 2025-11-14 --days 2 --top 5 --format csv --no-charts --output-dir $T/csv >/dev/null 2>&1
python3 - $T/out/report.json > $T/got <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["summary"]["scopes_total"])
print(" ".join(r["scope"] for r in d["scopes"]))
print(sum(1 for t in d["trends"] if t["series"] == "scope"))
PY
# the 5 longest: s29 (30 ms) .. s25 (26 ms)
expect_eq "json: total, listed, trends" "30
s29 s28 s27 s26 s25
5" "$(cat $T/got)"
expect_eq "csv rows" 6 "$(wc -l < $T/csv/scopes.csv | tr -d ' ')"
expect_eq "csv summary" "scopes_total,,30" "$(grep '^scopes_total' $T/csv/summary.csv | tr -d '\r')"
expect_eq "html rows" 5 "$(grep -c '<tr><td class="k">s[0-9]' $T/out/index.html)"
grep -q "25 more scopes (30 in all)" $T/out/index.html || fail "html: no total"

# Metric series are listed at --top-series, the most relevant first, with
# totals: 10 scrapes of 12 GPUs x 2 DCGM fields (gpu.temperature_c,
# gpu.power_w) and 4 node_load1 series without a device: 28 series. Only
# GPU 11's temperature changes (40, 44, ... 76: a degrading trend). With
# --top-series 10: that series first, then the gpu.* series of a device in
# the table's order (device, then metric name): GPUs 0-3 both, GPU 4's
# power. Trends: the 28 series' and memory's and errors' (30), of which the
# listed series' 10 and the 2 others are listed. Without the option every
# series is listed (default 500).
mkdir -p $T/prom
python3 -c '
for k in range(10):
    ts = (1763000000 + 60 * k) * 1000
    with open("'$T'/prom/s%02d.prom" % k, "w") as f:
        for g in range(12):
            temp = 40 + 4 * k if g == 11 else 50
            f.write("DCGM_FI_DEV_GPU_TEMP{gpu=\"%d\",UUID=\"GPU-%d\"} %d %d\n" % (g, g, temp, ts))
            f.write("DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\"} 200 %d\n" % (g, g, ts))
        for c in range(4):
            f.write("node_load1{cpu=\"%d\"} 1.5 %d\n" % (c, ts))'
touch -d '1 hour ago' $T/prom/*
ingest $T/pdb $T/prom || fail "ingest of the scrapes"
expect_eq "samples" 280 "$(q $T/pdb 'select count(*) from v_samples')"
"$REPORT" --db $T/pdb --until 2025-11-14 --days 2 --top-series 10 --format json \
	--output-dir $T/pout >/dev/null 2>&1
rc=$?
[ $rc -le 3 ] || fail "report json --top-series 10: status $rc"
"$REPORT" --db $T/pdb --until 2025-11-14 --days 2 --top-series 10 --format csv --no-charts \
	--output-dir $T/pcsv >/dev/null 2>&1
"$REPORT" --db $T/pdb --until 2025-11-14 --days 2 --format json --output-dir $T/pall >/dev/null 2>&1
cat > $T/series.py <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
print(s["series_total"], s["series_listed"], s["trends_total"], s["trends_listed"])
print(" ".join("%s/%s" % (m["metric"][4:9], m["device"]) for m in d["metrics"]))
print(len(d["trends"]), sum(1 for t in d["trends"] if t["series"] == "metric"))
PY
expect_eq "series: totals, listed, trends" "28 10 30 12
power/0 tempe/0 power/1 tempe/1 power/2 tempe/2 power/3 tempe/3 power/4 tempe/11
12 10" "$(python3 $T/series.py $T/pout/report.json)"
expect_eq "csv metrics rows" 11 "$(wc -l < $T/pcsv/metrics.csv | tr -d ' ')"
expect_eq "csv trends rows" 13 "$(wc -l < $T/pcsv/trends.csv | tr -d ' ')"
expect_eq "csv summary" "series_total,,28" "$(grep '^series_total' $T/pcsv/summary.csv | tr -d '\r')"
grep -q "10 of 28 series listed" $T/pout/index.html || fail "html: no series total"
grep -q "12 of 30 trends listed" $T/pout/index.html || fail "html: no trends total"
expect_eq "html metric rows" 10 "$(grep -c '<tr><td class="k">gpu\.' $T/pout/index.html)"
expect_eq "default: every series listed" "28 28 30 30" \
	"$(python3 $T/series.py $T/pall/report.json | head -n 1)"
exit 0
