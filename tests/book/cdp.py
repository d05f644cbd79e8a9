"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (stdlib only).

Chromium reads commands from file descriptor 3 and writes replies and events to 4, each a
JSON object followed by a NUL byte. No websocket module is needed, and the browser can run
inside `unshare -n` (no network at all): the pipe is not a socket.

    with Browser(chromium) as browser:
        page = browser.new_page()       # isolated=True: its own browser context (storage)
        page.goto(url)                  # waits for the load event
        page.evaluate("1 + 1")          # -> 2
        page.wait_for("expression")     # polled inside the page, one round trip
        page.problems                   # console errors, exceptions, failed requests

One Browser may drive several pages from several threads: send() is thread-safe, and each
page sees only its own session's events.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import subprocess
import tempfile
import threading

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--remote-debugging-pipe",
         "--allow-file-access-from-files=false",
         # Pages checked side by side in several targets: none of them is a background tab
         # whose timers (MathJax's chunks, the checks' polling) are throttled.
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--disable-backgrounding-occluded-windows"]


class CdpError(RuntimeError):
    pass


class Browser:
    def __init__(self, chromium: str, network_namespace: bool = True):
        self.profile = tempfile.TemporaryDirectory(prefix="llmfs-cdp-")
        def high(fd: int) -> int:  # above 4, so that the dup2 calls below cannot clobber each other
            moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
            os.close(fd)
            return moved

        to_browser_r, self._to_browser = map(high, os.pipe())
        self._from_browser, from_browser_w = map(high, os.pipe())

        def child_fds():
            os.dup2(to_browser_r, 3)  # dup2 clears close-on-exec on 3 and 4
            os.dup2(from_browser_w, 4)

        command = [chromium, *FLAGS, f"--user-data-dir={self.profile.name}", "about:blank"]
        if network_namespace:
            command = ["unshare", "-n", *command]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, preexec_fn=child_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._replies: dict[int, queue.Queue] = {}
        self._lock = threading.Lock()
        self._listeners: list = []
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr: list[str] = []
        threading.Thread(target=lambda: self._stderr.extend(self.process.stderr), daemon=True).start()

    # -- plumbing
    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._closed = True
                for q in list(self._replies.values()):
                    q.put({"error": {"message": "browser closed the pipe"}})
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    q = self._replies.get(message["id"])
                    if q:
                        q.put(message)
                else:
                    for listener in list(self._listeners):
                        listener(message)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60):
        with self._lock:
            self._next_id += 1
            number = self._next_id
            q: queue.Queue = queue.Queue()
            self._replies[number] = q
            message = {"id": number, "method": method, "params": params or {}}
            if session:
                message["sessionId"] = session
            if self._closed:
                self._replies.pop(number, None)
                raise CdpError(f"{method}: the browser closed the pipe {''.join(self._stderr[-5:])}")
            try:
                os.write(self._to_browser, json.dumps(message).encode() + b"\0")
            except OSError as error:
                self._replies.pop(number, None)
                raise CdpError(f"{method}: cannot write to the browser: {error}")
        try:
            reply = q.get(timeout=timeout)
        except queue.Empty:
            raise CdpError(f"{method}: no reply within {timeout} s")
        finally:
            self._replies.pop(number, None)
        if "error" in reply:
            raise CdpError(f"{method}: {reply['error'].get('message')} {''.join(self._stderr[-5:])}")
        return reply.get("result", {})

    def new_page(self, isolated: bool = False) -> "Page":
        """A new tab; isolated: in its own browser context (its own localStorage and cache)."""
        params = {"url": "about:blank"}
        if isolated:
            params["browserContextId"] = self.send("Target.createBrowserContext")["browserContextId"]
        target = self.send("Target.createTarget", params)["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session, target, params.get("browserContextId"))

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except CdpError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    def __init__(self, browser: Browser, session: str, target: str = "", context: str | None = None):
        self.browser = browser
        self.session = session
        self.target = target
        self.context = context  # its own browser context, disposed of by close()
        self.blank = True  # about:blank is loaded (so emulation changes lay out nothing)
        self._emulation: dict[str, tuple] = {}  # the last viewport and media sent
        self.problems: list[str] = []  # console errors, exceptions, failed requests since the last goto
        self.requests = 0
        self._urls: dict[str, str] = {}
        self._loaded = threading.Event()
        browser._listeners.append(self._on_event)
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    def send(self, method, params=None, timeout=60):
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def _on_event(self, message):
        if message.get("sessionId") != self.session:
            return
        method, params = message.get("method"), message.get("params", {})
        if method == "Page.loadEventFired":
            self._loaded.set()
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            self.problems.append(f"uncaught exception: {text.splitlines()[0] if text else details}"
                                 f" ({details.get('url', '')}:{details.get('lineNumber', '')})")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.problems.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.problems.append(f"console error ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            self.requests += 1
            self._urls[params.get("requestId")] = params.get("request", {}).get("url", "")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            self.problems.append(f"failed request: {params.get('errorText')} "
                                 f"{self._urls.get(params.get('requestId'), '?')} ({params.get('type', '')})")
        elif method == "Network.responseReceived":
            response = params.get("response", {})
            if response.get("status", 200) >= 400:
                self.problems.append(f"failed request: HTTP {response.get('status')} {response.get('url')}")

    def goto(self, url: str, timeout: float = 30):
        self.problems = []
        self.requests = 0
        self._loaded.clear()
        self.blank = url == "about:blank"
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            self.problems.append(f"navigation failed: {result['errorText']} {url}")
            return
        if not self._loaded.wait(timeout):
            raise CdpError(f"{url}: no load event within {timeout} s")

    def evaluate(self, expression: str, timeout: float = 60):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise CdpError(f"evaluate failed: {details.get('exception', {}).get('description') or details}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20, interval: float = 0.02) -> bool:
        """True once the expression is truthy, False after timeout s: polled inside the page
        (a timer every interval s), so waiting costs one round trip, not one per poll. An
        expression that throws fails the evaluate (CdpError), as it would polled from here."""
        script = (f"new Promise((resolve, reject) => {{ const end = performance.now() + {timeout * 1000};"
                  f" const poll = () => {{ let done; try {{ done = ({expression}); }} catch (e) {{ reject(e); return; }}"
                  f" if (done) resolve(true); else if (performance.now() >= end) resolve(false);"
                  f" else setTimeout(poll, {interval * 1000}); }}; poll(); }})")
        return bool(self.evaluate(script, timeout=timeout + 30))

    def viewport(self, width: int, height: int = 900, mobile: bool = False):
        """The window size; a change lays the loaded page out again (sent only on a change)."""
        wanted = (width, height, mobile)
        if self._emulation.get("viewport") != wanted:
            self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                             "deviceScaleFactor": 1, "mobile": mobile})
            self._emulation["viewport"] = wanted

    def media(self, media: str = "", dark: bool | None = None):
        """Print or screen, and the OS colour preference (None: not emulated)."""
        if self._emulation.get("media") != (media, dark):
            features = [] if dark is None else [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]
            self.send("Emulation.setEmulatedMedia", {"media": media, "features": features})
            self._emulation["media"] = (media, dark)

    def open(self, url: str, width: int, height: int = 900, mobile: bool = False, media: str = "",
             dark: bool | None = False, timeout: float = 30):
        """goto(url) with the page laid out at this size and media from the start: if either
        differs from the current one, about:blank is loaded first, so that the change does not
        lay out (and restyle) the previous page for nothing."""
        if (self._emulation.get("viewport") != (width, height, mobile) or self._emulation.get("media") != (media, dark)) \
                and not self.blank:
            self.goto("about:blank")
        self.viewport(width, height, mobile)
        self.media(media, dark)
        self.goto(url, timeout=timeout)

    def close(self):
        """Close the tab (and its browser context, with everything stored in it)."""
        if self._on_event in self.browser._listeners:
            self.browser._listeners.remove(self._on_event)
        if self.target:
            self.browser.send("Target.closeTarget", {"targetId": self.target}, timeout=10)
        if self.context:
            self.browser.send("Target.disposeBrowserContext", {"browserContextId": self.context}, timeout=10)
