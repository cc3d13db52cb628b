"""A fake Telegram Bot API server on 127.0.0.1 speaking the real Bot API JSON.

Routes: POST /bot<token>/<method> (JSON, urlencoded or multipart bodies, as aiogram sends them)
for getMe, getUpdates (offset confirms, timeout long-polls, bounded), sendMessage,
editMessageText, sendVoice (multipart upload), sendChatAction, answerCallbackQuery and getFile;
GET /file/bot<token>/<path> downloads a file. `fail_next(method, retry_after)` answers the next
call of a method with the real 429 shape (`parameters.retry_after`). A test feeds updates with
`text`, `voice` and `press`, and waits on what the bot sent with `wait_for`.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT = {"id": 777, "is_bot": True, "first_name": "gg", "username": "gg_test_bot"}


def _parse(ctype: str, body: bytes) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Fields (JSON-decoded where they are JSON) and uploaded files of one request."""
    fields: dict[str, Any] = {}
    files: dict[str, bytes] = {}
    if ctype.startswith("application/json"):
        return (json.loads(body or b"{}"), files)
    if ctype.startswith("multipart/form-data"):
        msg = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {ctype}\r\n\r\n".encode() + body)
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            if part.get_filename() is not None:
                files[str(name)] = payload
            else:
                fields[str(name)] = payload.decode()
    else:
        fields = dict(urllib.parse.parse_qsl(body.decode()))
    for k, v in list(fields.items()):
        if isinstance(v, str):
            try:
                fields[k] = json.loads(v)
            except ValueError:
                pass
    return fields, files


def _chat(chat_id: int) -> dict[str, Any]:
    """A chat as the Bot API shows it: negative ids are groups, as on Telegram."""
    if chat_id < 0:
        return {"id": chat_id, "type": "supergroup", "title": "a group"}
    return {"id": chat_id, "type": "private"}


