/*
 * kname.c - the name a person reads for a kernel.
 *
 * In: a kernel's name as the log wrote it: demangled by the profiler
 *     void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, ...)
 * (Kineto, nsys), mangled (_Z15force_pass_kernPfi, gpufl), cut by nsys
 *     void at::native::vectorized_elementwise_kernel<4, at::native::…
 * or plain (ampere_sgemm_32x32_sliced1x4_tn).
 * Out: one display name, as nsys and HTA shorten them: the function with
 * its namespaces, no return type, no parameters, no "(anonymous namespace)":
 *     at::native::max_pool_forward_nchw<float, float>
 * Short template arguments stay (they tell fft2d_r2c_32x32<float, false, 0u,
 * false> from <float, false, 5u, true>); long ones become "<…>", and a name
 * that lost anything but its parameters and return type ends with "#" and 4
 * hex digits of a hash of the full name, so two kernels that differ only
 * there stay two names, the same in every report. Pure: the same name in
 * gives the same display name out, whichever section asks.
 */
#include "kname.h"

#include <stdio.h>
#include <string.h>

#define WORK 16384	/* a Kineto name of 5,000 bytes seen (PyTorch distribution kernels) */
/* template arguments up to this long, without nested lists or parentheses, stay */
#define KEEP_ARGS 24

static size_t chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Bytes of s's first k characters. */
static size_t prefix_bytes(const char *s, size_t k)
{
	size_t i = 0;

	while (s[i] && k > 0) {
		i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		k--;
	}
	return i;
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int is_anon_ns(const char *p)
{
	return strncmp(p, "(anonymous namespace)", 21) == 0;
}

static int is_operator_lt(const char *s, size_t i)
{
	return (i >= 8 && strncmp(s + i - 8, "operator", 8) == 0) ||
	       (i >= 9 && strncmp(s + i - 9, "operator<", 9) == 0);
}

static void append(char *s, size_t *len, const char *p, size_t n)
{
	if (*len + n >= WORK)
		n = WORK - 1 - *len;
	memcpy(s + *len, p, n);
	*len += n;
	s[*len] = '\0';
}

/* <digits><that many bytes> at *p; 0 when not there. */
static size_t source_name(const char **p, const char **name)
{
	size_t len = 0;

	if (**p < '1' || **p > '9')
		return 0;
	while (**p >= '0' && **p <= '9' && len < 100000)
		len = len * 10 + (size_t)(*(*p)++ - '0');
	if (strnlen(*p, len) < len)
		return 0;
	*name = *p;
	*p += len;
	return len;
}

/*
 * The Itanium-mangled name's source names joined by "::"; template arguments
 * (not decoded) as "<…>" with *elided set; the anonymous namespace left out.
 * Returns 0 when name does not decode.
 */
static int from_mangled(const char *name, char *s, int *elided)
{
	const char *p = name + 2, *part;
	size_t len = 0, plen;
	int nested = *p == 'N';

	s[0] = '\0';
	if (nested)
		p++;
	while (nested && (*p == 'K' || *p == 'V' || *p == 'r'))
		p++;
	do {
		if (!(plen = source_name(&p, &part)))
			break;
		if (plen == 12 && !strncmp(part, "_GLOBAL__N_1", 12))
			continue;
		if (len)
			append(s, &len, "::", 2);
		append(s, &len, part, plen);
		if (*p == 'I') {
			int depth = 0;

			do {
				depth += *p == 'I';
				depth -= *p == 'E';
				p++;
			} while (*p && depth > 0);
			append(s, &len, "<\xE2\x80\xA6>", 5);
			*elided = 1;
		}
	} while (nested && *p != 'E' && *p);
	return len > 0;
}

/*
 * Cuts s at its top-level parameter list ("kernel<4>(int)", "...) const");
 * 1 when s is a signature. A name nsys cut ("...<float, (int)4>(const…")
 * is one too, its list cut or not.
 */
static int drop_params(char *s)
{
	size_t len = strlen(s);
	int depth = 0, cut = len > 3 && !strcmp(s + len - 3, "\xE2\x80\xA6");

	if (len > 6 && strcmp(s + len - 6, " const") == 0)
		len -= 6;
	if (!cut && (len == 0 || s[len - 1] != ')'))
		return 0;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '(' && is_anon_ns(s + i))
			i += 20;
		else if (s[i] == '<' && !is_operator_lt(s, i))
			depth++;
		else if (s[i] == '>' && depth > 0 && !(i > 0 && s[i - 1] == '-'))
			depth--;
		else if (s[i] == '(' && depth == 0 && i > 0 && s[i - 1] != ' ') {
			s[i] = '\0';
			return 1;
		}
	}
	return cut;
}

/* Drops a return type: everything up to the last top-level space. */
static void drop_return_type(char *s)
{
	size_t cut = 0;
	int depth = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '(' && is_anon_ns(s + i))
			i += 20;
		else if (s[i] == '<' && !is_operator_lt(s, i))
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (s[i] == ' ' && depth == 0)
			cut = i + 1;
	}
	if (cut > 0 && s[cut])
		memmove(s, s + cut, strlen(s + cut) + 1);
}

