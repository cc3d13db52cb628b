"""gmail_search, gmail_read, gmail_send, calendar_agenda and calendar_create."""

from __future__ import annotations

import re
from typing import Any

from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .api import Calendar, Gmail, parse_time
from .auth import GoogleError

EMAIL = re.compile(r"^[^@\s,<>]+@[^@\s,<>]+\.[^@\s,<>]+$")


def _str(args: dict[str, Any], key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str):
        raise ToolError(f"argument '{key}' must be a string")
    return value


def _int(args: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ToolError(f"argument '{key}' must be an integer from {lo} to {hi}")
    return value


def _emails(value: Any, key: str) -> list[str]:
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else None
    if items is None:
        raise ToolError(f"argument '{key}' must be an address or a list of addresses")
    out = [str(a).strip() for a in items if str(a).strip()]
    bad = [a for a in out if not EMAIL.match(a)]
    if bad:
        raise ToolError(f"argument '{key}': not an email address: {bad[0]!r}")
    return out


def _read_only(summary: str) -> ApprovalInfo:
    return ApprovalInfo(summary=summary, risk="read_only", needs_approval=False)


class GmailSearch(Tool):
    """Search the mailbox with Gmail's query syntax."""

    deferred = True  # found on demand with tool_search (first-request budget)

    name = "gmail_search"
    description = (
        "Search Gmail with Gmail query syntax (from:, subject:, newer_than:7d, is:unread...). "
        "Returns message ids with sender, subject and date; read one with gmail_read."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        },
        "required": ["query"],
    }
    parallel_safe = True

    def __init__(self, gmail: Gmail) -> None:
        self.gmail = gmail

    def summary(self, args: dict[str, Any]) -> str:
        return f"gmail_search {str(args.get('query', ''))[:100]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return _read_only(self.summary(args))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query, limit = _str(args, "query"), _int(args, "limit", 10, 1, 50)
        try:
            found = await self.gmail.search(query, limit)
        except GoogleError as exc:
            raise ToolError(str(exc)) from None
        if not found:
            return ToolResult(output=f"no messages match {query!r}")
        lines = [
            f"{m['id']}  {m.get('Date', '')}  {m.get('From', '')}  |  {m.get('Subject', '')}"
            for m in found
        ]
        return ToolResult(output="\n".join(lines), details={"ids": [m["id"] for m in found]})


class GmailRead(Tool):
    """Read one message: headers, text body, attachments listed."""

    deferred = True  # found on demand with tool_search (first-request budget)

    name = "gmail_read"
    description = "Read one Gmail message by id: headers, the text body, attachments listed."
    parameters = {
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "required": ["id"],
    }
    parallel_safe = True

    def __init__(self, gmail: Gmail) -> None:
        self.gmail = gmail

    def summary(self, args: dict[str, Any]) -> str:
        return f"gmail_read {str(args.get('id', ''))[:64]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return _read_only(self.summary(args))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            mail = await self.gmail.read(_str(args, "id"))
        except GoogleError as exc:
            raise ToolError(str(exc)) from None
        head = "\n".join(f"{k}: {v}" for k, v in mail.headers.items())
        files = "".join(
            f"\n- {a['filename']} ({a['mimeType']}, {a['size']} bytes)" for a in mail.attachments
        )
        out = f"{head}\n\n{mail.body or '(no text body)'}"
        if files:
            out += "\n\nAttachments:" + files
        return ToolResult(output=out, details={"id": mail.id, "attachments": mail.attachments})


