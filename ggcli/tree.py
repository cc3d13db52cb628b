"""`/tree`: the conversation as a graph that branches where it splits (like `git log --graph`).

A linear run of messages stays in one column; a message with several children opens one branch per
child (`├─` / `└─`). Long runs are collapsed to their ends (`┆ … N more messages`); the active
path is drawn with `●`, other branches with `○`, and the head is marked once.

A session can have several roots (a checkout before its first message, then a new prompt): each
root is a separate history, drawn in a column of its own right of the earlier ones and opened by a
`┌ root k of N` line, so two roots never read as one straight line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ggcli.render import Style

__all__ = ["format_tree"]

KEEP_ENDS = 3  # messages kept at each end of a collapsed run
COLLAPSE_OVER = 2 * KEEP_ENDS + 2
TEXT_WIDTH = 70


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _head(nodes: list[dict[str, Any]], children: dict[str, list[str]]) -> str | None:
    """The active node none of whose children is active: where the next message goes."""
    active = {str(n.get("id")) for n in nodes if n.get("active")}
    for n in nodes:
        nid = str(n.get("id"))
        if nid in active and not any(c in active for c in children.get(nid, [])):
            return nid
    return None


def format_tree(tree: list[dict[str, Any]], style: Style | None = None, full: bool = False) -> str:
    """The session tree as text; `full` never collapses runs."""
    from ggcli.render import Style

    st = style or Style()
    if not tree:
        return "(empty session)"
    by_id = {str(n.get("id")): n for n in tree}
    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for n in tree:  # file order is chronological: children keep it
        nid, parent = str(n.get("id")), n.get("parentId")
        if parent is not None and str(parent) in by_id:
            children.setdefault(str(parent), []).append(nid)
        else:
            roots.append(nid)
    head = _head(tree, children)
    out: list[str] = []
    used = [0]  # how many columns the graph has used so far (a dot sits after its lead)

    def line(nid: str, graph: str) -> str:
        used[0] = max(used[0], len(graph) + 1)
        n = by_id[nid]
        dot = st("●", "green") if n.get("active") else st("○", "dim")
        text = _clip(str(n.get("text") or "").replace("\n", " "), TEXT_WIDTH)
        role = str(n.get("role", ""))
        mark = " " + st("◀ head", "bold", "green") if nid == head else ""
        return f"{st(graph, 'dim')}{dot} {st(nid, 'dim')} {role}: {text}{mark}"

    def chain(start: str, first: str, rest: str) -> None:
        """Draw a linear run from `start`, then branch at its end; `first`/`rest` lead each line."""
        run = [start]
        while len(children.get(run[-1], [])) == 1:
            run.append(children[run[-1]][0])
        shown: list[str | int] = list(run)
        if not full and len(run) > COLLAPSE_OVER:
            # Keep both ends and the head; the middle of a long straight run is one line.
            middle = [m for m in run[KEEP_ENDS:-KEEP_ENDS] if m != head]
            if len(middle) > 1:
                cut = set(middle)
                shown = []
                for nid in run:
                    if nid not in cut:
                        shown.append(nid)
                    elif shown and isinstance(shown[-1], int):
                        shown[-1] += 1
                    else:
                        shown.append(1)
        for i, item in enumerate(shown):
            lead = first if i == 0 else rest
            if isinstance(item, int):
                out.append(st(f"{lead}┆ … {item} more messages (/tree all shows them)", "dim"))
            else:
                out.append(line(item, lead))
        kids = children.get(run[-1], [])
        for j, kid in enumerate(kids):
            last = j == len(kids) - 1
            chain(kid, rest + ("└─" if last else "├─"), rest + ("  " if last else "│ "))

    if len(roots) == 1:
        chain(roots[0], "", "")
        return "\n".join(out)
    for k, r in enumerate(roots):
        # Root k sits right of every column root k-1 used (its indent plus its branches' width).
        indent = " " * (used[0] + 1) if k else ""
        out.append(st(f"{indent}┌ root {k + 1} of {len(roots)}", "dim"))
        chain(r, indent, indent)
    return "\n".join(out)
