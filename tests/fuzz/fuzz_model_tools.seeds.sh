#!/bin/bash
# fuzz_model_tools.seeds.sh DIR - seeds for the tool-call parsers: one
# reply of each format with calls, with text, and with the odd shapes a
# hostile model may send (a bad id, a bad name, an input that is not an
# object, too many calls).
set -eu
dir=$1
printf 'o{"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"mm/foo.c\\", \\"start\\": 10}"}}]}}], "usage": {"prompt_tokens": 10, "completion_tokens": 2}}' > "$dir/o1"
printf 'o{"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "{\\"findings\\": []}"}}]}' > "$dir/o2"
printf 'o{"choices": [{"message": {"tool_calls": [{"id": "a b", "function": {"name": "x y", "arguments": 7}}, {"id": "a b"}, {}, {"function": {"name": "grep", "arguments": "{}"}}]}}]}' > "$dir/o3"
printf 'a{"content": [{"type": "text", "text": "Reading."}, {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"pattern": "foo_setup"}}], "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 1}}' > "$dir/a1"
printf 'a{"content": [{"type": "tool_use", "id": "", "name": "", "input": [1, 2]}, {"type": "tool_use", "input": "s"}], "stop_reason": "max_tokens"}' > "$dir/a2"
# Prompt caching: what each provider says it read from (or wrote to) its
# cache, and absurd counts.
printf 'o{"choices": [{"finish_reason": "stop", "message": {"content": "{}"}}], "usage": {"prompt_tokens": 4000, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 3072}}}' > "$dir/o5"
printf 'a{"content": [{"type": "text", "text": "{}"}], "stop_reason": "end_turn", "usage": {"input_tokens": 12, "cache_read_input_tokens": 9000, "cache_creation_input_tokens": -5, "output_tokens": 1}}' > "$dir/a3"
printf 'a{"content": [{"type": "text", "text": "{}"}], "usage": {"input_tokens": 1e30, "cache_read_input_tokens": "x", "cache_creation_input_tokens": 9223372036854775807}}' > "$dir/a4"
printf 'c{"tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "a.c"}}], "content": "why"}' > "$dir/c1"
printf 'c{"findings": []}' > "$dir/c2"
printf 'r{"text": "", "tool_calls": [{"id": "rb_call_0", "name": "invalid_name", "arguments": "{}", "refused": "error: no tool has that name"}], "dropped_calls": 3, "tokens_in": 1}' > "$dir/r1"
{
	printf 'o{"choices": [{"message": {"tool_calls": ['
	for i in $(seq 1 20); do
		printf '{"id": "c%d", "function": {"name": "grep", "arguments": "{}"}},' "$i"
	done
	printf '{}]}}]}'
} > "$dir/o4"
