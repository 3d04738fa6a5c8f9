// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_guides.c - hostile patch text through the choice of the subsystem
 * guides (rb_guide_applies(), review/model/guides.h): the symbol search over
 * the added and removed lines and the moved-line test. The input is not
 * NUL-terminated, so a read past its end shows up in ASan. The guides are
 * the project's own (RB_SRC/review/guides), loaded once.
 * Seeds: the patch mails of corpus/apply-6.1 and the seed series
 * (fuzz_guides.seeds.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/apply/diff.h"
#include "review/model/guides.h"
#include "util/banned.h"

static struct rb_guides guides;
static int loaded;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const secs[] = { "MEMORY MANAGEMENT" };
	struct rb_guides_query q = { 0 };
	struct rb_diff *d = NULL;
	const char **paths = NULL;
	char *copy;
	size_t i;

	if (!loaded) {
		const char *src = getenv("RB_SRC");
		char dir[4096];

		snprintf(dir, sizeof(dir), "%s/review/guides", src ? src : ".");
		if (rb_guides_load(&guides, dir))
			abort(); /* the project's guides always load */
		loaded = 1;
	}
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	q.patch = copy;
	q.patch_len = size;
	if (size && (data[0] & 1)) {
		q.sections = secs;
		q.n_sections = 1;
	}
	if (!rb_diff_parse(&d, copy, size)) {
		paths = calloc(d->n_files + 1, sizeof(*paths));
		for (i = 0; paths && i < d->n_files; i++)
			paths[i] = rb_diff_file_path(&d->files[i]);
		q.paths = paths;
		q.n_paths = paths ? d->n_files : 0;
	}
	for (i = 0; i < guides.n; i++) {
		const char *why = NULL;

		if (rb_guide_applies(&guides.v[i], &q, &why) && !why)
			abort(); /* a guide chosen says why */
	}
	free(paths);
	rb_diff_free(d);
	free(copy);
	return 0;
}
