# Rejects are bounded: past --max-rejects (default 10,000) rejected lines in
# a file, the rest of its bad lines are counted, not stored; the file is
# marked and the summary says so. Gzipped junk must not grow the database
# by its decompressed size.
. tests/cli/lib.sh

mkdir -p $T/junk $T/small
# 300,000 junk lines of 200 bytes (60 MB decompressed), gzipped
awk 'BEGIN { for (i = 0; i < 300000; i++) { s = sprintf("{\"timestamp\": \"2025-11-16T00:00:00Z\", \"junk\": %d ", i);
	while (length(s) < 199) s = s sprintf("%x", (i * 7919 + length(s)) % 65521); print substr(s, 1, 199) } }' |
	gzip -c > $T/junk/junk.log.gz
"$INGEST" --db $T/db $T/junk 2>$T/err || fail "junk ingest status: $(cat $T/err)"
expect_eq "rejects stored (default cap)" 10000 "$(q $T/db 'select count(*) from rejects')"
expect_eq "the first 10,000 lines are the ones stored" "1|10000" \
	"$(q $T/db 'select min(line), max(line) from rejects')"
grep -q "300,000 rejected" $T/err || fail "summary total: $(cat $T/err)"
grep -q "290,000 rejected lines counted, not stored: 1 files over --max-rejects" $T/err ||
	fail "summary of the cap: $(cat $T/err)"
q $T/db "select note from files" | grep -q "more than 10000 rejected lines" ||
	fail "file note: $(q $T/db 'select note from files')"
size=$(wc -c < $T/db)
[ "$size" -lt 8000000 ] || fail "database grew to $size bytes"
# A second run stores nothing more.
"$INGEST" -q --db $T/db $T/junk || fail "second run"
expect_eq "rejects after a second run" 10000 "$(q $T/db 'select count(*) from rejects')"

# --max-rejects N: good lines are all stored, N bad ones kept, per file.
{ genlines g 0 3; printf "{\"bad\": %d\n" 1 2 3 4 5 6 7 8 9 10; genlines g 3 2; printf "{\"bad\": 11\n"; } > $T/small/a.log
{ printf "{\"bad\": x%d\n" 1 2 3; genlines h 0 1; } > $T/small/b.log
touch -d '1 hour ago' $T/small/*.log
"$INGEST" --max-rejects 4 --db $T/small.db $T/small 2>$T/err2 || fail "small ingest: $(cat $T/err2)"
expect_eq "events" 6 "$(q $T/small.db 'select count(*) from events')"
expect_eq "rejects of a.log" "4:4 5 6 7" \
	"$(q $T/small.db "select count(*) || ':' || group_concat(r.line, ' ') from rejects r join files f on f.id = r.file_id where f.path like '%/a.log'")"
expect_eq "rejects of b.log" 3 \
	"$(q $T/small.db "select count(*) from rejects r join files f on f.id = r.file_id where f.path like '%/b.log'")"
grep -q "14 rejected" $T/err2 || fail "small summary: $(cat $T/err2)"
grep -q "7 rejected lines counted, not stored: 1 files" $T/err2 || fail "small cap summary: $(cat $T/err2)"
for bad in 0 -1 x 1x; do
	"$INGEST" -q --max-rejects "$bad" --db $T/small.db $T/small 2>/dev/null
	expect_eq "--max-rejects $bad status" 2 $?
done

# A mistaken --format: the lines are rejects (at most --max-rejects stored),
# nothing stored; a later run without --format reads the file again (issue
# 30: every line was rejected, and it is read otherwise now), its rejects
# are dropped; a third run reads nothing.
mkdir $T/wrong
genlines w 0 30 > $T/wrong/w.log
touch -d '1 hour ago' $T/wrong/w.log
"$INGEST" -q --format pylog --max-rejects 20 --db $T/wrong.db $T/wrong || fail "wrong format run"
expect_eq "events under a wrong --format" 0 "$(q $T/wrong.db 'select count(*) from events')"
expect_eq "rejects under a wrong --format" 20 "$(q $T/wrong.db 'select count(*) from rejects')"
"$INGEST" --db $T/wrong.db $T/wrong 2>$T/err3 || fail "run after the wrong format"
expect_eq "events after a run without --format" 30 "$(q $T/wrong.db 'select count(*) from events')"
expect_eq "rejects after a run without --format" 0 "$(q $T/wrong.db 'select count(*) from rejects')"
grep -q "read again '$T/wrong/w.log'" $T/err3 || fail "re-read notice: $(cat $T/err3)"
grep -q "1 files read again" $T/err3 || fail "re-read summary: $(cat $T/err3)"
"$INGEST" --db $T/wrong.db $T/wrong 2>$T/err3 || fail "third run"
grep -q "0 lines stored" $T/err3 || fail "third run: $(cat $T/err3)"
expect_eq "events after a third run" 30 "$(q $T/wrong.db 'select count(*) from events')"
exit 0
