// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tmpl.c - the template engine on hostile templates. The input is a
 * template, optionally followed by a NUL byte and JSON data; without
 * usable JSON the data is a fixed object shaped like a review's.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "util/buf.h"
#include "util/tmpl.h"
#include "util/banned.h"

static const char fixed[] =
	"{\"mode\":\"advisory\",\"subsystem\":\"MEMORY MANAGEMENT\","
	"\"n_findings\":2,\"advisory\":true,\"blocking\":false,"
	"\"summary\":[\"checkpatch: clean.\",\"Build: no new warnings.\"],"
	"\"blocks\":[{\"quote\":\"> +\\tfoo();\",\"findings\":[{\"id\":\"F1\","
	"\"severity\":\"medium\",\"message\":\"Is this right?\"}]},"
	"{\"quote\":\"> +\\tbar();\",\"findings\":[{\"id\":\"F2\"}]}],"
	"\"unlocated\":[],\"a\":{\"b\":{\"c\":[1,2,3]}},\"z\":0}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_buf out = RB_BUF_INIT(1 << 20);
	const char *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - (const char *)data) : size;
	json_t *d = NULL;

	if (nul)
		d = json_loadb(nul + 1, size - tlen - 1, JSON_DECODE_ANY, NULL);
	if (!d)
		d = json_loads(fixed, 0, NULL);
	rb_tmpl_render_str(&out, "fuzz.txt", (const char *)data, tlen, d);
	json_decref(d);
	rb_buf_release(&out);
	return 0;
}
