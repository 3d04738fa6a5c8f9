# hostile_server.py - what the hostile test servers of tests/security/
# share: listen on 127.0.0.1 (a port the kernel picks), write that port
# to PORTFILE, and hand each connection to a handler, one at a time,
# until killed. A handler's socket errors end its connection only.
import socket


def serve_forever(portfile, handle):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    with open(portfile, "w") as f:
        f.write(str(srv.getsockname()[1]))
    while True:
        conn, _ = srv.accept()
        try:
            handle(conn)
        except OSError:
            pass
        conn.close()


def serve_commands(portfile, greeting, answer):
    """serve_forever() for a line protocol: each connection gets GREETING,
    then each line the client sends goes to answer(conn, line), until the
    client closes or answer() returns False (the connection is closed)."""

    def handle(c):
        f = c.makefile("rb")
        c.sendall(greeting)
        while True:
            line = f.readline()
            if not line or not answer(c, line):
                return

    serve_forever(portfile, handle)
