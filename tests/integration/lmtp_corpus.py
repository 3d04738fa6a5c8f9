#!/usr/bin/python3
# lmtp_corpus.py PORT SKIP COUNT [MAILBOX [MBOX.xz]]: delivers messages
# SKIP+1..SKIP+COUNT of the linux-api corpus ($RB_SHARED) to the user bot
# (or bot+MAILBOX) over LMTP on 127.0.0.1:PORT, undoing mboxrd quoting;
# prints how many went. Used by the IMAP tests.
import lzma, os, re, smtplib, sys
port, skip, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rcpt = "bot" if len(sys.argv) < 5 else "bot+" + sys.argv[4]
def msgs():
    cur = None
    corpus = os.path.join(os.environ["RB_SHARED"], "corpus",
                          "linux-api.mbox.xz")
    with lzma.open(sys.argv[5] if len(sys.argv) > 5 else corpus, "rb") as f:
        for line in f:
            if line.startswith(b"From "):
                if cur is not None:
                    yield b"".join(cur)
                cur = []
                continue
            if re.match(rb"^>+From ", line):
                line = line[1:]
            cur.append(line)
    if cur:
        yield b"".join(cur)
lm = smtplib.LMTP("127.0.0.1", port)
n = 0
for i, m in enumerate(msgs()):
    if i < skip:
        continue
    if n >= count:
        break
    lm.sendmail("list@example.org", [rcpt], m)
    n += 1
lm.quit()
print(n)
