# A database of schema version 8 holds a trainer's step, a driver's Xid and
# a GPU of nvidia-smi -q as records of kind 0, their facts in the metadata
# only; since 9 each has its kind (5, 6, 7). The version-8 file here is a
# fresh ingest's rows with those kinds set back to 0 and event_kinds
# without them, as the gpulog of schema 8 wrote it. gpulog-report over it
# (read without migrating), over it migrated and over the fresh one writes
# the same files, charts included; the migration gives each row the kind
# the fresh ingest gave it, and event_kinds the same kinds. Over the sample
# logs and, when ../shared/realdata exists, all of the real samples.
. tests/cli/lib.sh

check_tree() {
	name=$1 tree=$2
	fresh=$T/$name-fresh.db db=$T/$name-v8.db
	"$INGEST" -q --db $fresh "$tree" || fail "$name: ingest"
	make_old 8 $fresh $db
	q $db "update events set kind = 0 where kind in (5, 6, 7);
		delete from event_kinds where kind in (5, 6, 7)" || fail "$name: cannot make the v8 kinds"
	expect_eq "$name: the version-8 file's kinds of fact" 0 \
		"$(q $db "select count(*) from events where kind >= 5")"
	span=$(q $fresh "select max(ts_us) / 1000000 + 1 from events")
	until=$(date -u -d "@$span" +%Y-%m-%dT%H:%M:%SZ)
	for v in fresh v8; do
		eval "d=\$$(echo $v | sed 's/v8/db/')"
		"$REPORT" --db $d --until "$until" --days 3650 --format json \
			--output-dir $T/$name-r-$v >/dev/null || fail "$name: report over the $v database"
	done
	"$INGEST" --db $db "$tree" 2>$T/$name.err || fail "$name: ingest into the version-8 database"
	grep -q "^gpulog-ingest: migrating database '$db': from schema 8 to 12" $T/$name.err ||
		fail "$name: the migration is not announced: $(head -3 $T/$name.err)"
	grep -q "^gpulog-ingest: 0 lines stored" $T/$name.err || fail "$name: the run stored rows: $(cat $T/$name.err)"
	expect_eq "$name: user_version" 12 "$(q $db 'pragma user_version')"
	q $fresh "select id, kind from events order by id" > $T/$name.fresh-kinds
	q $db "select id, kind from events order by id" > $T/$name.migrated-kinds
	cmp -s $T/$name.fresh-kinds $T/$name.migrated-kinds ||
		fail "$name: the kinds the migration wrote: $(diff $T/$name.fresh-kinds $T/$name.migrated-kinds | head -5)"
	expect_eq "$name: event_kinds after the migration" \
		"$(q $fresh "select group_concat(kind) from event_kinds")" \
		"$(q $db "select group_concat(kind) from event_kinds")"
	"$REPORT" --db $db --until "$until" --days 3650 --format json \
		--output-dir $T/$name-r-migrated >/dev/null || fail "$name: report over the migrated database"
	[ -s $T/$name-r-fresh/report.json ] || fail "$name: no report"
	for v in v8 migrated; do
		diff -r $T/$name-r-fresh $T/$name-r-$v >/dev/null ||
			fail "$name: the report over the $v database differs: $(diff -r $T/$name-r-fresh $T/$name-r-$v | head -5)"
	done
	db_shape $db > $T/$name.shape9
	db_shape $fresh > $T/$name.shape
	diff $T/$name.shape $T/$name.shape9 || fail "$name: migrated schema differs from a fresh one"
}

check_tree sample fixtures/sample-logs
# the sample logs hold each kind of fact: Xids, trainer's steps, nvidia-smi -q GPUs
for k in 5 6 7; do
	expect_eq "sample: rows of kind $k" 1 "$(q $T/sample-fresh.db "select count(*) > 0 from events where kind = $k")"
done
# the report reads them: a run of the training section, an Xid of GPU
# health and a GPU of devices (fixtures/sample-logs/node)
for key in '"run": "node/eval"' '"code": 79' '"name": "NVIDIA H100 80GB HBM3"'; do
	grep -q "$key" $T/sample-r-fresh/report.json || fail "sample: no $key in the report"
done
if [ -d "$REALDATA" ]; then
	check_tree real "$REALDATA"
else
	echo "skipped the real samples: $REALDATA not found"
fi
exit 0
