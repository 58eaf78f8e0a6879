#!/bin/sh
# The profile-guided build (Makefile, PGO; issue 34): the programs' objects
# are compiled with the counts of make demo's job run by the programs built
# with counters. Checks, for the files the report and the ingest spend
# their time in, that the run left counts, that GCC finds them for every
# function when it compiles the file as the Makefile does (the build does
# not say when it finds none: a wrong -dumpdir or -dumpbase would leave them
# unused; here -Werror=missing-profile), and that gpulog-report was built
# with them. Skipped for a build without PGO (make check, PGO=0, clang).
. tests/cli/lib.sh
[ -f "$BUILD/pgo/profile.stamp" ] || skip "skipped: $BUILD was built without PGO"
command -v readelf >/dev/null 2>&1 || skip "skipped: readelf absent"
unset MAKEFLAGS MFLAGS MAKELEVEL

for f in reports/sections reports/sec_errors reports/sec_findings lib/store/query_events \
	lib/store/query_samples lib/store/sblock lib/store/store_put lib/ingest/json_scan \
	lib/ingest/reader cmd/gpulog-report; do
	[ -s "$BUILD/pgo/obj/$f.gcda" ] || fail "$f.c: no counts in $BUILD/pgo/obj/$f.gcda"
	# the Makefile's command for the object (-W: as if the source changed; -n: not run)
	cmd=$(make -s -n BUILD="$BUILD" -W "$f.c" "$BUILD/obj/$f.o" 2>/dev/null |
		grep -e "-o $BUILD/obj/$f.o\$")
	case "$cmd" in
	*-fprofile-use*-dumpdir*) ;;
	*) fail "$f.c: not compiled with its counts: '$cmd'" ;;
	esac
	cmd=$(printf '%s\n' "$cmd" | sed -e "s|-o $BUILD/obj/$f.o\$|-o $T/probe.o|" \
		-e 's|-Wno-missing-profile|-Werror=missing-profile|' -e 's|-MMD -MP||')
	eval "$cmd" 2>"$T/err" || fail "$f.c: its counts are not found: $(head -3 "$T/err")"
done

# every compile unit of the program's own code names -fprofile-use (not the tests' support)
readelf --debug-dump=info "$BUILD/bin/gpulog-report" 2>/dev/null | grep 'DW_AT_producer.*GNU C' \
	>"$T/units"
units=$(grep -c . "$T/units")
used=$(grep -c -e '-fprofile-use' "$T/units")
[ "$units" -gt 0 ] || skip "skipped: gpulog-report has no debugging information"
expect_eq "compile units of gpulog-report built with the profile" "$units" "$used"
echo "counts found for 10 files; $used of $units compile units built with them"
