#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""model_server.py - a scripted model server on 127.0.0.1 for the tests.

It speaks two wire formats, chosen by the request path:
  - OpenAI Chat Completions: POST .../chat/completions
  - Anthropic Messages:      POST .../messages
and answers from a script file (JSON), re-read whenever its content
changes (the state of used steps and the prompt cache reset then):

  {"steps": [STEP, ...]}

For each request the first step that is not used up and whose "match"
(a substring of the request body) and "kind" ("finder", "verifier", or
"classifier": the feedback stage's reading of a prose answer,
feedback.prose_model) fit is taken; a step is used up unless it says
"repeat": true. No step left: HTTP 500 "script exhausted". A STEP may hold:

  "answer": "text"          the model's answer (content / text block)
  "answer_json": {...}      the same, given as JSON; in either,
                            "{{NONCE}}" becomes the nonce of the
                            request's first data marker: a model that
                            obeys an injection and closes the block
                            it was given
  "verdict": "confirmed"    verifier answer: that verdict for every
                            "Finding N:" of the request (in its
                            findings block)
  "verdict_by_quote": {"substring": "rejected"}
                            another verdict for findings whose block
                            holds the substring
                            Each verdict carries evidence. By default
                            it is only the finding's own quote, file,
                            line and side (old: "base", new: "tip"):
                            what a lazy verifier says, which the bot
                            rejects (review/model/model_evidence.h: evidence
                            must reach beyond the finding's lines);
  "evidence": "auto"        real evidence: the finding's own quote and
                            one more line the verifier was given (a
                            tool result it received, else the diff or
                            functions of its prompt), the nearest that
                            holds the word its category needs (a lock,
                            a free, an allocation), as evidence_of()
                            picks it
  "evidence_from": {"substring": ["text", "@own", ...]}
                            for findings whose block holds the
                            substring: for each "text", the first line
                            the verifier was given that holds it (its
                            tool results first, then its prompt's diff
                            and functions), at its file, side and
                            line; "@own" adds the finding's own quote
  "evidence_by_quote": {"substring": [{"file", "side", "line", "quote"}]}
                            that evidence, as given, for findings whose
                            block holds the substring
  "evidence": "none"        no evidence at all
  "status": 429             HTTP status (default 200)
  "error_type": "..."       error body in the provider's format, e.g.
                            insufficient_quota, overloaded_error
  "headers": {"retry-after": "1"}
  "delay": 2.5              seconds to wait before answering
  "hold": {"in_flight": 2, "seconds": 60}
                            before the delay, wait until that many
                            requests are in flight at once (this one
                            counted), or the seconds pass: a proof of
                            concurrency that does not hang on timing
  "raw_body": "..."         the body as is (broken JSON)
  "huge": 3000000           a body of that many bytes
  "cut": true               the answer stopped at max_tokens
  "usage": [in, out]        token counts (default: bytes / 4)

Tool calling, in each format's own shape (OpenAI "tools"/"tool_calls"
answered by "role: tool" messages; Anthropic "tools"/"tool_use" answered
by "tool_result" blocks):

  "tool_calls": [{"name": "read_file", "arguments": {...}, "id": "x"}]
                            the model calls these tools instead of
                            answering ("answer" is then text beside the
                            calls; "id" is made up when absent;
                            "arguments" given as a string goes out as is).
                            Never taken when the request offers no tools
                            or forbids calls (tool_choice "none").
  "match_result": "text"    taken only when a tool result the client sent
                            back (any turn) holds the substring
  "no_tools": true          taken only when the request offers no tools
                            or forbids calls: the "tools are over" turn

A request whose conversation breaks the format's rules (a tool call
without its result, a result for no call) gets HTTP 400, as the real
APIs answer it. Each log line also holds "tool_results" (every result the
conversation carries, in order: {"id", "content"}), "tools" (the names
offered) and "tool_choice".

