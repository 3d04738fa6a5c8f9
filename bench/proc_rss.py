#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""proc_rss.py - the CPU time, wall time and memory of a command, for
bench/code-index.sh. Memory is sampled from /proc/PID/status every 20 ms:
the peaks of RssAnon (the heap and other private memory) and RssFile
(mapped files: the code index, libgit2's packs, the libraries) are kept
apart, since a file's pages are the page cache's, shared by every process
that maps them; VmHWM is the kernel's own peak of their sum.

  proc_rss.py run OUT.json CMD...
      runs CMD to its end (its output goes through).
  proc_rss.py daemon OUT.json LOG MAILDIR N CMD...
      runs CMD (a "reviewbot run"), its stderr into LOG, until MAILDIR/new
      holds N mails and LOG says event=run.idle after them; then, 3 s on,
      reads the idle process's memory, and stops it (SIGTERM).

OUT.json: wall, cpu (user + system seconds), peak_anon, peak_file,
hwm (MiB), and for a daemon idle_rss, idle_anon, idle_file (MiB).
"""
import json
import os
import resource
import signal
import subprocess
import sys
import time


def status(pid):
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                    out[k] = int(v.split()[0]) / 1024.0
    except OSError:
        pass
    return out


def cpu(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / tick
    except (OSError, IndexError):
        return None


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "run":
        cmd, log, box, want = sys.argv[3:], None, None, 0
    else:
        log, box, want = sys.argv[3], sys.argv[4], int(sys.argv[5])
        cmd = sys.argv[6:]
    t0 = time.time()
    err = open(log, "wb") if log else None
    p = subprocess.Popen(cmd, stderr=err)
    res = {"peak_anon": 0.0, "peak_file": 0.0, "hwm": 0.0}
    last_cpu = 0.0
    idle_seen = None
    while p.poll() is None:
        s = status(p.pid)
        res["peak_anon"] = max(res["peak_anon"], s.get("RssAnon", 0))
        res["peak_file"] = max(res["peak_file"], s.get("RssFile", 0))
        res["hwm"] = max(res["hwm"], s.get("VmHWM", 0))
        c = cpu(p.pid)
        last_cpu = c if c is not None else last_cpu
        if mode == "daemon":
            try:
                n = len(os.listdir(os.path.join(box, "new")))
            except OSError:
                n = 0
            if n >= want and idle_seen is None:
                with open(log, errors="replace") as f:
                    idle = "event=run.idle" in f.read()
                if idle:
                    idle_seen = time.time()
            if idle_seen and time.time() - idle_seen > 3:
                s = status(p.pid)
                res["idle_rss"] = s.get("VmRSS", 0)
                res["idle_anon"] = s.get("RssAnon", 0)
                res["idle_file"] = s.get("RssFile", 0)
                res["hwm"] = max(res["hwm"], s.get("VmHWM", 0))
                res["wall"] = idle_seen - t0
                res["cpu"] = cpu(p.pid)
                p.send_signal(signal.SIGTERM)
                break
        time.sleep(0.02)
    rc = p.wait()
    if mode == "run":
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        res["cpu"] = r.ru_utime + r.ru_stime
        res["wall"] = time.time() - t0
        res["hwm"] = max(res["hwm"], r.ru_maxrss / 1024.0)
        res["rc"] = rc
    elif "idle_rss" not in res:
        res["rc"] = rc
        res["cpu"] = last_cpu
        res["wall"] = time.time() - t0
    with open(out, "w") as f:
        json.dump(res, f)
    return 0 if mode == "daemon" or rc == 0 else rc


if __name__ == "__main__":
    sys.exit(main())
