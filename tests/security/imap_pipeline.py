#!/usr/bin/python3
# imap_pipeline.py PORTFILE MODE - a hostile IMAP server on 127.0.0.1 for
# t_sec_imap_pipeline.sh. It lists N small messages (UIDs 1..N, N=600, so
# that the source fetches them in three batches, the next UID FETCH sent
# before the answer to the one before is read), answers the first body
# FETCH well, and the second, pipelined one badly, by MODE:
#   flood    untagged FETCH answers (of 1 MiB each) for ever, never the
#            tagged one, on the first connection only (the source then
#            reconnects, fetches one at a time up to the batch that
#            overran, and reads the rest);
#   swap     the second FETCH's whole answer before the first's (the
#            first batch is then answered under the wrong tag);
#   wrongtag the first FETCH answered under a tag that was never sent.
# It serves connections until killed, and writes the port it listens on
# to PORTFILE.
import os, re, sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_server import serve_commands

N = 600
mode = sys.argv[2]


def msg(uid):
    return (b"From: a@example.org\r\nSubject: m %d\r\n"
            b"Message-ID: <pipe-%d@example.org>\r\n\r\nbody %d\r\n" %
            (uid, uid, uid))


def uids(spec):
    out = []
    for part in spec.split(b","):
        a, _, b = part.partition(b":")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def answer_fetch(spec, tag):
    out = b""
    for u in uids(spec):
        m = msg(u)
        out += b"* %d FETCH (UID %d BODY[] {%d}\r\n%s)\r\n" % (u, u, len(m), m)
    return out + tag + b" OK done\r\n"


class Conn:
    def __init__(self):
        self.body_fetches = 0
        self.held = None  # (tag, spec) of a FETCH not answered yet


conns = {}
flooded = []  # the flood is sent once, on the first connection


def answer(c, line):
    st = conns.setdefault(id(c), Conn())
    parts = line.rstrip(b"\r\n").split(b" ")
    tag, cmd = parts[0], b" ".join(parts[1:3]).upper()
    if cmd.startswith(b"CAPABILITY"):
        c.sendall(b"* CAPABILITY IMAP4rev1\r\n" + tag + b" OK done\r\n")
    elif cmd.startswith(b"LOGIN"):
        c.sendall(tag + b" OK logged in\r\n")
    elif cmd.startswith(b"EXAMINE") or cmd.startswith(b"SELECT"):
        conns[id(c)] = st = Conn()
        c.sendall(b"* %d EXISTS\r\n* OK [UIDVALIDITY 7] v\r\n"
                  b"* OK [UIDNEXT %d] n\r\n" % (N, N + 1) + tag +
                  b" OK [READ-ONLY] done\r\n")
    elif cmd.startswith(b"UID FETCH") and b"RFC822.SIZE" in line.upper():
        c.sendall(b"".join(b"* %d FETCH (UID %d RFC822.SIZE %d)\r\n" %
                           (u, u, len(msg(u))) for u in range(1, N + 1)) +
                  tag + b" OK done\r\n")
    elif cmd.startswith(b"UID FETCH"):
        spec = re.match(rb"\S+ UID FETCH (\S+) ", line).group(1)
        st.body_fetches += 1
        if mode == "wrongtag" and st.body_fetches == 1:
            c.sendall(answer_fetch(spec, b"999"))
        elif mode == "swap" and st.body_fetches == 1:
            st.held = (tag, spec)
        elif mode == "swap" and st.body_fetches == 2:
            c.sendall(answer_fetch(spec, tag))
            c.sendall(answer_fetch(st.held[1], st.held[0]))
        elif mode == "flood" and st.body_fetches == 2 and not flooded:
            flooded.append(1)
            big = b"x" * (1 << 20)
            one = b"* 1 FETCH (UID 1 BODY[] {%d}\r\n%s)\r\n" % (len(big), big)
            while True:
                c.sendall(one)
        else:
            c.sendall(answer_fetch(spec, tag))
    elif cmd.startswith(b"LOGOUT"):
        c.sendall(b"* BYE\r\n" + tag + b" OK bye\r\n")
        return False
    else:
        c.sendall(tag + b" OK\r\n")
    return True


serve_commands(sys.argv[1], b"* OK [CAPABILITY IMAP4rev1] hostile\r\n", answer)
