"""The `gg` entry point: argument parsing and dispatch (imports stay lazy for a fast start)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ggcli import __version__
from ggcli.argtypes import add_budget_flags, budget_of, close_command, workspace_dir

__all__ = ["build_parser", "build_sub_parser", "main", "mistyped_command"]

SUBCOMMANDS = ("daemon", "sessions", "models", "rpc", "bridge")
# Options of the main parser that take a value: their value is never a subcommand name.
_VALUE_OPTIONS = frozenset(
    {"-p", "--prompt", "-r", "--resume", "--name", "--model", "--approval", "--workspace"}
    | {"--max-cost-usd", "--max-tokens", "--reasoning-effort"}
)

EPILOG = """\
commands:
  gg daemon start|stop|status|logs|url   manage the background daemon (ggd)
  gg sessions [list]                 list this workspace's sessions
  gg models                          the models the daemon offers (a local one with its state)
  gg init                            write your profile (~/.gg/USER.md)
  gg memory show|search|add          what gg remembers (sent to the model)
  gg skills list                     skills of this workspace (.agents/skills)
  gg {capabilities} ...   capability commands (gg COMMAND -h)
  gg rpc                             NDJSON JSON-RPC relay on stdin/stdout (for scripts):
                                     (gg rpc -h shows an example)
  gg bridge                          raw LSP byte pump stdio <-> daemon (for stdio LSP clients)

Without a prompt, gg reads it from stdin when stdin is not a terminal, and opens an
interactive session when it is. The answer goes to stdout; tool lines, approvals and
notices go to stderr. Exit codes: 0 done, 1 failed, 2 usage, 130 interrupted (Ctrl+C).
Options may come before or after a command (gg --no-daemon rpc = gg rpc --no-daemon).
A prompt whose first word is a command name needs -p."""


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size() finds it: $COLUMNS, stdout, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's layout with the width found without shutil.

    argparse makes a formatter for every add_argument (to check its metavar) and the default
    width imports shutil, which imports bz2, lzma and zlib: every `gg -p` paid for them before
    its first request.
    """

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)


def _epilog() -> str:
    """The commands, with the capability ones as the capabilities installed bring them."""
    from ggcli import commands

    shown = {"init", "memory", "skills"}  # listed on lines of their own
    words = "|".join(sorted(commands.names() - shown))
    return EPILOG.replace("{capabilities}", words)


class _MainParser(argparse.ArgumentParser):
    """The main parser: its epilog names the capability commands, found only when help is shown
    (a one-shot prompt loads no command module)."""

    def format_help(self) -> str:
        self.epilog = _epilog()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    """The parser for `gg [options] [PROMPT...]`."""
    p = _MainParser(
        prog="gg",
        description="gg: an AI coding agent in your terminal (a client of the ggd daemon).",
        formatter_class=_HelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"gg {__version__}")
    p.add_argument("words", nargs="*", metavar="PROMPT", help="what to ask (one-shot)")
    p.add_argument("-p", "--prompt", help="run this prompt once and exit")
    p.add_argument("--json", action="store_true", help="print every run event as a JSON line")
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="continue the newest session",
    )
    g.add_argument("-r", "--resume", metavar="ID", help="resume session ID")
    p.add_argument("--name", help="name the session")
    p.add_argument("--model", help="model to use, as provider:model")
    p.add_argument(
        "--image",
        action="append",
        metavar="FILE",
        help="attach an image (PNG, JPEG, WebP, GIF) to the prompt; repeat for more",
    )
    p.add_argument(
        "--approval",
        choices=["auto", "on-request", "yolo", "never", "plan"],
        help="approval mode (default: the daemon's, auto); plan: read-only tools, ends with a plan",
    )
    p.add_argument("--yolo", action="store_true", help="same as --approval yolo")
    add_budget_flags(p, "each run")
    p.add_argument(
        "--reasoning-effort",
        metavar="LEVEL",
        help="how hard a reasoning model thinks: low, medium or high (the API's own values too)",
    )
    p.add_argument(
        "--no-daemon", action="store_true", help="use a private ggd child instead of the daemon"
    )
    p.add_argument(
        "--workspace", type=workspace_dir, help="workspace folder (default: the current one)"
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="show all of each tool's output, not 5 lines"
    )
    return p


