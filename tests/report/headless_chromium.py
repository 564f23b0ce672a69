"""One headless Chromium for a whole browser test, driven over the DevTools protocol.

Starting Chromium costs 2-3 s on the 2-core CI machine; a test that loads, measures and
photographs a dozen pages paid that a dozen times (the HTML report's browser test took 90 s).
Here one browser serves every page: `--remote-debugging-pipe` gives the protocol on the child's
file descriptors 3 (commands in) and 4 (replies and events out), JSON messages ended by a NUL.
Everything it needs is in Python's standard library.

    with Browser(executable) as browser:
        page = browser.open(url, width=1400, height=900)  # fails on any console message
        page.dom()                     # the DOM as the browser built it, serialised
        page.evaluate("document.title")
        page.screenshot(path, element_id="summary", width=1100, height=800)

A page counts as clean when, from the navigation until the call that reads it, the browser
reported nothing on its console: no console.* call, no uncaught exception, and no log entry
(a blocked script, a Content-Security-Policy violation and a failed load are log entries).
`self_test()` proves the net holds: a page that breaks each rule must be caught.
"""

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time

WAIT_SECONDS = 60


class BrowserError(Exception):
    pass


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    def __init__(self, executable):
        self.profile = tempfile.mkdtemp(prefix="kerntime-chromium-")
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()

        def wire_pipes():  # in the child, before exec: the protocol's descriptors 3 and 4
            # Moved above 9 first, so dup2 always makes a new, inheritable descriptor even where
            # a pipe end already is 3 or 4.
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_read, replies_write)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
            close_fds=False, preexec_fn=wire_pipes)
        os.close(commands_read)
        os.close(replies_write)
        self.next_id = 0
        self.answers = {}
        self.events = []
        self.incoming = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        pending = b""
        while True:
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                self.incoming.put(None)
                return
            pending += chunk
            *messages, pending = pending.split(b"\0")
            for message in messages:
                self.incoming.put(json.loads(message))

    def _take(self, deadline):
        left = deadline - time.monotonic()
        try:
            message = self.incoming.get(timeout=max(left, 0.001))
        except queue.Empty:
            raise BrowserError(f"Chromium did not answer within {WAIT_SECONDS} s") from None
        if message is None:
            self.stderr.seek(0)
            tail = self.stderr.read().decode(errors="replace")[-800:]
            raise BrowserError(f"Chromium closed the protocol pipe (exit {self.process.poll()}): {tail}")
        if "id" in message:
            self.answers[message["id"]] = message
        else:
            self.events.append(message)

    def call(self, method, session=None, **params):
        self.next_id += 1
        ident = self.next_id
        message = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + WAIT_SECONDS
        while ident not in self.answers:
            self._take(deadline)
        answer = self.answers.pop(ident)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}")
        return answer.get("result", {})

    def wait_for(self, method, session, **params):
        """The first event `method` of the session, with these params, not yet taken."""
        deadline = time.monotonic() + WAIT_SECONDS
        seen = 0
        while True:
            for index in range(seen, len(self.events)):
                event = self.events[index]
                if (event.get("method") == method and event.get("sessionId") == session and
                        all(event["params"].get(k) == v for k, v in params.items())):
                    del self.events[index]
                    return event
            seen = len(self.events)
            self._take(deadline)

    def open(self, url, width, height):
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session)
        # The load event of this navigation (its loader), not a late one of about:blank.
        self.call("Page.setLifecycleEventsEnabled", session, enabled=True)
        page = Page(self, target, session, url)
        page.resize(width, height)
        start = time.monotonic()
        navigated = self.call("Page.navigate", session, url=url)
        if navigated.get("errorText"):
            raise BrowserError(f"{url} did not load: {navigated['errorText']}")
        self.wait_for("Page.lifecycleEvent", session, name="load", loaderId=navigated["loaderId"])
        page.load_seconds = time.monotonic() - start
        return page

    def close(self):
        if self.process.poll() is None:
            try:
                os.write(self.commands, json.dumps({"id": 0, "method": "Browser.close"}).encode()
                         + b"\0")
                self.process.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        os.close(self.commands)
        self.reader.join(timeout=5)
        os.close(self.replies)
        self.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


