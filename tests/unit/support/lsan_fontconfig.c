/*
 * lsan_fontconfig.c - LeakSanitizer suppressions for the chart tests under
 * `make check`. PLplot's cairo driver renders text with pango, which loads
 * fontconfig's font list once per process and keeps it to the end (a
 * cache, not a leak in gpulog). LeakSanitizer reads this hook from the
 * test binary; in other builds nothing calls it.
 */
const char *__lsan_default_suppressions(void);

const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n"
	       "leak:libpango-1.0.so\n"
	       "leak:libpangoft2-1.0.so\n"
	       "leak:libpangocairo-1.0.so\n"
	       "leak:libglib-2.0.so\n"
	       "leak:libgobject-2.0.so\n";
}
