# A database of schema version 6 is migrated (to 7, then 8): the index events_ts,
# (ts_us, rec_hash) in version 6, also holds dup_of and packed, and
# gpulog-report then reads a window's events from the index alone (the
# text of the rows that use it from the table, by id). No row changes; the
# ingest says it migrates, once; the result is shaped like a fresh
# database. gpulog-report over the version-6 file (events_ts, then each
# row's packing from the table) and over the migrated one (the index
# alone) writes the same report files, charts included: the two ways of
# reading compared over the sample logs and, when ../shared/realdata
# exists, all of the real samples, over the whole span and over its last
# day. A second run over the migrated database stores nothing new.
. tests/cli/lib.sh

check_tree() {
	name=$1 tree=$2
	fresh=$T/$name-fresh.db db=$T/$name-v6.db
	"$INGEST" -q --db $fresh "$tree" || fail "$name: ingest"
	make_old 6 $fresh $db
	expect_eq "$name: version 6's index" "ts_us,rec_hash" \
		"$(q $db "select group_concat(name) from pragma_index_info('events_ts')")"
	q $db "select * from events order by id" > $T/$name.rows6
	span=$(q $db "select max(ts_us) / 1000000 + 1 from events")
	until=$(date -u -d "@$span" +%Y-%m-%dT%H:%M:%SZ)
	for days in 3650 1; do
		"$REPORT" --db $db --until "$until" --days $days --format json \
			--output-dir $T/$name-r6-$days >/dev/null ||
			fail "$name: report over the version-6 database"
	done

	"$INGEST" --db $db "$tree" 2>$T/$name.err || fail "$name: ingest into the version-6 database"
	grep -q "^gpulog-ingest: migrating database '$db': from schema 6 to 12" $T/$name.err ||
		fail "$name: the migration is not announced: $(head -3 $T/$name.err)"
	grep -q "^gpulog-ingest: 0 lines stored" $T/$name.err || fail "$name: the run stored rows: $(cat $T/$name.err)"
	"$INGEST" --db $db "$tree" 2>$T/$name.err2 || fail "$name: ingest again"
	grep -q "migrating" $T/$name.err2 && fail "$name: a migrated database is announced again"
	expect_eq "$name: user_version" 12 "$(q $db 'pragma user_version')"
	expect_eq "$name: version 7's index" "ts_us,rec_hash,dup_of,packed" \
		"$(q $db "select group_concat(name) from pragma_index_info('events_ts')")"
	# every column version 6 had (8 adds events.kind: t_ingest_migrate8.sh)
	q $db "select $(q $db "select group_concat(name) from pragma_table_info('events')
		where name <> 'kind'") from events order by id" > $T/$name.rows7
	[ -s $T/$name.rows7 ] || fail "$name: no events"
	cmp -s $T/$name.rows6 $T/$name.rows7 ||
		fail "$name: rows changed: $(diff $T/$name.rows6 $T/$name.rows7 | head -5)"
	expect_eq "$name: the index agrees with the table" ok "$(q $db 'pragma integrity_check')"
	for days in 3650 1; do
		"$REPORT" --db $db --until "$until" --days $days --format json \
			--output-dir $T/$name-r7-$days >/dev/null ||
			fail "$name: report over the migrated database"
		[ -s $T/$name-r7-$days/report.json ] || fail "$name: no report"
		diff -r $T/$name-r6-$days $T/$name-r7-$days >/dev/null ||
			fail "$name: the report over $days days differs after the migration: $(diff -r $T/$name-r6-$days $T/$name-r7-$days | head -5)"
	done
	db_shape $db > $T/$name.shape7
	db_shape $fresh > $T/$name.shape
	diff $T/$name.shape $T/$name.shape7 || fail "$name: migrated schema differs from a fresh one"
}

check_tree sample fixtures/sample-logs
if [ -d "$REALDATA" ]; then
	check_tree real "$REALDATA"
else
	echo "skipped the real samples: $REALDATA not found"
fi
exit 0
