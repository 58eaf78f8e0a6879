/*
 * trainline.h - training metrics written as text by the usual trainers,
 * for the text reader (fmt_text.c):
 *     {'loss': 1.1409, 'grad_norm': 2.7575, 'learning_rate': 1.8e-05, 'epoch': 0.91}   (HF Trainer)
 *     {'loss': '10.45', 'grad_norm': '1.087', 'learning_rate': '5e-05', 'epoch': '0.01'}
 *     [Rank 0] step=40, skipped=2, lr=[5e-05], mom=[[0.9, 0.999]]                     (DeepSpeed)
 *     0/40, SamplesPerSec=83.48609168106144, MemAllocated=0.26GB, MaxMemAllocated=9.02GB
 *     iteration     9943/   10000 | ... | elapsed time per iteration (ms): 10206.6 |
 *         learning rate: 1.000722E-05 | ... | lm loss: 2.746864E+00 | ... | grad norm: 0.211 |  (Megatron)
 * and tqdm progress bars:
 *      10%|███████▉          | 549/5490 [05:02<38:38,  2.13it/s]
 */
#ifndef GL_TRAINLINE_H
#define GL_TRAINLINE_H

#include <stddef.h>

/* Values of one logged step; NAN (step: -1) when the line does not give them. */
struct gl_train {
	double step;
	double loss, eval_loss, grad_norm, learning_rate, epoch;
	double iteration_ms, samples_per_s, tokens_per_s;
	const char *source;	/* "hf", "deepspeed", "megatron" */
};

void gl_train_init(struct gl_train *t);

/* A trainer's metrics line in s[0..len): fills t and returns 1, else 0. */
int gl_train_parse(const char *s, size_t len, struct gl_train *t);

struct gl_tqdm {
	size_t start, end;	/* the bar's bytes in the line */
	int has_desc;		/* text before the percentage ("Map: 100%|..."): not the training loop */
	double done, total;	/* 549, 5490 */
	double it_per_s;	/* NAN when cut off or absent */
	double elapsed_s;
};

/* A tqdm bar in s[0..len): fills b and returns 1, else 0. */
int gl_tqdm_parse(const char *s, size_t len, struct gl_tqdm *b);

#endif