def build_sub_parser() -> argparse.ArgumentParser:
    """The parser for `gg daemon|sessions|rpc|bridge ...`."""
    p = argparse.ArgumentParser(prog="gg")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("daemon", help="manage the background daemon")
    dsub = d.add_subparsers(dest="action", required=True)
    start = dsub.add_parser("start", help="start ggd in the background")
    start.add_argument("--ws", metavar="HOST:PORT", help="also serve WebSocket + web UI")
    start.add_argument("--idle-exit", type=int, metavar="MINUTES", help="exit when idle this long")
    dsub.add_parser("stop", help="stop the running ggd")
    dsub.add_parser("url", help="print the web UI link (with its token) of the running ggd")
    status = dsub.add_parser("status", help="is ggd running, and where")
    status.add_argument("--json", action="store_true")
    logs = dsub.add_parser("logs", help="print the daemon log")
    logs.add_argument("-n", "--lines", type=int, default=50)
    logs.add_argument("-f", "--follow", action="store_true")
    logs.add_argument("--json", action="store_true", help="the raw JSON lines")
    s = sub.add_parser("sessions", help="sessions of this workspace")
    ssub = s.add_subparsers(dest="action", required=True)
    ls = ssub.add_parser("list", help="list sessions, newest first")
    ls.add_argument("--limit", type=int, default=50)
    ls.add_argument("--json", action="store_true")
    ls.add_argument(
        "--all", action="store_true", help="every workspace's sessions, each with its folder"
    )
    ls.add_argument(
        "--children", action="store_true", help="subagents' sessions too, under their parents"
    )
    m = sub.add_parser("models", help="the models the daemon offers, the default marked *")
    m.add_argument("--json", action="store_true")
    for q in (ls, m):
        q.add_argument("--no-daemon", action="store_true")
        q.add_argument("--workspace", type=workspace_dir)
    r = sub.add_parser(
        "rpc",
        help="NDJSON JSON-RPC relay on stdin/stdout",
        description=(
            "A JSON-RPC relay for scripts: one JSON request per line on stdin, one JSON "
            "message per line on stdout (responses and gg/run.event notifications). The "
            "connection is initialized for the workspace first unless your first line is an "
            "initialize request (docs/cli.md)."
        ),
        epilog=(
            "example:\n"
            '  echo \'{"jsonrpc":"2.0","id":1,"method":"gg/session.list"}\' | gg rpc\n'
            "  gg rpc < requests.ndjson > replies.ndjson"
        ),
        formatter_class=_HelpFormatter,
    )
    r.add_argument("--no-daemon", action="store_true")
    r.add_argument("--workspace", type=workspace_dir)
    sub.add_parser("bridge", help="raw LSP byte pump between stdio and the daemon")
    from ggcli import commands

    commands.register(sub)
    return p


def split_subcommand(argv: list[str]) -> list[str] | None:
    """argv for the subcommand parser when the first bare word is a command, else None.

    Options before the command move after it (`gg --no-daemon rpc` = `gg rpc --no-daemon`), and
    `gg sessions` alone means `gg sessions list`.
    """
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            return None  # everything after is the prompt
        if tok.startswith("-") and tok != "-":
            i += 2 if tok in _VALUE_OPTIONS else 1
            continue
        if tok not in _subcommands():
            return None
        before, after = argv[:i], argv[i + 1 :]
        if tok == "sessions" and (not after or after[0].startswith("-")):
            after = ["list", *after]
        return [tok, *after, *before]
    return None


def mistyped_command(argv: list[str]) -> tuple[str, str] | None:
    """(word, command) when the prompt's first word is a near miss of a command name.

    `gg sesions` must not start an agent run named "sesions"; a prompt given with -p is never
    second-guessed.
    """
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--" or tok in ("-p", "--prompt") or tok.startswith("--prompt="):
            return None
        if tok.startswith("-") and tok != "-":
            i += 2 if tok in _VALUE_OPTIONS else 1
            continue
        command = close_command(tok, _subcommands())
        return (tok, command) if command else None
    return None


