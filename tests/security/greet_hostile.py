#!/usr/bin/python3
# greet_hostile.py PORTFILE MODE GREETING - a hostile server on 127.0.0.1
# for t_sec_greeting.sh. With MODE "flood" it sends GREETING and then
# an endless line (64 kB at a time, for ever); with "close" it accepts
# and closes at once, before any greeting. It serves connections until
# killed, and writes the port it listens on to PORTFILE.
import socket, sys

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(4)
with open(sys.argv[1], "w") as f:
    f.write(str(srv.getsockname()[1]))
mode, greeting = sys.argv[2], sys.argv[3].encode()
chunk = b"a" * 65536
while True:
    c, _ = srv.accept()
    try:
        if mode == "flood":
            c.sendall(greeting)
            while True:
                c.sendall(chunk)
    except OSError:
        pass
    c.close()
