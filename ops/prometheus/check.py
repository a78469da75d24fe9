#!/usr/bin/env python3
"""A real Prometheus scrapes a real simdex server.

Starts the embedded default (ops/bin/simdex, built by `mvn package`) with --metrics-port 0, inserts
a document with the CLI, starts Prometheus (Debian's /usr/bin/prometheus) with a one-target
config, and polls Prometheus' HTTP API until it has scraped the server: `up` is 1,
simdex_documents says 1 and the Insert call is counted. Then every query of the Grafana dashboard
(ops/grafana/simdex.json) must run without error against that Prometheus, and every alerting
rule of ops/prometheus/alerts.yml, loaded into it, must evaluate without error and stay inactive
(the server is healthy); and promtool (beside prometheus) must pass the rules' unit tests,
ops/prometheus/alerts_test.yml, in which each alert fires on what should raise it. Prints one
closing line; exits 1 on a failure, with both processes' logs.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Failed(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def await_condition(what, check, timeout, procs):
    """Calls check() until it returns a true value (returned), a process exits, or timeout seconds pass."""
    until = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        for name, p in procs.items():
            if p.poll() is not None:
                raise Failed(f"{name} exited ({p.returncode}) while waiting for {what}")
        if time.monotonic() > until:
            raise Failed(f"no {what} within {timeout} s")
        time.sleep(0.2)  # poll interval, not a wait for anything


def log_match(path, pattern):
    with open(path, encoding="utf-8", errors="replace") as f:
        m = re.search(pattern, f.read())
    return m.group(1) if m else None


def query(prom, expr):
    url = f"http://127.0.0.1:{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        try:
            return json.load(e)
        except ValueError:
            return None  # not an API answer: Prometheus answers 503 in plain text until it is ready
    except OSError:
        return None


def single_value(prom, expr):
    """The value of the query's only series, or None while Prometheus has none."""
    answer = query(prom, expr)
    if not answer or answer.get("status") != "success" or len(answer["data"]["result"]) != 1:
        return None
    return float(answer["data"]["result"][0]["value"][1])


RULES = os.path.join(ROOT, "ops", "prometheus", "alerts.yml")
RULE_TESTS = os.path.join(ROOT, "ops", "prometheus", "alerts_test.yml")


