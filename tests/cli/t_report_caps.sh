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
exit 0
