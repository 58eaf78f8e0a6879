# A database of schema version 5 is migrated (to 6, then 7 and 8): events gets the column
# packed, made of each row's stored columns by gl_ev_pack() (what
# gpulog-report reads of them), and the trigger that clears it. The packing
# the migration makes equals the one gpulog-ingest writes with each row
# (lib/store/store.c, pack_event: a second, independent way to the same
# bytes); no other value changes; the ingest says it migrates, once; gpulog-report reads the version-5 file
# (its columns) and the migrated one (packed) to the same report files,
# charts included; the result is shaped like a fresh database. Over the
# sample logs, and over the real samples when ../shared/realdata exists.
. tests/cli/lib.sh

check_tree() {
	name=$1 tree=$2
	fresh=$T/$name-fresh.db db=$T/$name-v5.db
	"$INGEST" -q --db $fresh "$tree" || fail "$name: ingest"
	make_v5 $fresh $db
	expect_eq "$name: no packed column in version 5" 0 \
		"$(q $db "select count(*) from pragma_table_info('events') where name = 'packed'")"
	evcols=$(q $db "select group_concat(name, ', ') from pragma_table_info('events')")
	q $db "select $evcols from events order by id" > $T/$name.rows5
	span=$(q $db "select max(ts_us) / 1000000 + 1 from events")
	until=$(date -u -d "@$span" +%Y-%m-%dT%H:%M:%SZ)
	"$REPORT" --db $db --until "$until" --days 3650 --format json --output-dir $T/$name-r5 \
		>/dev/null || fail "$name: report over the version-5 database"

	"$INGEST" --db $db "$tree" 2>$T/$name.err || fail "$name: ingest into the version-5 database"
	grep -q "^gpulog-ingest: migrating database '$db': from schema 5 to 12" $T/$name.err ||
		fail "$name: the migration is not announced: $(head -3 $T/$name.err)"
	"$INGEST" --db $db "$tree" 2>$T/$name.err2 || fail "$name: ingest again"
	grep -q "migrating" $T/$name.err2 && fail "$name: a migrated database is announced again"
	expect_eq "$name: user_version" 12 "$(q $db 'pragma user_version')"
	expect_eq "$name: every row packed" 0 "$(q $db 'select count(*) from events where packed is null')"
	q $db "select $evcols from events order by id" > $T/$name.rows6
	cmp -s $T/$name.rows5 $T/$name.rows6 ||
		fail "$name: rows changed: $(diff $T/$name.rows5 $T/$name.rows6 | head -5)"
	q $fresh "select id, hex(packed) from events order by id" > $T/$name.ingest
	q $db "select id, hex(packed) from events order by id" > $T/$name.migrated
	[ -s $T/$name.ingest ] || fail "$name: no events"
	cmp -s $T/$name.ingest $T/$name.migrated ||
		fail "$name: the migration packs otherwise than the ingest: $(diff $T/$name.ingest $T/$name.migrated | head -4)"
	"$REPORT" --db $db --until "$until" --days 3650 --format json --output-dir $T/$name-r6 \
		>/dev/null || fail "$name: report over the migrated database"
	[ -s $T/$name-r6/report.json ] || fail "$name: no report"
	diff -r $T/$name-r5 $T/$name-r6 >/dev/null || fail "$name: the report differs after the migration"
	# Same tables, columns, indexes, views and triggers as a fresh database.
	db_shape $db > $T/$name.shape6
	db_shape $fresh > $T/$name.shape
	diff $T/$name.shape $T/$name.shape6 || fail "$name: migrated schema differs from a fresh one"
}

check_tree sample fixtures/sample-logs
expect_eq "the trigger is in the shape" 1 \
	"$(grep -c '^trigger|events_packed_stale$' $T/sample.shape)"
if [ -d "$REALDATA" ]; then
	check_tree real "$REALDATA"
else
	echo "skipped the real samples: $REALDATA not found"
fi
exit 0
