#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""smtp_script.py - a tiny scripted SMTP server (RFC 5321) on 127.0.0.1
for fault injection, in the manner of curl's test servers: it answers
from a named scenario and writes the client's transcript, so a test can
compare the exact commands the client sent.

usage: smtp_script.py PORT SCENARIO TRANSCRIPT MAILDIR

Scenarios:
  retry   first transaction: 451 to the end of DATA; later ones: 250
  reject  550 5.1.1 to RCPT TO:<linux-mm@kvack.org>
  notls   a plain server (no STARTTLS in the EHLO reply)
  stall   accepts connections and never says a word
  accept  250 to everything
  auth    AUTH PLAIN required, user "bot", password "botpass" (RFC 4954)

The transcript has one line per command ("C: MAIL FROM:<a@b>") and per
reply code ("S: 250"); the message data is not in it. Accepted messages
(dot-unstuffed, byte for byte) are written to MAILDIR/new/N.eml.
Only listens on 127.0.0.1.
"""
import base64
import os
import socket
import sys
import time


def main():
    port, scenario, transcript, maildir = (int(sys.argv[1]), sys.argv[2],
                                           sys.argv[3], sys.argv[4])
    os.makedirs(os.path.join(maildir, "new"), exist_ok=True)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(8)
    log = open(transcript, "a", buffering=1)
    state = {"transactions": 0, "stored": 0}
    held = []
    while True:
        conn, _ = srv.accept()
        if scenario == "stall":
            held.append(conn)  # never answer, never close
            continue
        try:
            session(conn, scenario, log, maildir, state)
        except (ConnectionError, socket.timeout) as e:
            log.write("X: %s\n" % type(e).__name__)
        finally:
            conn.close()


def session(conn, scenario, log, maildir, state):
    conn.settimeout(30)
    f = conn.makefile("rb")

    def reply(text):
        log.write("S: %s\n" % text[:3])
        conn.sendall(text.encode() + b"\r\n")

    log.write("-- connect\n")
    reply("220 script.test ESMTP scripted")
    authed = scenario != "auth"
    while True:
        raw = f.readline(4096)
        if not raw:
            log.write("X: eof\n")
            return
        if not raw.endswith(b"\r\n"):
            log.write("X: line without CRLF: %r\n" % raw)
            reply("500 5.5.2 line without CRLF")
            return
        line = raw[:-2].decode("ascii", "replace")
        verb = line.split(" ", 1)[0].upper()
        # Never log credentials.
        log.write("C: %s\n" % (line if verb != "AUTH" else
                                " ".join(line.split(" ")[:2])))
        if verb in ("EHLO", "HELO"):
            if verb == "EHLO":
                ext = b"250-AUTH PLAIN\r\n" if scenario == "auth" else b""
                conn.sendall(b"250-script.test\r\n250-8BITMIME\r\n" + ext +
                             b"250 SIZE 10485760\r\n")
                log.write("S: 250\n")
            else:
                reply("250 script.test")
        elif verb == "AUTH" and scenario == "auth":
            parts = line.split(" ")
            if len(parts) < 2 or parts[1].upper() != "PLAIN":
                reply("504 5.5.4 mechanism not supported")
                continue
            if len(parts) >= 3:
                resp = parts[2]
            else:
                reply("334 ")
                resp = f.readline(4096).rstrip(b"\r\n").decode("ascii",
                                                               "replace")
                log.write("C: <credentials>\n")
            try:
                ok = base64.b64decode(resp) == b"\0bot\0botpass"
            except ValueError:
                ok = False
            if ok:
                authed = True
                reply("235 2.7.0 Authentication successful")
            else:
                reply("535 5.7.8 Authentication credentials invalid")
        elif verb == "MAIL":
            if authed:
                reply("250 2.1.0 Ok")
            else:
                reply("530 5.7.0 Authentication required")
        elif verb == "RCPT":
            if scenario == "reject" and "<linux-mm@kvack.org>" in line:
                reply("550 5.1.1 no such user")
            else:
                reply("250 2.1.5 Ok")
        elif verb == "DATA":
            reply("354 End data with <CR><LF>.<CR><LF>")
            data = read_data(f, log)
            if data is None:
                return
            state["transactions"] += 1
            if scenario == "retry" and state["transactions"] == 1:
                reply("451 4.3.0 try again later")
            else:
                state["stored"] += 1
                path = os.path.join(maildir, "new",
                                    "%d.eml" % state["stored"])
                with open(path + ".tmp", "wb") as out:
                    out.write(data)
                os.rename(path + ".tmp", path)
                reply("250 2.0.0 Ok: queued as %d" % state["stored"])
        elif verb == "RSET" or verb == "NOOP":
            reply("250 2.0.0 Ok")
        elif verb == "QUIT":
            reply("221 2.0.0 Bye")
            return
        else:
            reply("502 5.5.1 not implemented")


def read_data(f, log):
    """Reads DATA up to the lone dot; undoes dot-stuffing (RFC 5321 4.5.2)."""
    out = bytearray()
    while True:
        raw = f.readline(1 << 20)
        if not raw:
            log.write("X: eof in DATA\n")
            return None
        if raw == b".\r\n":
            return bytes(out)
        if not raw.endswith(b"\r\n") or b"\r" in raw[:-2]:
            log.write("X: bare CR or LF in DATA\n")
        if raw.startswith(b"."):
            raw = raw[1:]
        out += raw


if __name__ == "__main__":
    main()