class FakeTelegram:
    """The Bot API of one bot token, served from a background thread."""

    def __init__(self, token: str = "123:fake-token") -> None:
        self.token = token
        self.calls: list[dict[str, Any]] = []
        self.updates: list[dict[str, Any]] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.voices: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.failures: dict[str, list[int]] = {}
        self.throttled: list[str] = []
        self._next_update = 1
        self._next_message = 100
        self._cond = threading.Condition()
        outer = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                prefix = f"/file/bot{outer.token}/"
                path = self.path[len(prefix) :] if self.path.startswith(prefix) else None
                data = outer.files.get(path or "")
                if data is None:
                    return self._send(404, b"not found", "text/plain")
                self._send(200, data, "application/octet-stream")

            def _body(self) -> bytes:
                if "chunked" not in self.headers.get("Transfer-Encoding", ""):
                    return self.rfile.read(int(self.headers.get("Content-Length") or 0))
                out = b""  # aiohttp streams multipart uploads chunked
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()

            def do_POST(self) -> None:
                body = self._body()
                prefix = f"/bot{outer.token}/"
                if not self.path.startswith(prefix):
                    return self._json(
                        401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
                    )
                method = self.path[len(prefix) :]
                fields, files = _parse(self.headers.get("Content-Type", ""), body)
                status, out = outer._call(method, fields, files)
                self._json(status, out)

            def _json(self, status: int, obj: dict[str, Any]) -> None:
                self._send(status, json.dumps(obj).encode(), "application/json")

            def _send(self, status: int, data: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a long poll the bot abandoned at shutdown: not a failure of the fake

        self.httpd = Server(("127.0.0.1", 0), H)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    # -- the API -------------------------------------------------------------------------------

    def _call(
        self, method: str, f: dict[str, Any], files: dict[str, bytes]
    ) -> tuple[int, dict[str, Any]]:
        with self._cond:
            self.calls.append({"method": method, "fields": f, "at": time.monotonic()})
            self._cond.notify_all()
            pending = self.failures.get(method)
            if pending:
                retry = pending.pop(0)
                self.throttled.append(method)
                return 429, {
                    "ok": False,
                    "error_code": 429,
                    "description": f"Too Many Requests: retry after {retry}",
                    "parameters": {"retry_after": retry},
                }
        if method == "getMe":
            return 200, {"ok": True, "result": BOT}
        if method == "getUpdates":
            return 200, {"ok": True, "result": self._get_updates(f)}
        with self._cond:
            result = self._write(method, f, files)
            self._cond.notify_all()
        if result is None:
            return 400, {"ok": False, "error_code": 400, "description": f"Bad Request: {method}"}
        return 200, {"ok": True, "result": result}

    def _get_updates(self, f: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(f.get("offset") or 0)
        # Long polling, bounded so a stopping test never waits long on the server.
        deadline = time.monotonic() + min(float(f.get("timeout") or 0), 2.0)
        with self._cond:
            # Confirmed updates are kept on purpose: a bot that forgot its offset and polls
            # without one gets everything again, so a test sees a replay instead of hiding it.
            while True:
                ready = [u for u in self.updates if u["update_id"] >= offset]
                left = deadline - time.monotonic()
                if ready or left <= 0:
                    return ready[: int(f.get("limit") or 100)]
                self._cond.wait(left)

    def _write(self, method: str, f: dict[str, Any], files: dict[str, bytes]) -> Any:
        if method in ("sendMessage", "sendVoice"):
            self._next_message += 1
            msg: dict[str, Any] = {
                "message_id": self._next_message,
                "date": int(time.time()),
                "chat": _chat(int(f["chat_id"])),
                "from": BOT,
            }
            if method == "sendMessage":
                msg["text"] = f["text"]
                msg["edits"] = 0
                if "reply_markup" in f:
                    msg["reply_markup"] = f["reply_markup"]
                self.messages[msg["message_id"]] = msg
            else:
                ref = str(f.get("voice", ""))
                # aiogram names the part and sends voice="attach://<name>"; curl sends voice=@file.
                audio = files.get(ref.removeprefix("attach://")) or files.get("voice", b"")
                self.voices.append({"chat_id": int(f["chat_id"]), "bytes": audio, **f})
                msg["voice"] = {
                    "file_id": f"v{msg['message_id']}",
                    "file_unique_id": "u",
                    "duration": 1,
                }
            return {k: v for k, v in msg.items() if k != "edits"}
        if method == "editMessageText":
            msg = self.messages.get(int(f["message_id"]))
            if msg is None:
                return None
            msg["text"] = f["text"]
            msg["edits"] += 1
            # Like Telegram: an edit without reply_markup removes the inline keyboard.
            if "reply_markup" in f:
                msg["reply_markup"] = f["reply_markup"]
            else:
                msg.pop("reply_markup", None)
            return {k: v for k, v in msg.items() if k != "edits"}
        if method in ("answerCallbackQuery", "sendChatAction"):
            return True
        if method == "getFile":
            fid = str(f["file_id"])
            if fid not in self.files:
                return None
            return {
                "file_id": fid,
                "file_unique_id": fid,
                "file_size": len(self.files[fid]),
                "file_path": fid,
            }
        return None

    # -- what a test does ----------------------------------------------------------------------

    def _push(self, update: dict[str, Any]) -> int:
        with self._cond:
            uid = self._next_update
            self._next_update += 1
            self.updates.append({"update_id": uid, **update})
            self._cond.notify_all()
            return uid

    def _message(self, chat_id: int, user_id: int | None = None, **extra: Any) -> dict[str, Any]:
        self._next_message += 1
        return {
            "message_id": self._next_message,
            "date": int(time.time()),
            "chat": _chat(chat_id),
            "from": {"id": user_id or chat_id, "is_bot": False, "first_name": "user"},
            **extra,
        }

    def text(self, chat_id: int, text: str, user_id: int | None = None) -> int:
        """A user (by default the chat's own, in a private chat) writes `text` in `chat_id`."""
        return self._push({"message": self._message(chat_id, user_id, text=text)})

    def voice(self, chat_id: int, audio: bytes) -> int:
        """A user sends a voice note."""
        fid = f"voice_{len(self.files) + 1}"
        self.files[fid] = audio
        voice = {"file_id": fid, "file_unique_id": fid, "duration": 1, "mime_type": "audio/ogg"}
        return self._push({"message": self._message(chat_id, voice=voice)})

    def press(self, chat_id: int, message_id: int, data: str, user_id: int | None = None) -> int:
        """A user (by default the private chat's own) presses an inline button of a message."""
        msg = {k: v for k, v in self.messages[message_id].items() if k != "edits"}
        query = {
            "id": f"cq{self._next_update}",
            "from": {"id": user_id or chat_id, "is_bot": False, "first_name": "user"},
            "chat_instance": "ci",
            "message": msg,
            "data": data,
        }
        return self._push({"callback_query": query})

    def raw(self, update: dict[str, Any]) -> int:
        """Any update body (a test's malformed or unusual one)."""
        return self._push(update)

    def fail_next(self, method: str, retry_after: int) -> None:
        """Answer the next call of `method` with 429 and parameters.retry_after."""
        with self._cond:
            self.failures.setdefault(method, []).append(retry_after)

    def wait_for(self, pred: Callable[[], Any], timeout: float = 60) -> Any:
        """Wait until pred() is truthy (re-checked on every call the bot makes)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = pred()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"timed out; calls: {[c['method'] for c in self.calls][-20:]}"
                    )
                self._cond.wait(min(left, 0.2))

    def sent_to(self, chat_id: int) -> list[dict[str, Any]]:
        """The bot's text messages in a chat, oldest first."""
        return [m for m in self.messages.values() if m["chat"]["id"] == chat_id]

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()
