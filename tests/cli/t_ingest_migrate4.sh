# A database of schema version 3 (fixtures/schema-v3.sql, as version 3
# created it: one row per metric sample in table samples) is migrated to 4:
# its samples packed per series and stream in blocks (sample_blocks), every
# sample kept with its time, value, line, path and ts_estimated, the table
# samples and its counter gone, and the result shaped like a fresh database.
. tests/cli/lib.sh

db=$T/v3.db
# The samples, written once by awk (the fixture) and read back through
# v_samples (the check): id, ts_us, series, value, estimated, stream, line, file.
#   series 1 (stream 1): 5000 samples 0.5 s apart, stored newest first (ids
#     descending): 4096 in one block, 904 in the next;
#   series 2 (stream 1): 3 samples 40 min apart: the third is more than an
#     hour after the first, so 2 blocks; values 0.1, -2.5, 1e-07;
#   series 1 (stream 2, file 2): 2 samples, ts_estimated 1: their own block;
#   series 2 (stream 1) at the same time as series 1's first: ties kept.
awk 'BEGIN {
	t = 1763287200000000; id = 1
	for (i = 4999; i >= 0; i--)
		printf "%d|%.0f|1|%d|0|1|%d|1\n", id++, t + i * 500000, i % 97, i + 1
	printf "%d|%.0f|2|0.1|0|1|5001|1\n", id++, t
	printf "%d|%.0f|2|-2.5|0|1|5002|1\n", id++, t + 2400000000
	printf "%d|%.0f|2|1e-07|0|1|5003|1\n", id++, t + 4800000000
	printf "%d|%.0f|1|7.25|1|2|1|2\n", id++, t + 10000000
	printf "%d|%.0f|1|8.5|1|2|2|2\n", id++, t + 11000000
	# series 3: 70,000 samples, more than the migration converts at once
	for (i = 0; i < 70000; i++)
		printf "%d|%.0f|3|%d.25|0|1|%d|1\n", id++, t + i * 50000, i % 1000, 6000 + i
}' > $T/rows
{ cat fixtures/schema-v3.sql
  echo "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
  echo "INSERT INTO names (id, name) VALUES (1, 'gpu.power_w'), (2, 'node1');"
  echo "INSERT INTO streams (id, format, first_path, bytes, lines, hash, head_bytes, head_hash) VALUES (1, 'nvsmi', '/old/gpu.csv', 0, 0, 0, 0, 0), (2, 'gpufl', '/old/a.system.0.log', 0, 0, 0, 0, 0);"
  echo "INSERT INTO files (id, path, status) VALUES (1, '/old/gpu.csv', 'read'), (2, '/old/a.system.0.log', 'read');"
  echo "INSERT INTO paths (id, path) VALUES (1, '/old/gpu.csv'), (2, '/old/a.system.0.log');"
  echo "INSERT INTO series (id, metric_id, device, host_id, source) VALUES (1, 1, '0', 2, 'nvsmi'), (2, 1, '1', 2, 'nvsmi'), (3, 1, '2', 2, 'nvsmi');"
  echo "BEGIN;"
  awk -F'|' '{ printf "INSERT INTO samples (id, ts_us, series_id, value, ts_estimated, stream_id, line, file_id, path_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s);\n", $1, $2, $3, $4, $5, $6, $7, $8, $8 }' $T/rows
  echo "COMMIT;"
  echo "UPDATE counters SET value = 75006 WHERE name = 'samples.id';"
} | sqlite3 $db || fail "cannot build the v3 database"

# the samples as SQLite holds them in version 3's rows: the expectation
q $db "select s.ts_us, s.series_id, printf('%!.20g', s.value), s.ts_estimated, s.line, p.path from samples s join paths p on p.id = s.path_id" |
	sort > $T/want
expect_eq "v3 samples" 75005 "$(wc -l < $T/want | tr -d ' ')"

mkdir -p $T/logs
echo '{"timestamp": "2025-11-16T11:00:00Z", "level": "INFO", "message": "new"}' > $T/logs/new.log
touch -d '1 hour ago' $T/logs/new.log
"$INGEST" -q --db $db $T/logs || fail "ingest into the v3 database"
expect_eq "user_version" 12 "$(q $db 'pragma user_version')"
expect_eq "old tables gone" 0 \
	"$(q $db "select count(*) from sqlite_master where name in ('samples', 'counters')")"
# every sample, as the version 3 rows held it (values with 20 digits)
q $db "select ts_us, series_id, printf('%!.20g', value), ts_estimated, line, path from v_samples" |
	sort > $T/got
cmp -s $T/want $T/got || fail "samples differ: $(diff $T/want $T/got | head -5)"
expect_eq "sample count" 75005 "$(wc -l < $T/got | tr -d ' ')"
# blocks: series 1 stream 1: 4096 + 904; series 2: 2 + 1 (the hour); series 1 stream 2: 2
expect_eq "blocks" "1|1|0|4096
1|1|0|904
1|2|1|2
2|1|0|2
2|1|0|1" "$(q $db 'select series_id, stream_id, ts_estimated, n from sample_blocks where series_id < 3 order by series_id, stream_id, t0_us')"
# series 3 in blocks of at most 4096 samples and an hour, all of them there
expect_eq "series 3 blocks" "70000|4096|1" \
	"$(q $db 'select sum(n), max(n), max(t1_us - t0_us) <= 3600000000 from sample_blocks where series_id = 3')"
expect_eq "blocks in time order" 0 \
	"$(q $db 'select count(*) from (select block_id, ts_us, lag(ts_us) over (partition by block_id order by id) as prev from v_samples) where ts_us < prev')"
expect_eq "block edges" 0 "$(q $db 'select count(*) from sample_blocks b where t0_us <> (select min(ts_us) from v_samples where block_id = b.id) or t1_us <> (select max(ts_us) from v_samples where block_id = b.id) or line0 <> (select min(line) from v_samples where block_id = b.id) or line1 <> (select max(line) from v_samples where block_id = b.id)')"

# Same tables, columns, indexes and views as a fresh database.
"$INGEST" -q --db $T/fresh.db $T/logs || fail "fresh ingest"
db_shape $db > $T/old.shape
db_shape $T/fresh.db > $T/fresh.shape
diff $T/fresh.shape $T/old.shape || fail "migrated schema differs from a fresh one"
exit 0
