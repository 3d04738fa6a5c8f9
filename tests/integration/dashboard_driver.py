#!/usr/bin/python3
# dashboard_driver.py - drives headless Chromium through chromedriver's
# W3C WebDriver protocol (plain HTTP and JSON on 127.0.0.1, no Selenium):
# opens dashboard pages, reads elements' text, counts elements, keeps
# screenshots. Each command line argument is one step:
#
#   open:URL                 load URL
#   text:CSS=SUBSTRING       the first element matching CSS (no "=" in it)
#                            contains SUBSTRING
#   count:CSS=N              exactly N elements match CSS
#   shot:FILE                save a PNG screenshot of the page
#   fit:WIDTH                the page is no wider than WIDTH CSS pixels
#                            (no horizontal scrolling in the window)
#   click:CSS                click the first element matching CSS (a link
#                            or a form's button) and wait for the page
#   type:CSS=TEXT            type TEXT into the first element matching CSS
#
# The window is 1280 pixels wide (RB_WINDOW=WxH to change it). Scripts
# run by WebDriver itself are not the page's: the pages' CSP forbids any
# script of theirs, and "count:script=0" checks they carry none.
#
# usage: dashboard_driver.py DRIVER_PORT USER_DATA_DIR STEP...
import base64
import json
import os
import sys
import time
import urllib.request

port, profile, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
base = "http://127.0.0.1:%s" % port


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())["value"]
    except urllib.error.HTTPError as e:
        raise SystemExit("webdriver %s %s: %s" % (method, path,
                                                  e.read().decode()[:500]))


def script(src):
    return call("POST", "/session/%s/execute/sync" % sid,
                {"script": src, "args": []})


def wait_new_page():
    """True once the marked document is gone and the new one has loaded
    (within 60 s: a budget, not a timing assumption)."""
    for _ in range(600):
        try:
            if script("return !window.rbOld &&"
                      " document.readyState === 'complete';"):
                return True
        except SystemExit:
            pass  # the document went away under the script: try again
        time.sleep(0.1)
    return False


flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync",
         "--user-data-dir=" + profile,
         "--window-size=" + os.environ.get("RB_WINDOW", "1280,1000")]
caps = {"capabilities": {"alwaysMatch": {
    "browserName": "chrome",
    "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": flags}}}}
sid = call("POST", "/session", caps)["sessionId"]
fail = None
try:
    for step in steps:
        kind, arg = step.split(":", 1)
        if kind == "open":
            call("POST", "/session/%s/url" % sid, {"url": arg})
            print("opened", arg, "title:", call("GET", "/session/%s/title" % sid))
        elif kind in ("text", "count"):
            css, want = arg.split("=", 1)
            els = call("POST", "/session/%s/elements" % sid,
                       {"using": "css selector", "value": css})
            if kind == "count":
                if len(els) != int(want):
                    fail = "%s: %d elements, want %s" % (css, len(els), want)
                    break
                print("count", css, len(els))
                continue
            if not els:
                fail = "%s: no such element" % css
                break
            eid = list(els[0].values())[0]
            text = call("GET", "/session/%s/element/%s/text" % (sid, eid))
            if want not in text:
                fail = "%s: %r does not contain %r" % (css, text, want)
                break
            print("text", css, repr(text[:80]))
        elif kind == "fit":
            w = call("POST", "/session/%s/execute/sync" % sid, {
                "script": "return [document.documentElement.scrollWidth,"
                          " window.innerWidth];", "args": []})
            if w[0] > int(arg) or w[0] > w[1]:
                fail = "the page is %d px wide in a %d px window (max %s)" % (
                    w[0], w[1], arg)
                break
            print("fit", w[0], "px in", w[1])
        elif kind in ("click", "type"):
            css, text = (arg.split("=", 1) + [""])[:2] if kind == "type" \
                else (arg, "")
            els = call("POST", "/session/%s/elements" % sid,
                       {"using": "css selector", "value": css})
            if not els:
                fail = "%s: no such element" % css
                break
            eid = list(els[0].values())[0]
            if kind == "type":
                call("POST", "/session/%s/element/%s/value" % (sid, eid),
                     {"text": text})
            else:
                # A form's submit may start its navigation after the
                # click returns: the old document is marked, and the
                # click ends when a new one has loaded (else a step
                # after it reads the old page, or none, when the
                # machine is busy).
                script("window.rbOld = true; return 0;")
                call("POST", "/session/%s/element/%s/click" % (sid, eid), {})
                if not wait_new_page():
                    fail = "%s: no new page loaded after the click" % css
                    break
            print(kind, css, "->", call("GET", "/session/%s/url" % sid))
        elif kind == "shot":
            png = base64.b64decode(call("GET", "/session/%s/screenshot" % sid))
            if png[:8] != b"\x89PNG\r\n\x1a\n":
                fail = "the screenshot is not a PNG"
                break
            open(arg, "wb").write(png)
            print("screenshot", arg, len(png), "bytes")
        else:
            fail = "unknown step " + step
            break
finally:
    call("DELETE", "/session/%s" % sid)
if fail:
    raise SystemExit("FAIL: " + fail)
