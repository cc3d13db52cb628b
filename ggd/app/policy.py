"""The approval policy table of PROTOCOL.md, in one place.

| approvalMode | interactive client | non-interactive           | dangerous bash                  |
|--------------|--------------------|---------------------------|---------------------------------|
| auto         | ask                | deny, says how to allow   | ask if interactive, else deny   |
| on-request   | ask                | run.start refused         | ask                             |
| yolo         | allow              | allow                     | ask if interactive, else deny   |
| never        | allow              | allow                     | deny                            |
| plan         | deny (plan mode)   | deny (plan mode)          | deny (plan mode)                |

Calls whose description says no approval is needed (reads, read-only bash, writes under
`<workspace>/.gg/agent/`) never reach this table. In plan mode every other call is refused
without asking anyone (not even a tool the user allowed for the session): the model researches
and proposes a plan, and the user switches mode for the next turn to carry it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class PolicyDecision:
    """What to do with one call, and the reason given to the model when it is denied."""

    verdict: Verdict
    reason: str = ""


PLAN_MODE = "plan"
PLAN_REFUSAL = (
    "the session is in plan mode, where only read-only tools run. Research with read-only "
    "tools, then end your answer with the plan; the user switches the approval mode to carry "
    "it out in the next turn"
)


def decide(mode: str, interactive: bool, dangerous: bool) -> PolicyDecision:
    """Apply the table to one call that needs approval."""
    if mode == PLAN_MODE:
        return PolicyDecision("deny", PLAN_REFUSAL)
    if dangerous:
        if mode == "never":
            return PolicyDecision(
                "deny", "dangerous commands are never run in approval mode 'never'"
            )
        if interactive:
            return PolicyDecision("ask")
        return PolicyDecision(
            "deny", "dangerous commands need a person to approve them; run interactively"
        )
    if mode in ("yolo", "never"):
        return PolicyDecision("allow")
    if interactive:
        return PolicyDecision("ask")
    return PolicyDecision(
        "deny",
        "this run is not interactive, so writes and commands are denied; "
        "start it from an interactive client or with approvalMode 'yolo' to allow them",
    )


def start_refusal(mode: str, interactive: bool) -> str | None:
    """Why run.start must be refused for this mode, or None."""
    if mode == "on-request" and not interactive:
        return "approvalMode 'on-request' needs an interactive client that can answer approvals"
    return None
