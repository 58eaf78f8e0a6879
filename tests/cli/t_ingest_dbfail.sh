# An unusable --db: a message "cannot open database '<path>': <cause>" and
# status 2, with -q too (D5); never status 1, which means "some input could
# not be read". A write lock held by another SQLite client is not waited on
# for long with --no-wait.
. tests/cli/lib.sh

mkdir -p $T/logs
genlines a 0 10 > $T/logs/a.log
touch -d '1 hour ago' $T/logs/a.log

# unusable DB CAUSE-PATTERN: both with and without -q
unusable() {
	for quiet in "" -q; do
		out=$("$INGEST" $quiet --db "$1" $T/logs 2>&1); rc=$?
		expect_eq "status for --db $1 $quiet" 2 $rc
		echo "$out" | grep -q "^gpulog-ingest: cannot open database '$1': $2" ||
			fail "message for --db $1 $quiet: $out"
	done
}
unusable $T/missing/dir/x.db "No such file or directory"
mkdir $T/adir
unusable $T/adir "Is a directory"
# A file that no one may write, even root: procfs.
[ -e /proc/version ] && unusable /proc/version "."
if [ "$(id -u)" -ne 0 ]; then
	: > $T/ro.db; chmod 444 $T/ro.db
	unusable $T/ro.db "Permission denied"
	mkdir $T/rodir; chmod 555 $T/rodir
	unusable $T/rodir/x.db "Permission denied"
else
	echo "skipped: read-only file and unwritable directory (root bypasses permissions)"
fi

# Another SQLite client holds a write transaction: --no-wait gives up
# within a few seconds with status 2 and says why.
db=$T/db
ingest $db $T/logs || fail "first ingest"
genlines b 0 10 >> $T/logs/a.log
touch -d '1 hour ago' $T/logs/a.log
(printf 'BEGIN IMMEDIATE;\nINSERT INTO runs(id) SELECT NULL WHERE 0;\n'; sleep 12; printf 'COMMIT;\n') |
	sqlite3 $db & holder=$!
sleep 0.5
start=$(date +%s)
out=$("$INGEST" -q --no-wait --db $db $T/logs 2>&1); rc=$?
took=$(( $(date +%s) - start ))
expect_eq "--no-wait under an SQLite lock: status" 2 $rc
echo "$out" | grep -q "locked" || fail "--no-wait under an SQLite lock: message: $out"
[ $took -le 5 ] || fail "--no-wait waited $took s"
wait $holder
ingest $db $T/logs || fail "ingest after the lock"
check_exact $db 20
exit 0