class GmailSend(Tool):
    """Send a plain-text mail (asks first, showing the whole message)."""

    deferred = True  # found on demand with tool_search (first-request budget)

    name = "gmail_send"
    description = "Send a plain-text email from the connected Gmail account. Asks the user first."
    parameters = {
        "type": "object",
        "properties": {
            "to": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "subject": {"type": "string"},
            "body": {"type": "string"},
        },
        "required": ["to", "subject", "body"],
    }

    def __init__(self, gmail: Gmail) -> None:
        self.gmail = gmail

    def summary(self, args: dict[str, Any]) -> str:
        to = args.get("to")
        to_text = ", ".join(map(str, to)) if isinstance(to, list) else str(to or "")
        return f"gmail_send to {to_text[:80]}: {str(args.get('subject', ''))[:60]}"

    async def precheck(self, args: dict[str, Any], ctx: ToolContext) -> None:
        self._parsed(args)

    def _parsed(self, args: dict[str, Any]) -> tuple[list[str], str, str]:
        to = _emails(args.get("to"), "to")
        if not to:
            raise ToolError("argument 'to' needs at least one address")
        subject, body = _str(args, "subject"), _str(args, "body")
        if "\r" in subject or "\n" in subject:
            # A line break in a header would let the model add headers (Bcc) the user never saw.
            raise ToolError("argument 'subject' must be one line")
        return to, subject, body

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        to = args.get("to")
        to_text = ", ".join(map(str, to)) if isinstance(to, list) else str(to or "")
        # The approver sees exactly what will leave: every recipient, the subject and the body.
        details = (
            f"send this email from the connected Google account:\n\nTo: {to_text}\n"
            f"Subject: {args.get('subject', '')}\n\n{args.get('body', '')}"
        )
        return ApprovalInfo(
            summary=self.summary(args), risk="normal", risk_reason="sends email", details=details
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        to, subject, body = self._parsed(args)
        try:
            mid = await self.gmail.send(to, subject, body)
        except (GoogleError, ValueError) as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(output=f"sent to {', '.join(to)} (id {mid})", details={"id": mid})


class CalendarAgenda(Tool):
    """The coming days of the primary calendar."""

    deferred = True  # found on demand with tool_search (first-request budget)

    name = "calendar_agenda"
    description = "List events of the primary Google Calendar from now over the next N days."
    parameters = {
        "type": "object",
        "properties": {"days": {"type": "integer", "minimum": 1, "maximum": 60}},
    }
    parallel_safe = True

    def __init__(self, cal: Calendar) -> None:
        self.cal = cal

    def summary(self, args: dict[str, Any]) -> str:
        return f"calendar_agenda {args.get('days', 7)} days"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return _read_only(self.summary(args))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        days = _int(args, "days", 7, 1, 60)
        try:
            items = await self.cal.agenda(days)
        except GoogleError as exc:
            raise ToolError(str(exc)) from None
        if not items:
            return ToolResult(output=f"no events in the next {days} days")
        lines = []
        for e in items:
            start, end = e.get("start") or {}, e.get("end") or {}
            when = f"{start.get('dateTime') or start.get('date', '')} - "
            when += str(end.get("dateTime") or end.get("date", ""))
            who = ", ".join(a.get("email", "") for a in e.get("attendees") or [])
            lines.append(
                f"{when}  {e.get('summary', '(no title)')}" + (f"  with {who}" if who else "")
            )
        return ToolResult(output="\n".join(lines), details={"count": len(items)})


class CalendarCreate(Tool):
    """Create an event on the primary calendar (asks first)."""

    deferred = True  # found on demand with tool_search (first-request budget)

    name = "calendar_create"
    description = (
        "Create an event on the primary Google Calendar (ISO 8601 start/end, e.g. "
        "2026-12-02T10:00:00+01:00); attendees get an invitation. Asks the user first."
    )
    parameters = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "start": {"type": "string"},
            "end": {"type": "string"},
            "attendees": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["title", "start", "end"],
    }

    def __init__(self, cal: Calendar) -> None:
        self.cal = cal

    def summary(self, args: dict[str, Any]) -> str:
        return f"calendar_create {str(args.get('title', ''))[:60]} at {args.get('start', '')}"

    async def precheck(self, args: dict[str, Any], ctx: ToolContext) -> None:
        self._parsed(args)

    def _parsed(self, args: dict[str, Any]) -> tuple[str, Any, Any, list[str]]:
        title = _str(args, "title").strip()
        if not title:
            raise ToolError("argument 'title' must not be empty")
        try:
            start = parse_time(_str(args, "start"), "start")
            end = parse_time(_str(args, "end"), "end")
        except GoogleError as exc:
            raise ToolError(str(exc)) from None
        if end <= start:
            raise ToolError("the event must end after it starts")
        return title, start, end, _emails(args.get("attendees", []), "attendees")

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        who = args.get("attendees") or []
        details = (
            f"create a Google Calendar event:\n\nTitle: {args.get('title', '')}\n"
            f"Start: {args.get('start', '')}\nEnd: {args.get('end', '')}"
        )
        if who:
            details += f"\nAttendees (each gets an invitation email): {', '.join(map(str, who))}"
        return ApprovalInfo(
            summary=self.summary(args),
            risk="normal",
            risk_reason="changes your calendar",
            details=details,
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        title, start, end, attendees = self._parsed(args)
        try:
            event = await self.cal.create(title, start, end, attendees)
        except GoogleError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(
            output=f"created {title!r} ({event.get('id', '')}) {event.get('htmlLink', '')}".strip(),
            details={"id": event.get("id"), "htmlLink": event.get("htmlLink")},
        )