def main(argv: list[str] | None = None) -> int:
    """Run gg; returns the process exit code."""
    args_list = sys.argv[1:] if argv is None else argv
    try:
        sub_argv = split_subcommand(args_list)
        if sub_argv is not None:
            return _run_sub(_parse_sub(sub_argv))
        meant = mistyped_command(args_list)
        if meant is not None:
            word, command = meant
            sys.stderr.write(
                f"gg: '{word}' is not a gg command; did you mean `gg {command}`? "
                f'(use -p for a prompt: gg -p "{word} ...")\n'
            )
            return 2
        return _run_main(build_parser().parse_args(args_list))
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return 130
    except BrokenPipeError:
        # The reader of our stdout went away (e.g. `gg -p ... | head`): not an error of ours.
        _silence_stdout()
        return 0
    except Exception as exc:
        return _fail(exc)


def _parse_sub(argv: list[str]) -> argparse.Namespace:
    """Parse a subcommand; stray words get a hint instead of becoming a prompt."""
    parser = build_sub_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        hint = ""
        if not extra[0].startswith("-"):
            hint = f"\n'{argv[0]}' is a gg command; to ask the model, use: gg -p \"{argv[0]} ...\""
        parser.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    return args


def _fail(exc: Exception) -> int:
    from ggcli.discovery import DaemonError
    from ggcli.rpc import ConnectionLost, RpcError

    if isinstance(exc, RpcError | DaemonError | ConnectionLost | TimeoutError | OSError):
        message = exc.message if isinstance(exc, RpcError) else str(exc)
        sys.stderr.write(f"gg: error: {message}\n")
        return 1
    raise exc


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _workspace(args: Any) -> Path:
    return (args.workspace or Path.cwd()).resolve()


def _subcommands() -> set[str]:
    from ggcli import commands

    return set(SUBCOMMANDS) | commands.names()


def _run_sub(args: argparse.Namespace) -> int:
    from ggcli import commands

    owned = commands.run(args)
    if owned is not None:
        return owned
    if args.command == "daemon":
        from ggcli import daemonctl

        if args.action == "start":
            return daemonctl.daemon_start(args.ws, args.idle_exit)
        if args.action == "stop":
            return daemonctl.daemon_stop()
        if args.action == "status":
            return daemonctl.daemon_status(args.json)
        if args.action == "url":
            return daemonctl.daemon_url()
        return daemonctl.daemon_logs(args.lines, args.follow, args.json)
    if args.command == "sessions":
        return _sessions_list(args)
    if args.command == "models":
        return _models(args)
    from ggcli import relay

    if args.command == "rpc":
        return relay.run_rpc(relay.rpc_client_factory(_workspace(args), args.no_daemon))
    return relay.run_bridge()


def _sessions_list(args: argparse.Namespace) -> int:
    import json

    from ggcli.discovery import connect
    from ggcli.render import Style, format_sessions, use_color

    client = connect(_workspace(args), args.no_daemon)
    try:
        params: dict[str, object] = {"limit": args.limit}
        if args.all:
            params["allWorkspaces"] = True
        if args.children:
            params["includeChildren"] = True
        page = client.request("gg/session.list", params) or {}
    finally:
        client.close()
    sessions = page.get("sessions") or []
    if args.json:
        print(json.dumps(sessions, ensure_ascii=False))
    elif not sessions and not args.all:
        print("no sessions in this workspace (gg sessions --all lists every workspace's)")
    else:
        print(format_sessions(sessions, Style(use_color(sys.stdout))))
    return 0


def _provider_line(p: dict[str, Any]) -> str:
    """`openai (openai-chat, https://api.openai.com/v1): reachable, 52 models listed`."""
    kind = "openai-chat" if p.get("kind") == "openai" else str(p.get("kind"))
    where = f", {p['baseUrl']}" if p.get("baseUrl") else ""
    reachable = p.get("reachable")
    if reachable is None:
        state = "not asked" if p.get("kind") != "llamacpp" else "not running"
    else:
        state = "reachable" if reachable else "unreachable"
    if reachable and p.get("listed") is not None:
        state += f", {p['listed']} models listed"
    if p.get("problem"):
        state += f": {p['problem']}"
    return f"{p.get('name')} ({kind}{where}): {state}"


