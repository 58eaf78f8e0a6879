# A database of schema version 9 has no table operations: the operation
# timings (a record "Operation X completed in 2.38ms", or one with an
# execution time and metadata.operation) are found in the text at report
# time; since 10 the ingest stores them. The version-9 file here is a fresh
# ingest's rows in the tables of schema 9 (fixtures/schema-v9.sql).
# gpulog-report over it (read without migrating: the operations found in the
# text), over it migrated and over the fresh one writes the same files; the
# migration gives each event the operations row the fresh ingest gave it.
# Over the sample logs and, when ../shared/realdata exists, all of the real
# samples. The sample logs' count is checked against the log lines
# themselves: each "Operation X completed in" line without a kernel is one.
. tests/cli/lib.sh

check_tree() {
	name=$1 tree=$2
	fresh=$T/$name-fresh.db db=$T/$name-v9.db
	"$INGEST" -q --db $fresh "$tree" || fail "$name: ingest"
	make_old 9 $fresh $db
	expect_eq "$name: the version-9 file has no operations" 0 \
		"$(q $db "select count(*) from sqlite_master where name = 'operations'")"
	span=$(q $fresh "select max(ts_us) / 1000000 + 1 from events")
	until=$(date -u -d "@$span" +%Y-%m-%dT%H:%M:%SZ)
	for v in fresh v9; do
		eval "d=\$$(echo $v | sed 's/v9/db/')"
		"$REPORT" --db $d --until "$until" --days 3650 --format json \
			--output-dir $T/$name-r-$v >/dev/null || fail "$name: report over the $v database"
	done
	"$INGEST" --db $db "$tree" 2>$T/$name.err || fail "$name: ingest into the version-9 database"
	grep -q "^gpulog-ingest: migrating database '$db': from schema 9 to 12" $T/$name.err ||
		fail "$name: the migration is not announced: $(head -3 $T/$name.err)"
	grep -q "^gpulog-ingest: 0 lines stored" $T/$name.err || fail "$name: the run stored rows: $(cat $T/$name.err)"
	expect_eq "$name: user_version" 12 "$(q $db 'pragma user_version')"
	ops="select o.event_id, n.name, o.ms, o.throughput from operations o
		left join names n on n.id = o.name_id order by o.event_id"
	q $fresh "$ops" > $T/$name.fresh-ops
	q $db "$ops" > $T/$name.migrated-ops
	cmp -s $T/$name.fresh-ops $T/$name.migrated-ops ||
		fail "$name: the operations the migration wrote: $(diff $T/$name.fresh-ops $T/$name.migrated-ops | head -5)"
	"$REPORT" --db $db --until "$until" --days 3650 --format json \
		--output-dir $T/$name-r-migrated >/dev/null || fail "$name: report over the migrated database"
	[ -s $T/$name-r-fresh/report.json ] || fail "$name: no report"
	for v in v9 migrated; do
		diff -r $T/$name-r-fresh $T/$name-r-$v >/dev/null ||
			fail "$name: the report over the $v database differs: $(diff -r $T/$name-r-fresh $T/$name-r-$v | head -5)"
	done
	db_shape $db > $T/$name.shape10
	db_shape $fresh > $T/$name.shape
	diff $T/$name.shape $T/$name.shape10 || fail "$name: migrated schema differs from a fresh one"
}

check_tree sample fixtures/sample-logs
# the sample logs' operations, counted in the files: each line whose message
# is "Operation X completed in <time>" (JSON lines and text lines), and each
# JSON line with an execution_time_ms and no kernel
want=$(cat $(find fixtures/sample-logs -type f ! -name '*.gz') |
	grep -a -v '"kernel_name"' | grep -a -v 'Kernel .* executed in' |
	grep -a -c -E 'Operation [^ ]+ completed in [0-9.]+ ?(ms|s|us|ns)\b|"execution_time_ms": *[-0-9]')
expect_eq "sample: operations stored" "$want" "$(q $T/sample-fresh.db 'select count(*) from operations')"
[ "$want" -gt 0 ] || fail "sample: the sample logs hold no operation timing"
if [ -d "$REALDATA" ]; then
	check_tree real "$REALDATA"
else
	echo "skipped the real samples: $REALDATA not found"
fi
exit 0
