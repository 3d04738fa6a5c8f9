// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_model_tools.c - libFuzzer target for a model's tool calls (review/
 * model_provider.h): an OpenAI "tool_calls" reply, an Anthropic
 * "tool_use" reply, the command protocol's output and a recorded turn,
 * each parsed as one turn of the tool loop with the caps applied.
 *
 * Input: a byte that names the format, then the reply body:
 *   'o' OpenAI   'a' Anthropic   'c' command   anything else: replay
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/model/model_provider.h"
#include "util/err.h"
#include "util/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rb_model_reply r = { 0 };
	const char *provider;
	size_t n = 0;
	char *body;

	if (!size)
		return 0;
	provider = data[0] == 'o' ? "openai" :
		   data[0] == 'a' ? "anthropic" :
		   data[0] == 'c' ? "command" :
				    "replay";
	body = malloc(size);
	if (!body)
		return 0;
	memcpy(body, data + 1, size - 1);
	body[size - 1] = 0;
	if (!rb_model_parse_tool_reply(&r, &n, provider, body, size - 1)) {
		/* The cap on calls a turn holds whatever the model sent. */
		if (n > 8 || !r.text)
			abort();
		rb_model_reply_release(&r);
	}
	free(body);
	return 0;
}