Prompt caching, as the providers do it (no step field needed):
  - Anthropic: "system" and message "content" may be arrays of text
    blocks; a block with "cache_control" {"type": "ephemeral"} (at most 4
    in a request, else HTTP 400) ends a prefix the server keeps. The
    reply's usage says what was read from the cache
    (cache_read_input_tokens: the longest kept prefix the request starts
    with), written to it (cache_creation_input_tokens: from there to the
    last mark) and the rest (input_tokens). Each log line holds
    "cache_control": one {"at": "system[0]" | "messages[0].content[1]"
    | ..., "len": characters of the block, "end": its last 60} per mark,
    in request order.
  - OpenAI: the server keeps every prompt (system and messages, in
    order) and reports prompt_tokens_details.cached_tokens: the longest
    prefix shared with an earlier prompt, in whole 128-token steps from
    1024 tokens on.
  A prefix is kept once the request that wrote it is answered (after its
  "delay"), as the real caches are: requests sent at the same time all
  miss. Tokens are four characters; "usage": [in, out] still sets the
  total input.

Every request is logged as one JSON line (time, path, wire format, the
headers that matter, the parsed body) to --log, with "id" (its number,
from 1 in arrival order) and "in_flight" (the ids of the requests
received and not yet answered when it came in): which requests
overlapped, whatever the timing.

  model_server.py --verifier-stdin [--evidence auto|own|none]
                            no server: the verifier's prompt on stdin
                            (the "command" provider's input), its
                            verdicts on stdout, every finding confirmed
                            with that evidence (default auto).

Python standard library only. Listens on 127.0.0.1 only.
"""
import argparse
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
# Requests received and not answered yet (id -> True), for "in_flight".
FLIGHT = {"next": 0, "open": {}}
FLIGHT_CV = threading.Condition(LOCK)
STATE = {"text": None, "steps": [], "used": []}
# Prompt caching: the prefixes kept (Anthropic, by their text) and the
# prompts seen (OpenAI), filled once a reply is sent.
CACHE = {"prefixes": set(), "prompts": []}


def flat(content):
    """The text of a "system" or "content" value: a string, or blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") if isinstance(b, dict) and
                       isinstance(b.get("text"), str) else ""
                       for b in content)
    return ""


def cache_marks(req):
    """Anthropic: each block with cache_control, with the prefix it ends:
    [(where, block text, prefix text)], in request order (tools, system,
    messages)."""
    marks, prefix = [], ""
    for i, t in enumerate(req.get("tools") or []):
        prefix += json.dumps(t, sort_keys=True)
        if isinstance(t, dict) and t.get("cache_control"):
            marks.append(("tools[%d]" % i, json.dumps(t), prefix))
    sysv = req.get("system")
    blocks = sysv if isinstance(sysv, list) else [{"text": sysv or ""}]
    for i, b in enumerate(blocks):
        if not isinstance(b, dict):
            continue
        prefix += "\x00system:" + flat([b])
        if b.get("cache_control"):
            marks.append(("system[%d]" % i, flat([b]), prefix))
    for k, m in enumerate(req.get("messages") or []):
        if not isinstance(m, dict):
            continue
        c = m.get("content")
        blocks = c if isinstance(c, list) else [{"text": flat(c)}]
        prefix += "\x00" + str(m.get("role")) + ":"
        for i, b in enumerate(blocks):
            if not isinstance(b, dict):
                continue
            bt = flat([b]) if b.get("type", "text") == "text" and \
                "text" in b else json.dumps(
                    {x: y for x, y in b.items() if x != "cache_control"},
                    sort_keys=True)
            prefix += bt
            if b.get("cache_control"):
                marks.append(("messages[%d].content[%d]" % (k, i), bt,
                              prefix))
    return marks, prefix


def openai_prompt(req):
    return "".join("\x00%s:%s" % (m.get("role"), flat(m.get("content")))
                   for m in req.get("messages") or []
                   if isinstance(m, dict))


def common_prefix(a, b):
    """The length of the prefix @a and @b share, compared in slices (at C
    speed: prompts are 20-100 KB)."""
    n, i, step = min(len(a), len(b)), 0, 4096
    while i < n and a[i:i + step] == b[i:i + step]:
        i += step
    lo, hi = min(i, n), min(i + step, n)
    start = lo
    while lo < hi:
        mid = (lo + hi) // 2
        if a[start:mid + 1] == b[start:mid + 1]:
            lo = mid + 1
        else:
            hi = mid
    return lo


