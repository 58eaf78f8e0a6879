# Bad input gets a clear message and never costs data.
. tests/cli/lib.sh

# 1. A truncated gzip keeps every complete line before the damage, is
# recorded, and the files after it are still read (zcat would drop them).
mkdir -p $T/gz
genlines t 0 3000 | gzip -c > $T/full.gz
size=$(wc -c < $T/full.gz)
head -c $((size * 6 / 10)) $T/full.gz > $T/gz/a.log.gz
genlines b 0 500 > $T/gz/b.log
touch -d '1 hour ago' $T/gz/b.log
# Independent count: what GNU gzip recovers, in whole lines.
complete=$(gzip -dc < $T/gz/a.log.gz 2>/dev/null | wc -l | tr -d ' ')
[ "$complete" -gt 100 ] && [ "$complete" -lt 3000 ] || fail "bad test setup: $complete lines"
out=$("$INGEST" --db $T/gz.db $T/gz 2>&1); rc=$?
expect_eq "exit status with a damaged file" 1 $rc
echo "$out" | grep -q "damaged" || fail "no damage message: $out"
echo "$out" | grep -q "a.log.gz" || fail "damage message names no file: $out"
expect_eq "lines before damage" "$complete" \
	"$(q $T/gz.db "select count(*) from v_events where path like '%a.log.gz'")"
expect_eq "file after damage" 500 "$(q $T/gz.db "select count(*) from v_events where path like '%b.log'")"
expect_eq "damage recorded" 1 "$(q $T/gz.db "select count(*) from v_rejects where path like '%a.log.gz' and reason like '%damaged%'")"
expect_eq "file status" damaged "$(q $T/gz.db "select status from files where path like '%a.log.gz'")"
# The complete file arriving later adds exactly the missing lines.
cp $T/full.gz $T/gz/a.log.gz
"$INGEST" -q --db $T/gz.db $T/gz || fail "run with the repaired file"
expect_eq "after repair" 3500 "$(q $T/gz.db 'select count(*) from events')"

# 2. A corrupt gzip (a byte changed in the middle): damage recorded, the
# other files still read, nothing stored twice on a second run.
mkdir -p $T/cz
cp $T/full.gz $T/cz/c.log.gz
printf '\377\377\377\377' | dd of=$T/cz/c.log.gz bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
genlines d 0 100 > $T/cz/d.log
touch -d '1 hour ago' $T/cz/d.log
"$INGEST" -q --db $T/cz.db $T/cz 2>/dev/null; rc=$?
expect_eq "corrupt gzip status" 1 $rc
expect_eq "other file" 100 "$(q $T/cz.db "select count(*) from v_events where path like '%d.log'")"
n1=$(q $T/cz.db 'select count(*) from events')
"$INGEST" -q --db $T/cz.db $T/cz 2>/dev/null
expect_eq "second run adds nothing" "$n1" "$(q $T/cz.db 'select count(*) from events')"

# 3. Malformed lines of each kind are rejected with a reason; the good
# lines around them are all stored.
mkdir -p $T/bad
{
	genlines g 0 5
	echo '{"timestamp": "2025-11-16T00:00:00Z", "level": "INFO", "message": "cut off'
	echo '{"timestamp": "2025-11-16T00:00:00Z", "execution_time_ms": NaN}'
	echo '{"timestamp": 12345, "message": "wrong type"}'
	echo '{"timestamp": "2025-11-16T00:00:00Z", "memory_usage_mb": "lots"}'
	printf '{"timestamp": "2025-11-16T00:00:00Z", "message": "bad \377 utf8"}\n'
	printf '\001\002\003\004binary junk\n'
	head -c 3000000 /dev/zero | tr '\0' 'x'; echo
	genlines g 5 5
} > $T/bad/gpu.log
touch -d '1 hour ago' $T/bad/gpu.log
out=$("$INGEST" --db $T/bad.db $T/bad 2>&1) || fail "malformed lines are data, not failure: $out"
expect_eq "good lines" 10 "$(q $T/bad.db 'select count(*) from events')"
expect_eq "rejects" 7 "$(q $T/bad.db 'select count(*) from rejects')"
echo "$out" | grep -q "7 rejected" || fail "summary: $out"
expect_eq "reject lines" "6 7 8 9 10 11 12" "$(q $T/bad.db 'select group_concat(line, " ") from (select line from rejects order by line)')"
for pat in "invalid JSON: premature end%" "%NaN%" "%timestamp%" "%memory_usage_mb%" "invalid UTF-8%" "%longer than%" "not a line of any known format"; do
	expect_eq "reason $pat" 1 "$(q $T/bad.db "select count(*) from rejects where reason like '$pat'")"
