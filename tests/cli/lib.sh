# Shared helpers for the CLI tests (POSIX sh). Sourced by tests/cli/t_*.sh,
# which run from the repository root with $BUILD set.
set -u
BUILD=${BUILD:-build}
INGEST="$PWD/$BUILD/bin/gpulog-ingest"
REPORT="$PWD/$BUILD/bin/gpulog-report"
T=$(mktemp -d /tmp/gpulog-cli.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
REALDATA=${GL_REALDATA:-../shared/realdata}

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }

# q DB SQL: prints the result of a query.
q() { sqlite3 -batch -noheader "$1" "$2"; }

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }

# genlines TAG FIRST COUNT: JSON lines of the analytics shape, one per
# number, each with a unique message "TAG n" (about 190 bytes a line).
genlines() {
	awk -v tag="$1" -v first="$2" -v n="$3" 'BEGIN {
		for (i = first; i < first + n; i++) {
			s = i % 60; m = int(i / 60) % 60; h = int(i / 3600) % 24;
			printf("{\"timestamp\": \"2025-11-16T%02d:%02d:%02d.%06dZ\", \"level\": \"INFO\", \"component\": \"gpu\", \"message\": \"%s %d\", \"gpu_metrics\": {\"kernel_name\": \"k%d\", \"execution_time_us\": %d.5}}\n", h, m, s, i, tag, i, i % 5, 100 + i % 37);
		}
	}'
}

# ingest DB PATH...: runs gpulog-ingest quietly; returns its status.
ingest() { db=$1; shift; "$INGEST" -q --db "$db" "$@"; }

# check_exact DB N: exactly N events, no (stream, line) stored twice, no
# message stored twice.
check_exact() {
	expect_eq "events" "$2" "$(q "$1" 'select count(*) from events')"
	expect_eq "distinct messages" "$2" "$(q "$1" 'select count(distinct message) from events')"
	expect_eq "duplicate stream lines" 0 \
		"$(q "$1" 'select count(*) from (select 1 from events group by stream_id, line having count(*) > 1)')"
}

# make_old VERSION FRESH OLD: writes OLD, a database of schema VERSION (as
# fixtures/schema-vVERSION.sql, the schema that version created) holding
# every row of FRESH, a database of this version, in the columns VERSION
# had (version 5: all but events.packed; version 6: all).
make_old() {
	{ cat fixtures/schema-v$1.sql
	  echo "PRAGMA application_id = 1735420007; PRAGMA user_version = $1;"; } | sqlite3 "$3" ||
		fail "cannot create the version-$1 database"
	shift
	_copy=$(q "$2" "select 'DELETE FROM main.' || m.name || '; INSERT INTO main.' || m.name ||
		' (' || c.cols || ') SELECT ' || c.cols || ' FROM f.' || m.name || ';'
		from sqlite_master m, (select m2.name as t, (select group_concat(p.name, ', ')
			from pragma_table_info(m2.name) p) as cols from sqlite_master m2) c
		where c.t = m.name and m.type = 'table' and m.name not like 'sqlite_%' order by m.name")
	printf "ATTACH '%s' AS f; BEGIN;\n%s\nCOMMIT;\n" "$1" "$_copy" | sqlite3 "$2" ||
		fail "cannot copy the rows into the old database"
}
make_v5() { make_old 5 "$@"; }

# db_shape DB: its tables, views, columns (type, not null, key) and index
# definitions, in a fixed order: a migrated database must print what a
# fresh one prints.
db_shape() {
	q $1 "select type, name from sqlite_master where name not like 'sqlite_%' order by 1, 2"
	for t in $(q $1 "select name from sqlite_master where type in ('table', 'view') order by 1"); do
		q $1 "select '$t', name, type, \"notnull\", pk from pragma_table_info('$t')"
	done
	q $1 "select name, sql from sqlite_master where type = 'index' order by 1" | tr -s ' \t\n' ' '
}

command -v sqlite3 >/dev/null 2>&1 || fail "sqlite3 (the CLI) is needed by the tests: make deps installs it"
[ -x "$INGEST" ] || fail "$INGEST not built"
