"""The llama.cpp server child: `python -m ggd.providers.llamacpp_server --model F.gguf ...`.

Runs llama.cpp's own HTTP server (the xllamacpp wheel embeds it) in a process of its own, so a
crash or an out-of-memory kill of the model never takes the daemon down. It prints one JSON line
on stdout, `{"ready": true, "url": "http://127.0.0.1:PORT"}` once the server listens, or
`{"error": CODE, "message": TEXT}` when it cannot start, and exits when its stdin closes (the
daemon stopped it or died) or on SIGTERM. llama.cpp's own log goes to stderr.

Exit codes: 0 stopped, 2 bad arguments, 3 xllamacpp not installed, 4 the server did not start.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

NOT_INSTALLED = (
    "xllamacpp is not installed: pip install 'gg-agent[local]' (or `pip install xllamacpp`)"
)


def _say(**fields: Any) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m ggd.providers.llamacpp_server")
    ap.add_argument("--model", required=True, help="the GGUF file")
    ap.add_argument("--ctx", type=int, default=4096, help="context window in tokens")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    ap.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: a free one)")
    ap.add_argument("--template-file", default=None, help="a Jinja chat template to use")
    ap.add_argument("--no-jinja", action="store_true", help="use llama.cpp's built-in templates")
    ap.add_argument("--parallel", type=int, default=1, help="request slots")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Start the server, report where it listens, serve until stdin closes."""
    ns = _args(argv)
    try:
        import xllamacpp as xlc  # optional dependency: imported only in this child
    except ImportError:
        _say(error="not_installed", message=NOT_INSTALLED)
        return 3
    params = xlc.CommonParams()
    params.model.path = ns.model
    params.n_ctx = ns.ctx
    params.n_parallel = ns.parallel
    threads = ns.threads or os.cpu_count() or 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = not ns.no_jinja
    if ns.template_file:
        params.chat_template = Path(ns.template_file).read_text(encoding="utf-8")
    params.port = ns.port
    params.warmup = False  # the first request warms it; start-up stays short
    try:
        server = xlc.Server(params)
    except (RuntimeError, ValueError) as exc:
        _say(error="start_failed", message=str(exc))
        return 4
    _say(ready=True, url=str(server.listening_address), threads=threads)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    # The daemon holds our stdin: EOF means it stopped us or died; either way we go.
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, KeyboardInterrupt):
        pass
    # llama.cpp's server threads do not join cleanly on every build: leave at once.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
