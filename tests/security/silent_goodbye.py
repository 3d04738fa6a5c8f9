#!/usr/bin/python3
# silent_goodbye.py PORTFILE imap|nntp - a server on 127.0.0.1 for
# t_sec_hostile_server.sh with an empty mailbox (group) that answers
# everything but LOGOUT (QUIT): that it reads and leaves unanswered,
# holding the connection open until the client closes it. It serves
# connections until killed, and writes the port it listens on to
# PORTFILE.
import os, sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_server import serve_commands


def imap(c, line):
    parts = line.rstrip(b"\r\n").split(b" ")
    tag, cmd = parts[0], b" ".join(parts[1:3]).upper()
    if cmd.startswith(b"LOGOUT"):
        return True  # no answer; the next read sees the client close
    if cmd.startswith(b"CAPABILITY"):
        c.sendall(b"* CAPABILITY IMAP4rev1\r\n" + tag + b" OK done\r\n")
    elif cmd.startswith(b"EXAMINE") or cmd.startswith(b"SELECT"):
        c.sendall(b"* 0 EXISTS\r\n* OK [UIDVALIDITY 7] v\r\n"
                  b"* OK [UIDNEXT 1] n\r\n" + tag +
                  b" OK [READ-ONLY] done\r\n")
    else:
        c.sendall(tag + b" OK done\r\n")
    return True


def nntp(c, line):
    cmd = line.strip().split(b" ")[0].upper()
    if cmd == b"QUIT":
        return True  # no answer
    if cmd == b"MODE":
        c.sendall(b"200 reader\r\n")
    elif cmd == b"GROUP":
        c.sendall(b"211 0 1 0 cut.group\r\n")
    else:
        c.sendall(b"500 what\r\n")
    return True


if sys.argv[2] == "imap":
    serve_commands(sys.argv[1], b"* OK [CAPABILITY IMAP4rev1] ready\r\n",
                   imap)
else:
    serve_commands(sys.argv[1], b"200 ready\r\n", nntp)
