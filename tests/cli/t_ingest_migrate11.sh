# A database of schema version 10 stores each batch's samples of a series
# and file as a block of its own (a Prometheus scrape: a block per sample);
# schema 11 stages the few and merges them at a run's end (issue 28 D11).
# The version-10 file here is a fresh ingest's rows in the tables of schema
# 10 (fixtures/schema-v10.sql), its samples as version 10 stored scrapes: a
# block each, of its own stream, file and path. gpulog-report over it (read
# without migrating), over it migrated and over the fresh one writes the
# same files; the migrated database keeps its blocks and merges what the
# next run brings, and holds then the same samples (time, value, path, line)
# as the fresh one.
. tests/cli/lib.sh

# scrape K T: 12 gauges (3 fields x 4 GPUs) at the file's time T
scrape() {
	for f in GPU_TEMP POWER_USAGE SM_CLOCK; do
		printf '# TYPE DCGM_FI_DEV_%s gauge\n' $f
		for g in 0 1 2 3; do
			printf 'DCGM_FI_DEV_%s{gpu="%d",UUID="GPU-%d"} %d\n' $f $g $g $((($1 * 7 + g * 3) % 97))
		done
	done > $T/logs/prom/m.$1.prom
	touch -d "@$2" $T/logs/prom/m.$1.prom
}
mkdir -p $T/logs/prom
cp -r fixtures/sample-logs $T/logs/sample
t0=1763000000
k=0
while [ $k -lt 30 ]; do scrape $k $((t0 + 15 * k)); k=$((k + 1)); done
fresh=$T/fresh.db db=$T/v10.db
cfg="--config fixtures/sample-logs.ingest.json"
"$INGEST" -q $cfg --db $fresh $T/logs || [ $? -eq 1 ] || fail "fresh ingest"
make_old 10 $fresh $db
# version 10's blocks: one per sample, with its stream, file, path and line
printf "ATTACH '%s' AS f; BEGIN; DELETE FROM main.sample_blocks;
INSERT INTO main.sample_blocks (series_id, t0_us, t1_us, n, ts_estimated, stream_id, line0,
  line1, file_id, path_id, data)
SELECT b.series_id, b.t0_us + (j.value ->> 0), b.t0_us + (j.value ->> 0), 1, b.ts_estimated,
  CASE WHEN b.origins IS NULL THEN b.stream_id ELSE b.origins ->> ('\$[' || (j.value ->> 3) || '][0]') END,
  b.line0 + (j.value ->> 2), b.line0 + (j.value ->> 2),
  nullif(CASE WHEN b.origins IS NULL THEN ifnull(b.file_id, 0) ELSE b.origins ->> ('\$[' || (j.value ->> 3) || '][1]') END, 0),
  nullif(CASE WHEN b.origins IS NULL THEN ifnull(b.path_id, 0) ELSE b.origins ->> ('\$[' || (j.value ->> 3) || '][2]') END, 0),
  '[[0,' || (j.value -> 1) || ',0]]'
FROM f.sample_blocks b, json_each(b.data) j ORDER BY b.id, j.key; COMMIT;\n" "$fresh" | sqlite3 $db ||
	fail "cannot write version 10's blocks"
expect_eq "the version-10 file: no stage" 0 \
	"$(q $db "select count(*) from sqlite_master where name = 'sample_stage'")"
inprom="from sample_blocks b join paths p on p.id = b.path_id where p.path like '$T/logs/prom/%'"
expect_eq "the version-10 file: a block per scrape sample" "360|360" "$(q $db "select count(*), sum(n) $inprom")"
samples="select metric, ts_us, value, ifnull(path, ''), line from v_samples order by 1, 2, 4, 5, 3"
q $fresh "$samples" > $T/fresh.samples
q $db "$samples" > $T/v10.samples
cmp -s $T/fresh.samples $T/v10.samples ||
	fail "the version-10 file's samples differ: $(diff $T/fresh.samples $T/v10.samples | head -4)"
report() { "$REPORT" --db $1 --until 2025-11-20 --days 30 --format json --output-dir $2 >/dev/null ||
	fail "report over $1"; }
report $fresh $T/r-fresh
report $db $T/r-v10
"$INGEST" $cfg --db $db $T/logs 2>$T/err || [ $? -eq 1 ] || fail "ingest into the version-10 database"
grep -q "^gpulog-ingest: migrating database '$db': from schema 10 to 12" $T/err ||
	fail "the migration is not announced: $(head -3 $T/err)"
grep -q "^gpulog-ingest: 0 lines stored" $T/err || fail "the run stored rows: $(cat $T/err)"
expect_eq "user_version" 12 "$(q $db 'pragma user_version')"
db_shape $db > $T/shape11
db_shape $fresh > $T/shape
diff $T/shape $T/shape11 || fail "migrated schema differs from a fresh one"
report $db $T/r-migrated
for v in v10 migrated; do
	diff -r $T/r-fresh $T/r-$v >/dev/null ||
		fail "the report over the $v database differs: $(diff -r $T/r-fresh $T/r-$v | head -5)"
done
# ten more scrapes: merged in the migrated database as in the fresh one
while [ $k -lt 40 ]; do scrape $k $((t0 + 15 * k)); k=$((k + 1)); done
for d in $fresh $db; do
	"$INGEST" -q $cfg --db $d $T/logs || [ $? -eq 1 ] || fail "ingest of ten more scrapes into $d"
done
q $fresh "$samples" > $T/fresh.samples
q $db "$samples" > $T/v10.samples
cmp -s $T/fresh.samples $T/v10.samples ||
	fail "after ten more scrapes the samples differ: $(diff $T/fresh.samples $T/v10.samples | head -4)"
expect_eq "the ten new scrapes: one block a series" "372|480|12" \
	"$(q $db "select count(*), sum(n), sum(n = 10 and origins is not null) $inprom")"
exit 0
