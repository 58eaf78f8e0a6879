# Two runs on one database: the second waits for the first (or, with
# --no-wait, stops with a clear message); never doubled lines.
. tests/cli/lib.sh
command -v flock >/dev/null 2>&1 || skip "flock(1) not installed"

mkdir -p $T/logs
genlines a 0 50000 > $T/logs/a.log
genlines b 0 50000 | gzip -c > $T/logs/b.log.gz
touch -d '1 hour ago' $T/logs/a.log
db=$T/db

# Both at once, twice over.
for round in 1 2; do
	"$INGEST" -q --db $db $T/logs & p1=$!
	"$INGEST" -q --db $db $T/logs & p2=$!
	wait $p1 || fail "first concurrent run failed"
	wait $p2 || fail "second concurrent run failed"
	check_exact $db 100000
done

# Another process holds the database: --no-wait refuses with status 2 ...
flock $db sleep 3 & holder=$!
sleep 0.3
out=$("$INGEST" --no-wait --db $db $T/logs 2>&1); rc=$?
expect_eq "--no-wait status" 2 $rc
echo "$out" | grep -q "database busy" || fail "--no-wait message: $out"
# ... and a plain run says it waits, then completes.
genlines c 0 10 >> $T/logs/a.log
touch -d '1 hour ago' $T/logs/a.log
out=$("$INGEST" --db $db $T/logs 2>&1) || fail "waiting run failed: $out"
echo "$out" | grep -q "waiting for database" || fail "no waiting message: $out"
wait $holder
check_exact $db 100010
exit 0
