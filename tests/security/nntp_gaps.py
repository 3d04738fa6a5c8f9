#!/usr/bin/python3
# nntp_gaps.py PORTFILE - a hostile NNTP server on 127.0.0.1 for
# t_sec_hostile_server.sh: its group claims a high-water mark near 2^63
# and it answers every ARTICLE with 423 (no such article), so that a
# client that reads up to the mark never ends its pass. It serves
# connections until killed, and writes the port it listens on to PORTFILE.
import os, sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_server import serve_commands


def answer(c, line):
    cmd = line.strip().split(b" ")[0].upper()
    if cmd == b"MODE":
        c.sendall(b"200 reader\r\n")
    elif cmd == b"GROUP":
        c.sendall(b"211 9223372036854775000 1 9223372036854775000 cut.group\r\n")
    elif cmd == b"ARTICLE":
        c.sendall(b"423 no such article\r\n")
    elif cmd == b"QUIT":
        c.sendall(b"205 bye\r\n")
        return False
    else:
        c.sendall(b"500 what\r\n")
    return True


serve_commands(sys.argv[1], b"200 hostile ready\r\n", answer)
