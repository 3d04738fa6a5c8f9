#!/usr/bin/python3
# imap_phantom.py PORTFILE LOG - a hostile IMAP server on 127.0.0.1 for
# t_sec_imap_phantom.sh: it holds one message (UID 1), announces mail it
# never gives (every EXAMINE and STATUS says UIDNEXT one higher than the
# time before), and offers IDLE. Each command it receives is appended to
# LOG (its verb, one a line). It serves connections until killed, and
# writes the port it listens on to PORTFILE.
import os, sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_server import serve_forever

MSG = (b"From: a@example.org\r\nSubject: phantom\r\n"
       b"Message-ID: <phantom.1@example.org>\r\n\r\nbody\r\n")
log = sys.argv[2]
state = {"next": 2, "idle": None}


def note(verb):
    with open(log, "ab") as f:
        f.write(verb + b"\n")


def answer(c, line):
    if state["idle"] is not None:
        # The line after IDLE is DONE.
        note(b"DONE")
        c.sendall(state["idle"] + b" OK idle done\r\n")
        state["idle"] = None
        return True
    parts = line.rstrip(b"\r\n").split(b" ")
    tag, verb = parts[0], (parts[1] if len(parts) > 1 else b"").upper()
    rest = b" ".join(parts[1:]).upper()
    note(verb)
    if verb == b"CAPABILITY":
        c.sendall(b"* CAPABILITY IMAP4rev1 IDLE\r\n" + tag +
                  b" OK done\r\n")
    elif verb == b"LOGIN":
        c.sendall(tag + b" OK logged in\r\n")
    elif verb in (b"EXAMINE", b"SELECT"):
        state["next"] += 1
        c.sendall(b"* 1 EXISTS\r\n* OK [UIDVALIDITY 7] v\r\n"
                  b"* OK [UIDNEXT %d] n\r\n" % state["next"] + tag +
                  b" OK [READ-ONLY] done\r\n")
    elif verb == b"STATUS":
        state["next"] += 1
        c.sendall(b"* STATUS INBOX (UIDNEXT %d)\r\n" % state["next"] + tag +
                  b" OK done\r\n")
    elif verb == b"UID" and b"RFC822.SIZE" in rest:
        c.sendall(b"* 1 FETCH (UID 1 RFC822.SIZE %d)\r\n" % len(MSG) +
                  tag + b" OK done\r\n")
    elif verb == b"UID" and b"FETCH" in rest:
        c.sendall(b"* 1 FETCH (UID 1 BODY[] {%d}\r\n" % len(MSG) + MSG +
                  b")\r\n" + tag + b" OK done\r\n")
    elif verb == b"IDLE":
        state["idle"] = tag
        c.sendall(b"+ idling\r\n")
    elif verb == b"LOGOUT":
        c.sendall(b"* BYE\r\n" + tag + b" OK bye\r\n")
        return False
    else:
        c.sendall(tag + b" OK\r\n")
    return True


def handle(c):
    # A connection that ended in IDLE leaves nothing to the next one.
    state["idle"] = None
    f = c.makefile("rb")
    c.sendall(b"* OK [CAPABILITY IMAP4rev1 IDLE] phantom\r\n")
    while True:
        line = f.readline()
        if not line or not answer(c, line):
            return


serve_forever(sys.argv[1], handle)
