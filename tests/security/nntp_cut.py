#!/usr/bin/python3
# nntp_cut.py PORTFILE - a hostile NNTP server on 127.0.0.1 for
# t_sec_hostile_server.sh: its group holds one article, and it answers
# ARTICLE with "220", sends part of the article without the closing "."
# line and closes the connection. It serves connections until killed,
# and writes the port it listens on to PORTFILE.
import os, socket, sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_server import serve_commands

ART = (b"From: a@example.org\r\nSubject: x\r\nMessage-ID: <cut@x>\r\n\r\n" +
       b"y" * 70 + b"\r\n") * 20


def answer(c, line):
    cmd = line.strip().split(b" ")[0].upper()
    if cmd == b"MODE":
        c.sendall(b"200 reader\r\n")
    elif cmd == b"GROUP":
        c.sendall(b"211 1 1 1 cut.group\r\n")
    elif cmd == b"ARTICLE":
        c.sendall(b"220 1 <cut@x> article\r\n" + ART[:300])
        c.shutdown(socket.SHUT_RDWR)
        return False
    elif cmd == b"QUIT":
        c.sendall(b"205 bye\r\n")
        return False
    else:
        c.sendall(b"500 what\r\n")
    return True


serve_commands(sys.argv[1], b"200 hostile ready\r\n", answer)
