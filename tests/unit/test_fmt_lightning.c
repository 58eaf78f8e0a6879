/* Tests for lib/ingest/fmt_lightning.c: Lightning's CSVLogger metrics.csv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_lightning;

static int meta_has(const struct gl_rec *rec, const char *part)
{
	char buf[1024];
	size_t n = rec->ev.metadata.len < sizeof(buf) - 1 ? rec->ev.metadata.len : sizeof(buf) - 1;

	memcpy(buf, rec->ev.metadata.p, n);
	buf[n] = '\0';
	return strstr(buf, part) != NULL;
}

static void test_rows(void **state)
{
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	(void)state;
	gl_parse_ctx_init(&ctx);
	/* '/' in names; the shortest train*loss column is the loss */
	gl_test_parse(&gl_fmt_lightning, &ctx, "epoch,step,train/entropy,train/loss,train/value_loss,val/reward", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	gl_test_parse(&gl_fmt_lightning, &ctx, "0,49,25.98,-0.0228,0.045,", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(meta_has(&rec, "\"step\":49,\"epoch\":0,\"loss\":-0.0228,"));
	gl_test_parse(&gl_fmt_lightning, &ctx, "9,4889,,,,-5.83", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_false(meta_has(&rec, "\"loss\""));
	gl_test_parse(&gl_fmt_lightning, &ctx, "1,99,x,1,2,3", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_parse(&gl_fmt_lightning, &ctx, "1,99,2,1.5,2", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	gl_test_parse(&gl_fmt_lightning, &ctx, "1,99,2,abc,2,", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	gl_parse_ctx_release(&ctx);
	/* a CSV without epoch and step is not Lightning's */
	gl_parse_ctx_init(&ctx);
	gl_test_parse(&gl_fmt_lightning, &ctx, "name,value", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	gl_test_parse(&gl_fmt_lightning, &ctx, "1,2", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	gl_parse_ctx_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