def rule_tests(promtool):
    """Runs the rules' unit tests with promtool; raises Failed with its output if they fail."""
    if not os.access(promtool, os.X_OK):
        raise Failed(f"no promtool at {promtool} (Debian's prometheus package has it beside prometheus)")
    done = subprocess.run([promtool, "test", "rules", os.path.basename(RULE_TESTS)], cwd=os.path.dirname(RULE_TESTS),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    if done.returncode != 0:
        raise Failed(f"promtool test rules {RULE_TESTS}:\n{done.stdout}")


def rules(prom):
    """The loaded alerting rules (name, health, state, lastError), or None while Prometheus has no answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{prom}/api/v1/rules", timeout=10) as r:
            answer = json.load(r)
    except (OSError, ValueError):
        return None
    return [(rule["name"], rule.get("health"), rule.get("state"), rule.get("lastError", ""))
            for group in answer["data"]["groups"] for rule in group["rules"]]


def dashboard_queries():
    with open(os.path.join(ROOT, "ops", "grafana", "simdex.json"), encoding="utf-8") as f:
        dash = json.load(f)
    for panel in dash["panels"]:
        for target in panel.get("targets", []):
            yield panel["title"], target["expr"].replace("$__rate_interval", "1m").replace("$job", ".*")


def run(args, tmp):
    procs = {}
    logs = {}
    try:
        rule_tests(args.promtool)
        logs["simdex"] = os.path.join(tmp, "simdex.log")
        with open(logs["simdex"], "w") as out:
            procs["simdex"] = subprocess.Popen(
                [args.simdex, "embedded", "--data", os.path.join(tmp, "data"), "--port", "0", "--metrics-port", "0"],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        grpc = await_condition("simdex start", lambda: log_match(logs["simdex"], r"listening on 127\.0\.0\.1:(\d+)"), 120, procs)
        metrics = log_match(logs["simdex"], r"metrics at http://127\.0\.0\.1:(\d+)/metrics")
        if not metrics:
            raise Failed("simdex logged no metrics port")
        subprocess.run([args.simdex, "insert", "--target", f"127.0.0.1:{grpc}", "--id", "prometheus-check-1",
                        "--fingerprint", "0123456789abcdef"], check=True, stdout=subprocess.DEVNULL, timeout=120)

        config = os.path.join(tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
                    f"rule_files:\n  - '{RULES}'\n"
                    f"scrape_configs:\n  - job_name: simdex\n    static_configs:\n      - targets: ['127.0.0.1:{metrics}']\n")
        prom = free_port()
        logs["prometheus"] = os.path.join(tmp, "prometheus.log")
        with open(logs["prometheus"], "w") as out:
            procs["prometheus"] = subprocess.Popen(
                [args.prometheus, f"--config.file={config}", f"--storage.tsdb.path={os.path.join(tmp, 'tsdb')}",
                 f"--web.listen-address=127.0.0.1:{prom}"], stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

        await_condition("successful scrape (up == 1)", lambda: single_value(prom, 'up{job="simdex"}') == 1, 60, procs)
        docs = await_condition("simdex_documents in Prometheus",
                               lambda: single_value(prom, 'simdex_documents{job="simdex",collection="default"}'), 60, procs)
        if docs != 1:
            raise Failed(f"simdex_documents{{collection=\"default\"}} is {docs}, expected 1")
        inserts = single_value(prom, 'sum(grpc_server_call_duration_seconds_count{job="simdex",'
                                     'grpc_method="simdex.v1.Simdex/Insert",grpc_status="OK"})')
        if inserts != 1:
            raise Failed(f"Prometheus counts {inserts} OK Insert calls, expected 1")
        for title, expr in dashboard_queries():
            answer = query(prom, expr)
            if not answer or answer.get("status") != "success":
                raise Failed(f"dashboard panel '{title}': Prometheus rejects {expr}: {answer}")
        # Each rule evaluated at least once (health leaves "unknown"), none failing or firing.
        loaded = await_condition("every alerting rule evaluated",
                                 lambda: (lambda r: r if r and all(h != "unknown" for _, h, _, _ in r) else None)(rules(prom)), 60, procs)
        with open(RULES, encoding="utf-8") as f:
            written = len(re.findall(r"^\s*- alert:", f.read(), re.MULTILINE))
        if len(loaded) != written:
            raise Failed(f"Prometheus loaded {len(loaded)} alerting rules of the {written} in {RULES}")
        bad = [r for r in loaded if r[1] != "ok" or r[2] != "inactive"]
        if bad:
            raise Failed(f"alerting rules that fail or fire on a healthy server: {bad}")
        print(f"prometheus check: Prometheus scraped simdex (up 1, simdex_documents 1, 1 Insert counted); "
              f"{sum(1 for _ in dashboard_queries())} dashboard queries run, {len(loaded)} alerting rules evaluated (none firing) and unit-tested: passed")
        return 0
    except (Failed, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
        print(f"prometheus check: FAILED: {e}")
        for name, path in logs.items():
            print(f"--- {name} log ---")
            with open(path, encoding="utf-8", errors="replace") as f:
                print(f.read()[-5000:])
        return 1
    finally:
        for p in procs.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs.values():
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simdex", default=os.path.join(ROOT, "ops", "bin", "simdex"))
    parser.add_argument("--prometheus", default=shutil.which("prometheus") or "/usr/bin/prometheus")
    parser.add_argument("--promtool", help="default: promtool beside --prometheus")
    args = parser.parse_args()
    args.promtool = args.promtool or os.path.join(os.path.dirname(args.prometheus), "promtool")
    tmp = tempfile.mkdtemp(prefix="simdex-prometheus-")
    try:
        return run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
