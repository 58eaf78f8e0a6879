# The messages of rows at WARN and above are read from the index events_warn
# (schema 12), beside events_ts, block by block (issue 34): the report is
# the same as when each is read from its row by id (a database without the
# index, as schema 11 had), and its message shapes are counted as the log
# holds them. A database of schema 11 is migrated to 12 with the index.
. tests/cli/lib.sh

# 40,000 records over 11 hours, in runs of 4 of one time (a run of equal
# times is put in id order by the reader, and a block ends only where the
# time changes); every 7th a WARN, every 11th an ERROR (else), every 13th a
# CRITICAL (else); the others INFO kernel timings. Each message of WARN and
# above holds its record's number, so a message read for the wrong row
# would be counted under another shape or sample.
mkdir -p $T/logs
awk 'BEGIN {
	for (i = 0; i < 40000; i++) {
		t = int(i / 4); s = t % 60; m = int(t / 60) % 60; h = int(t / 3600);
		ts = sprintf("2025-11-16T%02d:%02d:%02d.%06dZ", h, m, s, t % 1000);
		if (i % 7 == 0)
			printf("{\"timestamp\": \"%s\", \"level\": \"WARNING\", \"component\": \"gpu\", \"message\": \"slow step %d on rank %d\"}\n", ts, i, i % 8);
		else if (i % 11 == 0)
			printf("{\"timestamp\": \"%s\", \"level\": \"ERROR\", \"component\": \"gpu\", \"message\": \"CUDA error: out of memory (tried to allocate %d.5MB on cuda:%d)\"}\n", ts, i, i % 4);
		else if (i % 13 == 0)
			printf("{\"timestamp\": \"%s\", \"level\": \"CRITICAL\", \"component\": \"gpu\", \"message\": \"Xid %d on GPU %d\"}\n", ts, i, i % 4);
		else
			printf("{\"timestamp\": \"%s\", \"level\": \"INFO\", \"component\": \"gpu\", \"message\": \"step %d\", \"gpu_metrics\": {\"kernel_name\": \"k%d\", \"execution_time_us\": %d.5}}\n", ts, i, i % 5, 100 + i % 37);
	}
}' > $T/logs/gpu.log
ingest $T/new.db $T/logs || fail "ingest"
expect_eq "schema" 12 "$(q $T/new.db 'pragma user_version')"
expect_eq "the index" 1 "$(q $T/new.db "select count(*) from sqlite_schema where name = 'events_warn'")"

# A schema-11 database of the same rows: without the index.
cp $T/new.db $T/v11.db
q $T/v11.db 'DROP INDEX events_warn; PRAGMA user_version = 11;' || fail "make v11"

report() { "$REPORT" --db "$1" --until 2025-11-17 --days 1 --format json --top 50 \
	--output-dir "$2" > /dev/null || fail "report $1"; }
report $T/new.db $T/r-new
report $T/v11.db $T/r-v11
cmp -s $T/r-new/report.json $T/r-v11/report.json ||
	fail "report with events_warn differs from the one reading messages by id"

# The shapes, counted here from the generator's rules: WARN i % 7 == 0;
# ERROR i % 7 != 0 and i % 11 == 0; CRITICAL neither and i % 13 == 0.
counts=$(awk 'BEGIN { for (i = 0; i < 40000; i++) if (i % 7 == 0) w++; else if (i % 11 == 0) e++;
	else if (i % 13 == 0) c++; print w, e, c }')
python3 - "$T/r-new/report.json" $counts <<'PY' || fail "message shapes"
import json, sys
r = json.load(open(sys.argv[1]))["errors"]
w, e, c = (int(x) for x in sys.argv[2:5])
got = {(m["level"], m["shape"]): m for m in r["top_messages"]}
want = {("WARN", "slow step <num> on rank <num>"): w,
        ("ERROR", "CUDA error: out of memory (tried to allocate <size> on cuda:<num>)"): e,
        ("CRITICAL", "Xid <num> on GPU <num>"): c}
for k, n in want.items():
    assert k in got, ("missing shape", k, sorted(got))
    assert got[k]["count"] == n, (k, got[k]["count"], n)
assert r["shapes"] == 3, r["shapes"]
# each sample is the first record of its shape: record 0 (WARN), 11 (ERROR), 13 (CRITICAL)
assert got[("WARN", "slow step <num> on rank <num>")]["sample"] == "slow step 0 on rank 0"
assert got[("ERROR", "CUDA error: out of memory (tried to allocate <size> on cuda:<num>)")]["sample"] == \
    "CUDA error: out of memory (tried to allocate 11.5MB on cuda:3)"
assert got[("CRITICAL", "Xid <num> on GPU <num>")]["sample"] == "Xid 13 on GPU 1"
PY

# Times that are no integer (SQL allows them; gpulog writes none): the
# first ERROR's is found in its block by its integer part; the last one's
# (record 39996, the last time of the log) lies past its block's last time,
# not found in the index's range, and its message is read by id. The report
# is the same as the one reading every message by id.
for d in new v11; do
	q $T/$d.db "UPDATE events SET ts_us = ts_us + 0.25 WHERE id = (SELECT min(id) FROM events WHERE level = 5);
		UPDATE events SET ts_us = ts_us + 0.5 WHERE id = (SELECT max(id) FROM events WHERE level = 5)"
done
expect_eq "last ERROR" "CUDA error: out of memory (tried to allocate 39996.5MB on cuda:0)" \
	"$(q $T/new.db 'SELECT message FROM events WHERE level = 5 ORDER BY ts_us DESC LIMIT 1')"
report $T/new.db $T/r-new2
report $T/v11.db $T/r-v11b
cmp -s $T/r-new2/report.json $T/r-v11b/report.json || fail "a REAL time: reports differ"

# The schema-11 database is migrated to 12, the index made; the report is unchanged.
mkdir -p $T/none
"$INGEST" --db $T/v11.db $T/none 2> $T/err || fail "migrate v11: $(cat $T/err)"
grep -q "from schema 11 to 12" $T/err || fail "migration notice: $(cat $T/err)"
expect_eq "migrated index" \
	"$(q $T/new.db "select sql from sqlite_schema where name = 'events_warn'")" \
	"$(q $T/v11.db "select sql from sqlite_schema where name = 'events_warn'")"
report $T/v11.db $T/r-mig
cmp -s $T/r-mig/report.json $T/r-new2/report.json || fail "report after the migration differs"
exit 0
