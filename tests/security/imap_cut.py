#!/usr/bin/python3
# imap_cut.py PORTFILE - a hostile IMAP server on 127.0.0.1 for
# t_sec_hostile_server.sh: it lists one message, then answers the body
# FETCH with a literal it announces at 5,000 bytes, sends 100 of them and
# closes the connection. It serves connections until killed, and writes
# the port it listens on to PORTFILE.
import os, socket, sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_server import serve_commands

MSG = b"From: a@example.org\r\nSubject: x\r\nMessage-ID: <cut@x>\r\n\r\n" + b"y" * 4000


def answer(c, line):
    parts = line.rstrip(b"\r\n").split(b" ")
    tag, cmd = parts[0], b" ".join(parts[1:3]).upper()
    if cmd.startswith(b"CAPABILITY"):
        c.sendall(b"* CAPABILITY IMAP4rev1\r\n" + tag + b" OK done\r\n")
    elif cmd.startswith(b"LOGIN"):
        c.sendall(tag + b" OK logged in\r\n")
    elif cmd.startswith(b"EXAMINE") or cmd.startswith(b"SELECT"):
        c.sendall(b"* 1 EXISTS\r\n* OK [UIDVALIDITY 7] v\r\n"
                  b"* OK [UIDNEXT 2] n\r\n" + tag +
                  b" OK [READ-ONLY] done\r\n")
    elif cmd.startswith(b"UID FETCH") and b"RFC822.SIZE" in line.upper():
        c.sendall(b"* 1 FETCH (UID 1 RFC822.SIZE %d)\r\n" % len(MSG) +
                  tag + b" OK done\r\n")
    elif cmd.startswith(b"UID FETCH"):
        c.sendall(b"* 1 FETCH (UID 1 BODY[] {%d}\r\n" % len(MSG) + MSG[:100])
        c.shutdown(socket.SHUT_RDWR)
        return False
    elif cmd.startswith(b"LOGOUT"):
        c.sendall(b"* BYE\r\n" + tag + b" OK bye\r\n")
        return False
    else:
        c.sendall(tag + b" OK\r\n")
    return True


serve_commands(sys.argv[1], b"* OK [CAPABILITY IMAP4rev1] hostile\r\n", answer)