def _models(args: argparse.Namespace) -> int:
    """`gg models`: each provider (kind, reachable or not), then its models, `*` the default."""
    import json

    from ggcli.discovery import connect

    client = connect(_workspace(args), args.no_daemon)
    try:
        info = client.request("gg/system.info", {}) or {}
        found = client.request("gg/system.providers", {}) or {}
    finally:
        client.close()
    default = info.get("defaultModel")
    states = info.get("modelStates") or {}
    providers = found.get("providers") or []
    if args.json:
        rows = [
            {
                "model": m,
                "default": m == default,
                "state": states.get(m),
                "provider": p["name"],
                "kind": p["kind"],
                "reachable": p.get("reachable"),
                "problem": p.get("problem"),
            }
            for p in providers
            for m in p.get("models") or []
        ]
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    for p in providers:
        print(_provider_line(p))
        for model in p.get("models") or []:
            state = f"  ({states[model]})" if model in states else ""
            print(f"{'*' if model == default else ' '} {model}{state}")
    return 0


def _run_main(args: argparse.Namespace) -> int:
    if args.prompt is not None and args.words:
        sys.stderr.write("gg: give the prompt either with -p or as words, not both\n")
        return 2
    prompt = args.prompt if args.prompt is not None else " ".join(args.words) or None
    stdin_tty = _isatty(sys.stdin)
    if prompt is None and not stdin_tty:
        prompt = sys.stdin.read()
    if prompt is not None and not prompt.strip():
        sys.stderr.write("gg: the prompt is empty\n")
        return 2
    if prompt is None and args.json:
        sys.stderr.write("gg: --json needs a prompt (-p or stdin)\n")
        return 2
    approval = "yolo" if args.yolo else args.approval
    images: list[dict[str, Any]] = []
    if args.image:
        from ggcli.attach import AttachError, image_param

        try:
            images = [image_param(raw) for raw in args.image]
        except AttachError as exc:
            sys.stderr.write(f"gg: --image: {exc}\n")
            return 2
    child = None
    if args.no_daemon:
        from ggcli.private import start_private

        # First thing: the private ggd's start-up (~0.4 s) overlaps the imports below.
        child = start_private(_workspace(args))

    from ggcli.discovery import connect, gg_home
    from ggcli.session import SessionChoice, demo_notice, open_session, start_run
    from ggcli.turn import TurnOptions, TurnRunner, Ui

    ui = Ui()
    client = connect(_workspace(args), args.no_daemon, child=child)
    try:
        if prompt is not None:
            from ggcli.expand import expand_prompt

            # `/skill:<name> task`: expanded first, so an unknown skill leaves no empty session.
            prompt = expand_prompt(client, prompt)
        # Pipelined with the session requests: one round trip less before the run starts.
        info_id = client.send_request("gg/system.info")
        choice = SessionChoice(args.resume, args.continue_last, args.name, args.model)
        snapshot = open_session(client, choice)
        info = client.wait_response(info_id) or {}
        notice = demo_notice(info)
        if notice:
            ui.note(notice, "yellow")
        if prompt is None:
            from ggcli.interactive import Repl

            history = gg_home() / "history"
            repl = Repl(client, ui, snapshot, info, history, approval, args.model, args.verbose)
            repl.images = images  # --image without a prompt: attached to the first one
            repl.run_params = _run_params(args)
            return repl.run()
        # A human can answer approvals only when both the keyboard and the prompt are a terminal.
        interactive = stdin_tty and _isatty(sys.stderr)
        session_id = str(snapshot["sessionId"])
        run_id = start_run(
            client,
            session_id,
            prompt,
            interactive=interactive,
            approval=approval,
            model=args.model,
            images=images,
            extra=_run_params(args),
        )
        opts = TurnOptions(
            json_mode=args.json,
            interactive=interactive,
            stdin_fd=_stdin_fd(),
            verbose=args.verbose,
            show_usage=_isatty(sys.stderr),  # the cost line, where a person reads it
        )
        return TurnRunner(client, ui, session_id, run_id, opts).run().exit_code
    finally:
        client.close()


def _run_params(args: argparse.Namespace) -> dict[str, Any]:
    """gg/run.start fields of the budget and reasoning flags."""
    out: dict[str, Any] = {}
    budget = budget_of(args)
    if budget:
        out["budget"] = budget
    if args.reasoning_effort:
        out["reasoningEffort"] = args.reasoning_effort
    return out


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _stdin_fd() -> int:
    try:
        return sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return 0