def cache_usage(fmt, req, total_in):
    """(cache_read, cache_written, keep): the tokens read from and
    written to the cache, and what to keep once the reply is sent."""
    if fmt == "anthropic":
        marks, _ = cache_marks(req)
        read = written = 0
        hit = -1
        for i, (_, _, pre) in enumerate(marks):
            if pre in CACHE["prefixes"]:
                hit = i
        if hit >= 0:
            read = len(marks[hit][2]) // 4
        if marks and hit < len(marks) - 1:
            written = len(marks[-1][2]) // 4 - read
        read = min(read, total_in)
        written = max(0, min(written, total_in - read))
        return read, written, [p for _, _, p in marks]
    prompt = openai_prompt(req)
    best = 0
    for old in CACHE["prompts"]:
        if old[:64] == prompt[:64]:
            best = max(best, common_prefix(old, prompt))
    tokens = best // 4
    cached = tokens // 128 * 128 if tokens >= 1024 else 0
    return min(cached, total_in), 0, [prompt]


def load_script(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text != STATE["text"]:
        steps = json.loads(text).get("steps", []) if text.strip() else []
        STATE.update(text=text, steps=steps, used=[False] * len(steps))
        # A new script is a new case: nothing cached from the last one.
        CACHE["prefixes"].clear()
        del CACHE["prompts"][:]


# What the words of a line say it does, as review/model/model_evidence.c reads
# them: identifiers split at "_", a part that holds or is one of these.
SYNC = ("lock", "mutex", "spin", "rcu", "sem", "atomic", "barrier", "once",
        "smp", "irqsave", "irqrestore", "preempt", "lockdep", "guard")
RELEASE = ("free", "put", "release", "destroy", "drop", "unref", "unmap",
           "close", "del", "remove")
ACQUIRE = ("alloc", "dup", "get", "new", "create", "open", "grab", "hold",
           "map", "pin", "inc", "register", "lookup")
NEEDS = {"locking": SYNC, "deadlock": SYNC, "race": SYNC,
         "use-after-free": RELEASE, "double-free": RELEASE,
         "leak": ACQUIRE, "resource-leak": ACQUIRE,
         "refcount": ACQUIRE + RELEASE}


def has_word(text, words):
    for ident in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        for part in ident.lower().split("_"):
            if part and any(part == w or (len(w) > 3 and w in part)
                            for w in words):
                return True
    return False


def shown_lines(text, results, calls):
    """The tree lines a verifier request carries, as the bot counts them:
    (file, side, line, text), its tool results first (read_file,
    grep, find_definition, find_callers), then the diff, functions and
    tree-context blocks of its prompt."""
    out = []
    for r in results:
        name, args = calls.get(r["id"], (None, {}))
        side = "base" if (args or {}).get("side") == "base" else "tip"
        cur = None
        for i, l in enumerate(r["content"].split("\n")):
            m = re.match(r"^(\S+) at (base|tip), lines \d+-\d+ of \d+:$", l)
            if i == 0 and m:
                cur, side = m.group(1), m.group(2)
                continue
            m = re.match(r"^(\d+)\t(.*)$", l)
            if m and cur:
                out.append((cur, side, int(m.group(1)), m.group(2)))
                continue
            m = re.match(r"^([^:\s]+):(\d+):(.*)$", l)
            if m and name in ("grep", "find_callers", "find_definition"):
                if name == "find_definition":
                    cur = m.group(1)
                    continue
                t = re.sub(r"^ \[[^\]]*\(\)\] ", "", m.group(3))
                out.append((m.group(1), side, int(m.group(2)), t))
    m = re.search(r"<<<DATA-([0-9a-f]{16}) findings\n", text)
    nonce = m.group(1) if m else None
    block, path = None, None
    for l in text.split("\n"):
        if nonce and l.startswith("<<<DATA-%s " % nonce):
            block, path = l.split(" ", 1)[1], None
            continue
        if nonce and l.startswith("DATA-%s>>>" % nonce):
            block = None
            continue
        if block == "diff":
            m = re.match(r"^File: (.*) \([^(]*\)$", l)
            if m:
                path = m.group(1)
                continue
            m = re.match(r"^([ \d]{5}) ([ \d]{5}) ([-+ ])(.*)$", l)
            if m and path:
                if m.group(1).strip():
                    out.append((path, "base", int(m.group(1)), m.group(4)))
                if m.group(2).strip():
                    out.append((path, "tip", int(m.group(2)), m.group(4)))
        elif block == "functions":
            m = re.match(r"^--- (.*): lines \d+-\d+ ", l)
            if m:
                path = m.group(1)
                continue
            m = re.match(r"^ *(\d+) (.*)$", l)
            if m and path:
                out.append((path, "tip", int(m.group(1)), m.group(2)))
        elif block == "tree-context":
            # review/model/model_prefetch.c: "=== WHAT in PATH, lines A-B of
            # the tree after this patch" (tip) or "... of the base tree"
            # (base), numbered lines after; "=== callers of NAME() ..."
            # and find_callers rows (tip).
            if l.startswith("=== callers of "):
                path, tside = "CALLERS", "tip"
                continue
            m = re.match(r"^=== .* in (\S+), lines \d+-\d+ of the "
                         r"(tree after this patch|base tree)", l)
            if m:
                path = m.group(1)
                tside = "tip" if m.group(2).startswith("tree") else "base"
                continue
            if l.startswith("=== "):
                path = None
                continue
            if path == "CALLERS":
                m = re.match(r"^([^:\s]+):(\d+):(.*)$", l)
                if m:
                    t = re.sub(r"^ \[[^\]]*\(\)\] ", "", m.group(3))
                    out.append((m.group(1), "tip", int(m.group(2)), t))
                continue
            m = re.match(r"^ *(\d+) (.*)$", l)
            if m and path:
                out.append((path, tside, int(m.group(1)), m.group(2)))
    return out


def finding_of(block):
    """(file, side, line, quote, category) of a "Finding N:" block."""
    text = "\n".join(block)
    m = re.match(r"Finding \d+: (.*), (old|new) side line (\d+), "
                 r"category (\S+),", block[0])
    q = re.search(r"^Quoted code: (.*?)\nTrigger:", text, re.M | re.S)
    if not m or not q:
        return None
    quote = q.group(1).replace("\n    ", "\n")
    return (m.group(1), "base" if m.group(2) == "old" else "tip",
            int(m.group(3)), quote, m.group(4))


def evidence_of(step, block, text="", results=(), calls=None):
    """The evidence of one "Finding N:" block of the verifier's request."""
    btext = "\n".join(block)
    for k, ev in step.get("evidence_by_quote", {}).items():
        if k in btext:
            return ev
    mode = step.get("evidence", "own")
    if mode == "none":
        return []
    f = finding_of(block)
    if not f:
        return []
    own = {"file": f[0], "side": f[1], "line": f[2], "quote": f[3]}
    shown = shown_lines(text, results, calls or {})
    for k, wants in step.get("evidence_from", {}).items():
        if k not in btext:
            continue
        ev = []
        for w in wants:
            if w == "@own":
                ev.append(own)
                continue
            hit = next((s for s in shown if w in s[3]), None)
            if hit:
                ev.append({"file": hit[0], "side": hit[1], "line": hit[2],
                           "quote": hit[3].strip()})
        return ev
    if mode != "auto":
        return [own]
    # The nearest other line shown with the word the category needs:
    # tool results first, then the finding's file in the prompt.
    need = NEEDS.get(f[4])
    nown = len(f[3].split("\n"))

    owntext = {x.strip() for x in f[3].split("\n")}

    def other(s):
        return s[3].strip() and s[3].strip() not in owntext and not (
            s[0] == f[0] and s[1] == f[1] and f[2] <= s[2] < f[2] + nown)
    cands = [s for s in shown if other(s) and len(re.sub(r"[^\w()]", "",
                                                          s[3])) >= 4]
    # The finding's own line may hold the word (the lock it takes).
    if need and has_word(f[3], need) and f[4] != "double-free":
        need = None
    for pick in (lambda s: need and has_word(s[3], need),
                 lambda s: not need):
        near = sorted((s for s in cands if s[0] == f[0] and pick(s)),
                      key=lambda s: (abs(s[2] - f[2]), s[1] != f[1]))
        far = [s for s in cands if pick(s)]
        hit = (near or far or [None])[0]
        if hit:
            return [own, {"file": hit[0], "side": hit[1], "line": hit[2],
                          "quote": hit[3].strip()}]
    return [own]


def verifier_answer(step, text, results=(), calls=None):
    """The verdicts JSON for the findings block of a verifier request."""
    m = re.search(r"<<<DATA-[0-9a-f]{16} findings\n(.*?)\nDATA-[0-9a-f]{16}>>>",
                  text, re.S)
    body = m.group(1) if m else ""
    verdicts, cur, block = [], None, []
    for line in body.split("\n") + ["Finding end:"]:
        if line.startswith("Finding ") and ":" in line:
            if cur is not None:
                v = step["verdict"]
                for k, kv in step.get("verdict_by_quote", {}).items():
                    if k in "\n".join(block):
                        v = kv
                        break
                verdicts.append({"id": cur, "verdict": v,
                                 "reason": step.get("reason", "scripted"),
                                 "evidence": evidence_of(
                                     step, block, text, results, calls)})
            num = line[8:line.index(":")]
            cur = int(num) if num.isdigit() else None
            block = []
        block.append(line)
    return json.dumps({"verdicts": verdicts})


def pick(kind, body, results, can_call):
    for i, s in enumerate(STATE["steps"]):
        if STATE["used"][i]:
            continue
        if "kind" in s and s["kind"] != kind:
            continue
        if "match" in s and s["match"] not in body:
            continue
        if "tool_calls" in s and not can_call:
            continue
        if s.get("no_tools") and can_call:
            continue
        if "match_result" in s and not any(
                s["match_result"] in r["content"] for r in results):
            continue
        if not s.get("repeat"):
            STATE["used"][i] = True
        return s
    return None


def error_body(fmt, etype, status):
    msg = {
        "insufficient_quota": "You exceeded your current quota, please "
        "check your plan and billing details.",
        "overloaded_error": "Overloaded",
        "rate_limit_error": "Rate limited",
    }.get(etype, "error %d" % status)
    if fmt == "anthropic":
        return {"type": "error", "error": {"type": etype, "message": msg}}
    return {"error": {"message": msg, "type": etype, "code": etype}}


def ok_body(fmt, text, usage, cut=False, calls=None, cache=(0, 0)):
    calls = calls or []
    if fmt == "anthropic":
        content = [{"type": "text", "text": text}] if text or not calls \
            else []
        for c in calls:
            content.append({"type": "tool_use", "id": c["id"],
                            "name": c["name"], "input": c["arguments"]})
        stop = "max_tokens" if cut else "tool_use" if calls else "end_turn"
        return {"id": "msg_test", "type": "message", "role": "assistant",
                "content": content, "stop_reason": stop,
                "usage": {"input_tokens": max(0, usage[0] - cache[0] -
                                              cache[1]),
                          "cache_read_input_tokens": cache[0],
                          "cache_creation_input_tokens": cache[1],
                          "output_tokens": usage[1]}}
    msg = {"role": "assistant", "content": text if text or not calls
           else None}
    if calls:
        msg["tool_calls"] = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"],
                          "arguments": c["arguments"]
                          if isinstance(c["arguments"], str)
                          else json.dumps(c["arguments"])}}
            for c in calls]
    finish = "length" if cut else "tool_calls" if calls else "stop"
    return {"id": "chatcmpl-test", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": msg}],
            "usage": {"prompt_tokens": usage[0],
                      "completion_tokens": usage[1],
                      "prompt_tokens_details": {"cached_tokens": cache[0]}}}


