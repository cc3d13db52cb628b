"""`gg mcp add` argument handling: options before `--`, the server's own flags after it."""

from __future__ import annotations

import pytest

from ggcli.main import build_sub_parser
from ggd.capabilities.mcp.cli import _add_params


def _params(*argv: str) -> dict[str, object]:
    return _add_params(build_sub_parser().parse_args(["mcp", "add", *argv]))


def test_options_before_the_separator_and_server_flags_after_it() -> None:
    got = _params("time", "--env", "TZ=UTC", "--cwd", "/tmp", "--", "srv", "--env", "x", "-v")
    assert got == {
        "name": "time",
        "command": "srv",
        "args": ["--env", "x", "-v"],
        "env": {"TZ": "UTC"},
        "cwd": "/tmp",
    }
    assert _params("t", "srv", "a") == {"name": "t", "command": "srv", "args": ["a"]}


def test_url_servers_and_headers() -> None:
    got = _params("web", "--url", "http://127.0.0.1:1/mcp", "--header", "A=b=c")
    assert got == {"name": "web", "url": "http://127.0.0.1:1/mcp", "headers": {"A": "b=c"}}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["t"], "command after --"),
        (["t", "--bogus", "--", "x"], "unknown option"),
        (["t", "--env", "NOEQUALS", "--", "x"], "K=V"),
        (["t", "--url", "http://h/mcp", "--", "x"], "not both"),
    ],
)
def test_mistakes_get_clear_messages(argv: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _params(*argv)
