"""JSON logs on stderr (or a file), one object per line, with connection and session fields."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

_STD = set(vars(logging.LogRecord("x", 0, "x", 0, "x", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Render a record as one JSON object; extra= fields become keys."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for k, v in vars(record).items():
            if k not in _STD and not k.startswith("_"):
                out[k] = v if isinstance(v, str | int | float | bool) or v is None else repr(v)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup_logging(level: str | None = None, log_file: Path | None = None) -> None:
    """Route ggd's logs to stderr (or a 0600 file) as JSON lines."""
    level = (level or os.environ.get("GG_LOG_LEVEL") or "info").upper()
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        handler: logging.Handler = logging.StreamHandler(os.fdopen(fd, "a", encoding="utf-8"))
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    for name in ("ggd",):
        logging.getLogger(name).setLevel(getattr(logging, level, logging.INFO))
    # pygls logs every message at info and every error response as an exception; ggd logs its
    # own failures with request context, so keep pygls quiet unless debugging.
    logging.getLogger("pygls").setLevel(logging.DEBUG if level == "DEBUG" else logging.CRITICAL)
