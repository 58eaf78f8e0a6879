# A database of schema version 4 is migrated to 5: the index
# events_kernel_ts (kernel_id, ts_us) goes, no row changes, and the result
# is shaped like a fresh database. Version 4 was version 5 plus that index,
# so the version-4 database is a version-5 one (make_v5) with the index put
# back (its definition as version 4's schema.sql had it). gpulog-report reads the
# version-4 file as it is (it never migrates) and the migrated one to the
# same bytes.
. tests/cli/lib.sh

mkdir -p $T/logs
cp fixtures/sample-logs/gpu.log $T/logs/ 2>/dev/null ||
	cp "$(find fixtures/sample-logs -name '*.log' | head -n 1)" $T/logs/
touch -d '1 hour ago' $T/logs/*
db=$T/v4.db
"$INGEST" -q --db $T/new.db $T/logs || fail "ingest"
make_v5 $T/new.db $db
sqlite3 $db "CREATE INDEX events_kernel_ts ON events (kernel_id, ts_us) WHERE kernel_id IS NOT NULL;
	PRAGMA user_version = 4;" || fail "cannot make the version-4 database"
expect_eq "kernel timings" 1 "$(q $db 'select count(*) > 10 from events where kernel_id is not null')"
# the columns of version 4 (the migration to 6 adds events.packed)
evcols=$(q $db "select group_concat(name, ', ') from pragma_table_info('events')")
rows() {
	q $1 "select $evcols from events order by id"
	q $1 "select id, series_id, t0_us, t1_us, n, ts_estimated, stream_id, line0, line1, file_id,
		path_id, data from sample_blocks order by id"
	q $1 "select * from mem_events order by id"
}
rows $db > $T/rows.before
span=$(q $db "select max(ts_us) / 1000000 + 1 from events")
until=$(date -u -d "@$span" +%Y-%m-%dT%H:%M:%SZ)
"$REPORT" --db $db --until "$until" --days 1 --format json --no-charts --output-dir $T/r4 >/dev/null ||
	fail "report over the version-4 database"
# the baseline (the preceding day) has kernel timings: they were read through the index before
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["baseline"]["samples"] == 0)' \
	$T/r4/report.json || fail "the baseline window holds no kernel timing"

"$INGEST" -q --db $db $T/logs || fail "ingest into the version-4 database"
expect_eq "user_version" 12 "$(q $db 'pragma user_version')"
expect_eq "index gone" 0 "$(q $db "select count(*) from sqlite_master where name = 'events_kernel_ts'")"
rows $db > $T/rows.after
cmp -s $T/rows.before $T/rows.after || fail "rows changed: $(diff $T/rows.before $T/rows.after | head -5)"
"$REPORT" --db $db --until "$until" --days 1 --format json --no-charts --output-dir $T/r5 >/dev/null ||
	fail "report over the migrated database"
cmp -s $T/r4/report.json $T/r5/report.json || fail "report differs after the migration"

# Same tables, columns, indexes and views as a fresh database.
"$INGEST" -q --db $T/fresh.db $T/logs || fail "fresh ingest"
db_shape $db > $T/old.shape
db_shape $T/fresh.db > $T/fresh.shape
diff $T/fresh.shape $T/old.shape || fail "migrated schema differs from a fresh one"
exit 0