done
expect_eq "long line length kept" 3000001 "$(q $T/bad.db "select length from rejects where reason like '%longer than%'")"
expect_eq "excerpt capped" 1024 "$(q $T/bad.db 'select max(length(excerpt)) from rejects')"
expect_eq "offset of line 6" "$(genlines g 0 5 | wc -c | tr -d ' ')" "$(q $T/bad.db 'select offset from rejects where line = 6')"

# 4. Missing path: named, status 1, the others still read.
out=$("$INGEST" --db $T/m.db $T/nonexistent $T/bad 2>&1); rc=$?
expect_eq "missing path status" 1 $rc
echo "$out" | grep -q "cannot read '$T/nonexistent': No such file or directory" || fail "missing path message: $out"
expect_eq "others read" 10 "$(q $T/m.db 'select count(*) from events')"

# 5. --db that is not a gpulog database: refused, status 2, untouched.
echo "my notes" > $T/notes.txt
cp $T/notes.txt $T/notes.orig
out=$("$INGEST" --db $T/notes.txt $T/bad 2>&1); rc=$?
expect_eq "text file as db" 2 $rc
echo "$out" | grep -q "not an SQLite database" || fail "text db message: $out"
cmp -s $T/notes.txt $T/notes.orig || fail "text file was modified"
sqlite3 $T/other.db 'create table t (x); insert into t values (1);'
cp $T/other.db $T/other.orig
out=$("$INGEST" --db $T/other.db $T/bad 2>&1); rc=$?
expect_eq "foreign sqlite db" 2 $rc
echo "$out" | grep -q "another program" || fail "foreign db message: $out"
cmp -s $T/other.db $T/other.orig || fail "foreign database was modified"
[ ! -e $T/other.db-wal ] || fail "foreign database got a WAL"

# 6. Usage errors.
"$INGEST" --db $T/u.db 2>/dev/null; expect_eq "no PATH" 2 $?
"$INGEST" --bogus 2>/dev/null; expect_eq "unknown option" 2 $?
out=$("$INGEST" --format nosuch --db $T/u.db $T/bad 2>&1); expect_eq "unknown format" 2 $?
echo "$out" | grep -q "unknown format 'nosuch'" || fail "format message: $out"

# 7. Files in no known format are skipped and named, not stored as rejects.
mkdir -p $T/skip
printf '\211PNG\r\n\032\n\000\000\000\rIHDR' > $T/skip/chart.png
printf '{\n  "report": "daily",\n  "kernels": []\n}\n' > $T/skip/report.json
printf 'name,value\nfoo,1\nbar,2\n' > $T/skip/other.csv
genlines k 0 3 > $T/skip/gpu.log
out=$("$INGEST" --db $T/s.db $T/skip 2>&1) || fail "skipped files are not failure: $out"
for f in chart.png report.json other.csv; do
	echo "$out" | grep -q "skipped '$T/skip/$f'" || fail "$f not named: $out"
done
expect_eq "no rejects for skipped files" 0 "$(q $T/s.db 'select count(*) from rejects')"
expect_eq "log still read" 3 "$(q $T/s.db 'select count(*) from events')"

# 8. A log with a run of NUL bytes (what a crash leaves) keeps every good
# line; the NUL line is a reject. A big binary with no newline is skipped
# from its first bytes, not read whole.
mkdir -p $T/nul
{ genlines n 0 3; head -c 300 /dev/zero; echo; genlines n 3 3; } > $T/nul/gpu.log
head -c 20000000 /dev/urandom > $T/nul/core.bin
touch -d '1 hour ago' $T/nul/gpu.log
out=$("$INGEST" --db $T/nul.db $T/nul 2>&1) || fail "NUL run: $out"
expect_eq "good lines around NULs" 6 "$(q $T/nul.db 'select count(*) from events')"
expect_eq "NUL line rejected" "4|NUL byte at byte 1" "$(q $T/nul.db 'select line, reason from rejects')"
echo "$out" | grep -q "skipped '$T/nul/core.bin': not a log of a known format: binary data" \
	|| fail "binary not skipped: $out"
exit 0
