#!/usr/bin/python3
# greet_hostile.py PORTFILE MODE GREETING - a hostile server on 127.0.0.1
# for t_sec_hostile_server.sh. With MODE "flood" it sends GREETING and then
# an endless line (64 kB at a time, for ever); with "close" it accepts
# and closes at once, before any greeting. It serves connections until
# killed, and writes the port it listens on to PORTFILE.
import os, sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_server import serve_forever

mode, greeting = sys.argv[2], sys.argv[3].encode()
chunk = b"a" * 65536


def serve(c):
    if mode == "flood":
        c.sendall(greeting)
        while True:
            c.sendall(chunk)


serve_forever(sys.argv[1], serve)
