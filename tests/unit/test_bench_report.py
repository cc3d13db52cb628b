"""bench/report.py: every figure of a bench's JSON becomes a row, checked against its aim."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from tests.unit.bench_module import BENCH, load_bench


def _report() -> ModuleType:
    return load_bench("report.py", "bench_report")


def test_every_number_becomes_a_figure_and_aims_decide_met() -> None:
    report = _report()
    out = {
        "scenarios": [
            {"subscribers": 1, "lost_events": 0, "per_subscriber_events_per_s": {"min": 120_000.0}},
            {"subscribers": 10, "lost_events": 3, "latency_ms": [1.0, 2.0]},
        ],
        "chars": 20000,
    }
    table = report.rows({"run_events": {"result": out, "seconds": 1.0}})
    by_name = {r["figure"]: r for r in table}
    assert (
        by_name["run_events: scenarios[1 subs].per_subscriber_events_per_s.min"]["status"] == "met"
    )
    assert by_name["run_events: scenarios[1 subs].lost_events"]["status"] == "met"
    assert by_name["run_events: scenarios[10 subs].lost_events"]["status"] == "not met"
    # A figure without an aim is listed all the same; raw sample lists are not figures.
    assert "status" not in by_name["run_events: chars"]
    assert not any("latency_ms" in name for name in by_name)
    # An aim the bench did not report is shown as not measured, not silently dropped.
    assert by_name["run_events: scenarios[10 subs].daemon_cpu_per_event_us"]["status"] == (
        "not measured"
    )


def test_a_failed_bench_is_a_row_and_does_not_hide_the_others() -> None:
    report = _report()
    table = report.rows(
        {
            "kb": {"error": "exit 1: ModuleNotFoundError"},
            "scale": {"result": {"rss_mib": 80.0}, "seconds": 1.0},
        }
    )
    assert {
        "figure": "kb: (bench)",
        "value": "exit 1: ModuleNotFoundError",
        "status": "failed",
    } in (table)
    assert next(r for r in table if r["figure"] == "scale: rss_mib")["status"] == "met"


def test_every_bench_the_report_runs_imports_and_parses_its_arguments() -> None:
    # A bench that cannot start shows up only as a "failed" row of `make bench`, long after the
    # change that broke it (bench/scale.py once imported a client another bench had dropped).
    report = _report()
    for name in report.BENCHES:
        proc = subprocess.run(
            [sys.executable, str(BENCH / f"{name}.py"), "--help"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, f"bench/{name}.py --help: {proc.stderr[-2000:]}"
        assert "usage:" in proc.stdout


def test_the_host_speed_is_measured_and_listed_beside_the_figures() -> None:
    report = _report()
    speed = report.host_speed(samples=3)
    assert 0 < speed["min_ms"] <= speed["median_ms"]
    table = report.rows({"host": {"result": {"before": speed, "after": speed}, "seconds": 0.0}})
    names = {r["figure"] for r in table}
    assert {"host: before.min_ms", "host: after.median_ms"} <= names
    assert all("status" not in r for r in table)  # information, not an aim
    with report.SpeedSampler(every_s=0.01) as sampler:
        time.sleep(0.3)
    during = sampler.summary()
    assert during["samples"] >= 3 and 0 < during["median_ms"] <= during["p90_ms"]


def test_the_append_aim_is_one_figure_of_the_store_bench_that_the_report_judges(
    tmp_path: Path,
) -> None:
    # "append p99 within one fsync" was computed inside bench/session_store.py only, so the
    # report's table never showed it; now it is a figure with an aim like the others.
    store = load_bench("session_store.py", "bench_session_store")
    got = store.bench_append(tmp_path, 40)
    beyond = (got["p99_us"] - got["fsync_p99_us"]) / got["fsync_p50_us"]
    assert got["p99_beyond_bare_fsyncs"] == pytest.approx(beyond)
    report = _report()
    for value, status in ((0.4, "met"), (1.0, "met"), (2.5, "not met")):
        table = report.rows(
            {"session_store": {"result": {"append": {"p99_beyond_bare_fsyncs": value}}}}
        )
        row = next(r for r in table if r["figure"].endswith("append.p99_beyond_bare_fsyncs"))
        assert row["status"] == status, (value, row)