class Page:
    def __init__(self, browser, target, session, url):
        self.browser, self.target, self.session, self.url = browser, target, session, url
        self.load_seconds = None

    def console(self):
        """What the browser said on this page's console so far, one line per message."""
        said = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled":
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
                said.append(f"console.{params['type']}: {args}")
            elif event["method"] == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                thrown = details.get("exception", {}).get("description", "")
                said.append(f"exception: {details.get('text')} {thrown}")
            elif event["method"] == "Log.entryAdded":
                entry = params["entry"]
                said.append(f"{entry['level']} ({entry['source']}): {entry['text']}")
        return said

    def check_quiet(self):
        said = self.console()
        if said:
            raise BrowserError(f"console messages on {self.url}: {said[:5]}")

    def resize(self, width, height):
        self.browser.call("Emulation.setDeviceMetricsOverride", self.session, width=width,
                          height=height, deviceScaleFactor=1, mobile=False)

    def evaluate(self, expression):
        done = self.browser.call("Runtime.evaluate", self.session, expression=expression,
                                 returnByValue=True)
        if "exceptionDetails" in done:
            raise BrowserError(f"{expression[:60]}: {done['exceptionDetails'].get('text')}")
        return done["result"].get("value")

    def dom(self):
        self.check_quiet()
        return self.evaluate("document.documentElement.outerHTML")

    def screenshot(self, path, width, height, element_id=None):
        """A PNG of the top `height` px of the element (the page when None) at a window
        `width` px wide."""
        self.resize(width, height)
        if element_id is None:
            clip = [0, 0, width, height]
        else:
            clip = self.evaluate(
                f"(() => {{ const e = document.getElementById({json.dumps(element_id)});"
                " if (!e) return null; const r = e.getBoundingClientRect();"
                " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()")
            if clip is None:
                raise BrowserError(f"{self.url} has no #{element_id}")
        x, y, w, h = clip
        shot = self.browser.call("Page.captureScreenshot", self.session, format="png",
                                 optimizeForSpeed=True, captureBeyondViewport=True,
                                 clip={"x": x, "y": y, "width": max(min(w, width), 1),
                                       "height": max(min(h, height), 1), "scale": 1})
        path.write_bytes(base64.b64decode(shot["data"]))
        self.check_quiet()

    def close(self):
        self.browser.call("Target.closeTarget", targetId=self.target)


BAD_PAGES = {  # what: (head, body)
    "an inline script under a CSP that forbids it":
        ('<meta http-equiv="Content-Security-Policy" content="script-src \'none\'">',
         "<script>document.title = 'ran'</script>"),
    "a console.log": ("", "<script>console.log('hello')</script>"),
    "an uncaught exception": ("", "<script>undefined_name()</script>"),
    "an image that fails to load": ("", '<img src="no-such-image.png">'),
}


def self_test(browser, work):
    """Each page in BAD_PAGES must be reported: a check that sees nothing proves nothing."""
    for number, (what, (head, body)) in enumerate(BAD_PAGES.items()):
        page_path = work / f"bad-{number}.html"
        page_path.write_text(f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>",
                             encoding="utf-8")
        page = browser.open(page_path.resolve().as_uri(), width=800, height=600)
        deadline = time.monotonic() + 5
        while not page.console() and time.monotonic() < deadline:
            page.evaluate("0")  # lets late events arrive
            time.sleep(0.05)
        if not page.console():
            raise BrowserError(f"the browser check did not see {what}")
        page.close()
    print(f"browser check: sees each of {len(BAD_PAGES)} faults ({', '.join(BAD_PAGES)})")
