"""Helpers shared by the checks of tests/e2e/browser_e2e.sh: read the state the page
reports in <pre id="e2e-state">, compare JSON from the page with the CLI's."""
import difflib, html, json, math, re, sys


def page_state(out, name):
    dom = open(f"{out}/{name}", encoding="utf-8").read()
    m = re.search(r'<pre id="e2e-state"[^>]*>(.*?)</pre>', dom, re.S)
    if not m or not m.group(1).strip():
        sys.exit(f"{name}: the app never reported ready (see {name}, {name}.stderr)")
    s = json.loads(html.unescape(m.group(1)))
    if "fatal" in s:
        sys.exit(f"{name}: the page failed: {s['fatal']}")
    return s


def flow_steps(out, name):
    """The states a #e2e-flow run wrote into <pre id="e2e-flow">, by step name."""
    dom = open(f"{out}/{name}", encoding="utf-8").read()
    m = re.search(r'<pre id="e2e-flow"[^>]*>(.*?)</pre>', dom, re.S)
    if not m or not m.group(1).strip():
        sys.exit(f"{name}: the flow never finished (see {name}, {name}.stderr)")
    return {s["step"]: s["state"] for s in json.loads(html.unescape(m.group(1)))["steps"]}


def load(out, name):
    return json.load(open(f"{out}/{name}"))


def plain(v):
    """1e14 and 100000000000000.0 print alike (JS drops the '.0'), so diffs show real changes."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def drop_wall_times(v):
    """Search wall times ("seconds") differ run to run; everything else must match."""
    if isinstance(v, dict):
        return {k: drop_wall_times(x) for k, x in v.items() if k != "seconds"}
    if isinstance(v, list):
        return [drop_wall_times(x) for x in v]
    return v


def close(a, b):
    """Same structure; numbers equal up to 1e-9 relative (WASM vs native libm)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


class Checks:
    def __init__(self):
        self.failures = 0

    def expect(self, what, ok, detail=""):
        print(f"browser_e2e: {'ok  ' if ok else 'FAIL'} {what}{'' if ok else ': ' + detail}",
              flush=True)
        self.failures += 0 if ok else 1
        return ok

    def compare(self, what, got, want, exact=True):
        """got == want (or close()); on a mismatch a unified diff, CLI (-) vs page (+)."""
        if not self.expect(what, (got == want) if exact else close(got, want)):
            a = json.dumps(plain(want), indent=2, sort_keys=True).splitlines()
            b = json.dumps(plain(got), indent=2, sort_keys=True).splitlines()
            print(f"--- {what}: CLI (-) vs page (+)", file=sys.stderr)
            for line in difflib.unified_diff(a, b, "cli", "page", lineterm="", n=2):
                print(line, file=sys.stderr)

    def exit(self):
        sys.exit(1 if self.failures else 0)
