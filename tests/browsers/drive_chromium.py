#!/usr/bin/python3
"""Drive Chromium through chromedriver (python3-selenium), inside the sandbox.

Usage: drive_chromium.py OUTDIR URL [URL...]

For each URL: load it, print "title URL TITLE", save a screenshot of the first
one to OUTDIR/chromium.png with "viewport W H DPR" (the size it must have).
Then print what the browser's own sandbox looks like: "sandbox LINE" for each
status line of chrome://sandbox, and "renderer PID KEY VALUE" for each
renderer process (seccomp mode, namespaces against this process's, root).
The browser comes from $CHROME_BIN with $CHROME_FLAGS (the plugin's)."""
import os
import shlex
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def renderers():
    """Renderer processes of this browser, as this process sees them."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read()
        except OSError:
            continue
        if b"--type=renderer" in argv and b"--top-chrome-webui" not in argv:
            out.append(pid)
    return out


def own_filters():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Seccomp_filters:"):
                return int(line.split()[1])
    return 0


def describe(pid):
    def status(key):
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split(":", 1)[1].split()
        return []

    def same_ns(kind):
        try:
            return os.readlink("/proc/%s/ns/%s" % (pid, kind)) == os.readlink("/proc/self/ns/" + kind)
        except OSError as e:
            return "unreadable:%d" % e.errno

    # Every process inside has agentsandbox's filter; the browser's own is
    # one more.
    mine = own_filters()
    print("renderer", pid, "seccomp", " ".join(status("Seccomp")))
    print("renderer", pid, "extra_filters", int(status("Seccomp_filters")[0]) - mine)
    print("renderer", pid, "nspid_levels", len(status("NSpid")))
    for kind in ("user", "pid", "net"):
        print("renderer", pid, "same_" + kind, same_ns(kind))
    try:
        print("renderer", pid, "root_entries", len(os.listdir("/proc/%s/root/" % pid)))
    except OSError as e:
        print("renderer", pid, "root_entries", "unreadable:%d" % e.errno)


def main():
    outdir, urls = sys.argv[1], sys.argv[2:]
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ["CHROME_BIN"]
    for flag in shlex.split(os.environ.get("CHROME_FLAGS", "")):
        opts.add_argument(flag)
    opts.add_argument("--headless")
    opts.add_argument("--window-size=800,600")
    service = Service("chromedriver", log_path=os.path.join(outdir, "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=opts)
    try:
        driver.set_page_load_timeout(60)
        for i, url in enumerate(urls):
            try:
                driver.get(url)
                title = driver.title
            except WebDriverException as e:
                title = "(error: %s)" % str(e).splitlines()[0]
            print("title", url, title or "(none)", flush=True)
            if i == 0:
                size = driver.execute_script(
                    "return [window.innerWidth, window.innerHeight, window.devicePixelRatio]")
                print("viewport", *size)
                driver.save_screenshot(os.path.join(outdir, "chromium.png"))
                for pid in renderers():
                    describe(pid)
        driver.get("chrome://sandbox")
        time.sleep(0.5)
        for line in driver.find_element(By.TAG_NAME, "body").text.splitlines():
            print("sandbox", line)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