def tool_state(fmt, req):
    """The tool results a request carries, the tools it offers, whether
    the model may call one, and what breaks the format's rules (or None).
    """
    results, pending, bad, calls = [], [], None, {}
    tools = [t.get("name") or (t.get("function") or {}).get("name")
             for t in req.get("tools") or [] if isinstance(t, dict)]
    choice = req.get("tool_choice")
    can_call = bool(tools) and choice not in ("none", {"type": "none"})
    for m in req.get("messages") or []:
        if not isinstance(m, dict):
            continue
        role, c = m.get("role"), m.get("content")
        if fmt == "openai":
            if role == "tool":
                tid = m.get("tool_call_id")
                if tid not in pending:
                    bad = bad or "tool message for no call: %s" % tid
                else:
                    pending.remove(tid)
                results.append({"id": tid, "content": c if
                                isinstance(c, str) else json.dumps(c)})
                continue
            if pending:
                bad = bad or "tool calls without results: %s" % pending
            if role == "assistant":
                pending = [t.get("id") for t in m.get("tool_calls") or []]
                for t in m.get("tool_calls") or []:
                    fn = t.get("function") or {}
                    try:
                        args = json.loads(fn.get("arguments") or "{}")
                    except ValueError:
                        args = {}
                    calls[t.get("id")] = (fn.get("name"), args)
            continue
        blocks = c if isinstance(c, list) else []
        if role == "user":
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    tid = b.get("tool_use_id")
                    if tid not in pending:
                        bad = bad or "tool_result for no tool_use: %s" % tid
                    else:
                        pending.remove(tid)
                    bc = b.get("content")
                    results.append({"id": tid, "content": bc if
                                    isinstance(bc, str) else
                                    json.dumps(bc)})
            if pending:
                bad = bad or "tool_use without tool_result: %s" % pending
            pending = []
        elif role == "assistant":
            if pending:
                bad = bad or "tool_use without tool_result: %s" % pending
            pending = [b.get("id") for b in blocks if isinstance(b, dict)
                       and b.get("type") == "tool_use"]
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    calls[b.get("id")] = (b.get("name"), b.get("input"))
            if pending and not tools:
                bad = bad or "tool_use blocks but no tools defined"
    if pending:
        bad = bad or "the last tool calls have no results: %s" % pending
    return results, tools, choice, can_call, bad, calls


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, headers=None):
        data = body if isinstance(body, bytes) else \
            json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, str(v))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n).decode("utf-8", "replace")
        fmt = "anthropic" if self.path.endswith("/messages") else "openai"
        try:
            req = json.loads(raw)
        except ValueError:
            req = None
        text = raw
        marks = []
        if isinstance(req, dict):
            # Block arrays (prompt caching) read as their text; only the
            # first user message and the system prompt, as before.
            parts = [flat(req.get("system"))]
            for m in req.get("messages") or []:
                c = m.get("content") if isinstance(m, dict) else None
                parts.append(c if isinstance(c, str) else
                             flat(c) if isinstance(m, dict) and
                             m.get("role") == "user" and m is
                             (req.get("messages") or [None])[0] else "")
            text = "\n".join(p if isinstance(p, str) else ""
                             for p in parts)
            if fmt == "anthropic":
                marks = cache_marks(req)[0]
        kind = "verifier" if '"verdicts"' in text else \
            "classifier" if '"prose_verdict"' in text else "finder"
        results, tools, choice, can_call, bad, calls = \
            tool_state(fmt, req) if isinstance(req, dict) else \
            ([], [], None, False, None, {})
        if len(marks) > 4:
            bad = bad or "more than 4 blocks with cache_control"
        entry = {"t": time.time(), "path": self.path, "format": fmt,
                 "kind": kind,
                 "authorization": self.headers.get("Authorization"),
                 "x-api-key": self.headers.get("x-api-key"),
                 "anthropic-version": self.headers.get("anthropic-version"),
                 "tool_results": results, "tools": tools,
                 "tool_choice": choice, "bad": bad,
                 "cache_control": [{"at": at, "len": len(bt),
                                    "end": bt[-60:]}
                                   for at, bt, _ in marks],
                 "body": req}
        with LOCK:
            FLIGHT["next"] += 1
            rid = FLIGHT["next"]
            entry["id"] = rid
            entry["in_flight"] = sorted(FLIGHT["open"])
            FLIGHT["open"][rid] = True
            FLIGHT_CV.notify_all()
        try:
            self.answer(raw, fmt, req, text, marks, kind, results, tools,
                        choice, can_call, bad, calls, entry)
        finally:
            with LOCK:
                FLIGHT["open"].pop(rid, None)
                FLIGHT_CV.notify_all()

    def answer(self, raw, fmt, req, text, marks, kind, results, tools,
               choice, can_call, bad, calls, entry):
        with LOCK:
            load_script(self.server.script)
            step = None if bad else pick(kind, text, results, can_call)
            with open(self.server.log, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")
            # The cache as the request finds it when it comes in.
            total_in = (step or {}).get("usage", [len(text) // 4])[0]
            cached = cache_usage(fmt, req, total_in) \
                if isinstance(req, dict) else (0, 0, [])
        if req is None or bad:
            self.send(400, error_body(fmt, "invalid_request_error", 400))
            return
        if step is None:
            self.send(500, error_body(fmt, "script exhausted", 500))
            return
        hold = step.get("hold")
        if hold:
            end = time.time() + hold.get("seconds", 60)
            with FLIGHT_CV:
                while len(FLIGHT["open"]) < hold.get("in_flight", 2) and \
                        time.time() < end:
                    FLIGHT_CV.wait(max(0.01, end - time.time()))
        time.sleep(step.get("delay", 0))
        status = step.get("status", 200)
        headers = step.get("headers", {})
        if "raw_body" in step:
            self.send(status, step["raw_body"].encode(), headers)
        elif "huge" in step:
            pad = b'{"choices":[{"message":{"content":"' + \
                b"x" * step["huge"] + b'"}}]}'
            self.send(status, pad, headers)
        elif "error_type" in step or status >= 400:
            self.send(status, error_body(fmt, step.get("error_type", ""),
                                         status), headers)
        else:
            if "verdict" in step:
                # One verdict per "Finding N:" block; verdict_by_quote
                # maps a substring of the block to its own verdict.
                answer = verifier_answer(step, text, results, calls)
            elif "answer_json" in step:
                answer = json.dumps(step["answer_json"])
            else:
                answer = step.get("answer", "")
            m = re.search(r"<<<DATA-([0-9a-f]{16}) ", text)
            if m:
                answer = answer.replace("{{NONCE}}", m.group(1))
            calls = []
            for k, c in enumerate(step.get("tool_calls") or []):
                calls.append({"id": c.get("id", "%s_%d_%d" % (
                    "toolu" if fmt == "anthropic" else "call",
                    len(results), k)),
                    "name": c.get("name"),
                    "arguments": c.get("arguments", {})})
            # Tokens: as given, else about four bytes a token.
            usage = step.get("usage", [len(text) // 4, len(answer) // 4])
            read, written, keep = cached
            self.send(status, ok_body(fmt, answer, usage,
                                      step.get("cut", False), calls,
                                      (read, written)),
                      headers)
            # Kept once answered: a request sent meanwhile missed it.
            with LOCK:
                if fmt == "anthropic":
                    CACHE["prefixes"].update(keep)
                else:
                    CACHE["prompts"].extend(keep)
                    del CACHE["prompts"][:-64]


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that gave up (a timeout, a capped reply) is expected.
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int)
    ap.add_argument("--script")
    ap.add_argument("--log")
    ap.add_argument("--verifier-stdin", action="store_true")
    ap.add_argument("--evidence", default="auto")
    a = ap.parse_args()
    if a.verifier_stdin:
        print(verifier_answer({"verdict": "confirmed",
                               "evidence": a.evidence},
                              sys.stdin.read()))
        return
    if a.port is None or not a.script or not a.log:
        ap.error("--port, --script and --log are required")
    srv = Server(("127.0.0.1", a.port), Handler)
    srv.script = a.script
    srv.log = a.log
    srv.serve_forever()


if __name__ == "__main__":
    main()
