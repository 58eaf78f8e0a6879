# A database of schema version 7 (no events.kind, no event_kinds) is
# migrated to 8 and 9: each row gets the kind its parser gives it today, and
# event_kinds lists the kinds present, as a fresh ingest of the same tree
# writes them. The kinds expected are computed here another way: from each
# row's stream format and text with SQLite's own json_type and GLOB (the
# parsers use jansson and a matcher of their own). gpulog-report over the
# version-7 file (which it reads without migrating), over the migrated
# one and over the fresh one writes the same files, charts included: over
# the sample logs and, when ../shared/realdata exists, all of the real
# samples.
. tests/cli/lib.sh

# kinds DB: "id kind" per event, as the formats say (see lib/record/record.h)
expected_kinds() {
	q $1 "select e.id, case
		when e.source is not null then 1
		when s.format = 'jsondoc' and json_valid(e.metadata)
		     and json_type(e.metadata, '\$.severity') = 'text' then 2
		when s.format = 'vllm' and e.message glob '*\"POST /v1/* HTTP/*\" [45][0-9][0-9]*' then 4
		when s.format = 'vllm' and e.message glob '*\"POST /v1/* HTTP/*\" [1-5][0-9][0-9]*' then 3
		when s.format = 'text' and json_valid(e.metadata)
		     and json_type(e.metadata, '\$.xid') is not null then 6
		when s.format in ('text', 'trainstate', 'lightning') and json_valid(e.metadata)
		     and json_type(e.metadata, '\$.train') is not null then 5
		when s.format = 'nvsmiq' and json_valid(e.metadata)
		     and json_type(e.metadata, '\$.inventory') is not null then 7
		else 0 end
		from events e join streams s on s.id = e.stream_id order by e.id"
}

check_tree() {
	name=$1 tree=$2
	fresh=$T/$name-fresh.db db=$T/$name-v7.db
	"$INGEST" -q --db $fresh "$tree" || fail "$name: ingest"
	expected_kinds $fresh > $T/$name.expected
	q $fresh "select id, kind from events order by id" > $T/$name.fresh-kinds
	[ -s $T/$name.expected ] || fail "$name: no events"
	cmp -s $T/$name.expected $T/$name.fresh-kinds ||
		fail "$name: the kinds ingest wrote: $(diff $T/$name.expected $T/$name.fresh-kinds | head -5)"
	expect_eq "$name: event_kinds of a fresh ingest" \
		"$(q $fresh "select group_concat(kind) from (select distinct kind from events order by 1)")" \
		"$(q $fresh "select group_concat(kind) from event_kinds")"
	make_old 7 $fresh $db
	span=$(q $db "select max(ts_us) / 1000000 + 1 from events")
	until=$(date -u -d "@$span" +%Y-%m-%dT%H:%M:%SZ)
	for v in fresh v7; do
		eval "d=\$$(echo $v | sed 's/v7/db/')"
		"$REPORT" --db $d --until "$until" --days 3650 --format json \
			--output-dir $T/$name-r-$v >/dev/null || fail "$name: report over the $v database"
	done
	"$INGEST" --db $db "$tree" 2>$T/$name.err || fail "$name: ingest into the version-7 database"
	grep -q "^gpulog-ingest: migrating database '$db': from schema 7 to 12" $T/$name.err ||
		fail "$name: the migration is not announced: $(head -3 $T/$name.err)"
	grep -q "^gpulog-ingest: 0 lines stored" $T/$name.err || fail "$name: the run stored rows: $(cat $T/$name.err)"
	expect_eq "$name: user_version" 12 "$(q $db 'pragma user_version')"
	q $db "select id, kind from events order by id" > $T/$name.migrated-kinds
	cmp -s $T/$name.expected $T/$name.migrated-kinds ||
		fail "$name: the kinds the migration wrote: $(diff $T/$name.expected $T/$name.migrated-kinds | head -5)"
	expect_eq "$name: event_kinds after the migration" \
		"$(q $fresh "select group_concat(kind) from event_kinds")" \
		"$(q $db "select group_concat(kind) from event_kinds")"
	"$REPORT" --db $db --until "$until" --days 3650 --format json \
		--output-dir $T/$name-r-migrated >/dev/null || fail "$name: report over the migrated database"
	[ -s $T/$name-r-fresh/report.json ] || fail "$name: no report"
	for v in v7 migrated; do
		diff -r $T/$name-r-fresh $T/$name-r-$v >/dev/null ||
			fail "$name: the report over the $v database differs: $(diff -r $T/$name-r-fresh $T/$name-r-$v | head -5)"
	done
	db_shape $db > $T/$name.shape8
	db_shape $fresh > $T/$name.shape
	diff $T/$name.shape $T/$name.shape8 || fail "$name: migrated schema differs from a fresh one"
}

check_tree sample fixtures/sample-logs
# every kind the sample logs have (alerts, access lines, trace records,
# trainer's steps, Xids, nvidia-smi -q GPUs)
expect_eq "sample: kinds" "0,1,2,3,5,6,7" "$(q $T/sample-fresh.db "select group_concat(kind) from event_kinds")"
if [ -d "$REALDATA" ]; then
	check_tree real "$REALDATA"
	# the vLLM logs hold failed requests (HTTP 400)
	expect_eq "real: a failed request's access line" 1 \
		"$(q $T/real-fresh.db "select count(*) > 0 from events where kind = 4")"
else
	echo "skipped the real samples: $REALDATA not found"
fi
exit 0