/* Removes every top-level "(anonymous namespace)::", nsys's "<unnamed>::" (HTA drops them too). */
static void drop_anon(char *s)
{
	size_t w = 0;
	int depth = 0;

	for (size_t i = 0; s[i];) {
		if (depth == 0 && is_anon_ns(s + i) && !strncmp(s + i + 21, "::", 2)) {
			i += 23;
			continue;
		}
		if (depth == 0 && !strncmp(s + i, "<unnamed>::", 11)) {
			i += 11;
			continue;
		}
		depth += s[i] == '<';
		depth -= s[i] == '>' && depth > 0;
		s[w++] = s[i++];
	}
	s[w] = '\0';
}

/*
 * Each outermost template argument list: kept when short and simple, else
 * "<…>" (*elided set). An unclosed list (a name nsys cut) is closed.
 */
static void templates(char *s, int *elided)
{
	char out[WORK];
	size_t w = 0;

	for (size_t i = 0; s[i];) {
		if (s[i] == '<' && i > 0 && is_ident(s[i - 1]) && !is_operator_lt(s, i)) {
			size_t j = i + 1;
			int depth = 1, simple = 1;

			for (; s[j] && depth > 0; j++) {
				depth += s[j] == '<';
				depth -= s[j] == '>';
				if (s[j] == '<' || s[j] == '(' || (unsigned char)s[j] >= 0x80)
					simple = 0;
			}
			if (depth == 0 && simple && j - i - 2 <= KEEP_ARGS) {
				memcpy(out + w, s + i, j - i);
				w += j - i;
			} else {
				memcpy(out + w, "<\xE2\x80\xA6>", 5);
				w += 5;
				*elided = 1;
			}
			i = j;
			continue;
		}
		out[w++] = s[i++];
	}
	out[w] = '\0';
	memcpy(s, out, w + 1);
}

/* Drops the first top-level scope ("at::" of "at::native::k"); 0 when there is none. */
static int drop_scope(char *s)
{
	int depth = 0;

	for (size_t i = 0; s[i]; i++) {
		depth += s[i] == '<';
		depth -= s[i] == '>' && depth > 0;
		if (depth == 0 && s[i] == ':' && s[i + 1] == ':') {
			memmove(s, s + i + 2, strlen(s + i + 2) + 1);
			return 1;
		}
	}
	return 0;
}

static unsigned hash16(const char *s)
{
	unsigned long h = 2166136261u;	/* FNV-1a, 32 bits, folded */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h = (h * 16777619u) & 0xFFFFFFFFu;
	}
	return (unsigned)((h >> 16) ^ (h & 0xFFFF));
}

/* A "#" and 4 hex digits at the end of s. */
static int has_tag(const char *s)
{
	size_t l = strlen(s);

	if (l < 5 || s[l - 5] != '#')
		return 0;
	for (size_t i = l - 4; i < l; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

char *gl_kname_fit(const char *name, const char *display, size_t max_chars, char *out,
		   size_t n)
{
	char s[WORK], tag[8] = "";

	if (n == 0)
		return out;
	snprintf(s, sizeof(s), "%s", display ? display : "");
	if (has_tag(s)) {
		snprintf(tag, sizeof(tag), "%s", s + strlen(s) - 5);
		s[strlen(s) - 5] = '\0';
	}
	if (max_chars < 12)
		max_chars = 12;
	/* the namespaces go first: the function's own name tells most */
	while (chars(s) + strlen(tag) > max_chars && drop_scope(s))
		;
	if (chars(s) + strlen(tag) > max_chars) {
		if (!tag[0])
			snprintf(tag, sizeof(tag), "#%04x", hash16(name ? name : display));
		memcpy(s + prefix_bytes(s, max_chars - 6), "\xE2\x80\xA6", 4);
	}
	snprintf(out, n, "%s%s", s, tag);
	return out;
}

static char *kname(const char *name, int tagged, char *out, size_t n)
{
	char s[WORK];
	int elided = 0;
	size_t len = 0;

	if (n == 0)
		return out;
	if (!name)
		name = "";
	if (strncmp(name, "_Z", 2) != 0 || !from_mangled(name, s, &elided)) {
		const char *p = name;

		while (*p == ' ')
			p++;
		append(s, &len, p, strlen(p) < WORK ? strlen(p) : WORK - 1);
		while (len > 0 && s[len - 1] == ' ')
			s[--len] = '\0';
		if (drop_params(s))
			drop_return_type(s);
		drop_anon(s);
		templates(s, &elided);
	}
	/* tagged: two kernels of one display name (force_pass_kernel logged plain
	 * by one tool, mangled by another) told apart by what was left out */
	if (elided || (tagged && strcmp(s, name) != 0)) {
		len = strlen(s);
		snprintf(s + len, sizeof(s) - len, "#%04x", hash16(name));
	}
	return gl_kname_fit(name, s, GL_KNAME_MAX, out, n);
}

char *gl_kname_display(const char *name, char *out, size_t n)
{
	return kname(name, 0, out, n);
}

char *gl_kname_distinct(const char *name, char *out, size_t n)
{
	return kname(name, 1, out, n);
}

int gl_kname_tagged(const char *s)
{
	return s && has_tag(s);
}
