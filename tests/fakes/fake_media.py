"""A fake OpenAI-compatible media endpoint on 127.0.0.1 speaking the real wire format.

- POST /v1/images/generations (JSON) -> {"created", "data": [{"b64_json": <a real PNG>}]}
- POST /v1/audio/speech (JSON) -> real WAV audio spoken by espeak-ng
- POST /v1/audio/transcriptions (multipart/form-data: file, model) -> {"text": ...}: the fake cannot
  understand speech, so a test registers the SHA-256 of the audio it will upload with its text;
  the fake checks the upload arrived byte for byte and answers with that text.
Every request is recorded (path, headers, parsed body) for assertions.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import subprocess
import tempfile
import threading
import time
import zlib
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def png(width: int = 4, height: int = 3, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A real, valid PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def espeak_wav(text: str) -> bytes:
    """Real speech audio (WAV) from espeak-ng."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "speech.wav"
        subprocess.run(
            ["espeak-ng", "-w", str(out), text], check=True, capture_output=True, timeout=30
        )
        return out.read_bytes()


class FakeMedia:
    """Serves the three media routes from a background thread."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.transcripts: dict[str, str] = {}
        self.image = png()
        self.fail_with: int | None = None
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n)
                rec: dict[str, Any] = {"path": self.path, "headers": dict(self.headers)}
                outer.requests.append(rec)
                if outer.fail_with:
                    return self._send(
                        outer.fail_with, "application/json", b'{"error":{"message":"nope"}}'
                    )
                if self.path == "/v1/images/generations":
                    rec["json"] = json.loads(body)
                    data = {
                        "created": int(time.time()),
                        "data": [{"b64_json": base64.b64encode(outer.image).decode()}],
                    }
                    return self._send(200, "application/json", json.dumps(data).encode())
                if self.path == "/v1/audio/speech":
                    rec["json"] = req = json.loads(body)
                    return self._send(200, "audio/wav", espeak_wav(req["input"]))
                if self.path == "/v1/audio/transcriptions":
                    ctype = self.headers.get("Content-Type", "")
                    msg = BytesParser(policy=HTTP).parsebytes(
                        f"Content-Type: {ctype}\r\n\r\n".encode() + body
                    )
                    parts = {
                        p.get_param("name", header="content-disposition"): p
                        for p in msg.iter_parts()
                    }
                    audio = parts["file"].get_payload(decode=True)
                    rec["model"] = parts["model"].get_content().strip()
                    rec["filename"] = parts["file"].get_filename()
                    rec["sha256"] = digest = hashlib.sha256(audio).hexdigest()
                    text = outer.transcripts.get(digest)
                    if text is None:
                        return self._send(
                            400, "application/json", b'{"error":{"message":"unknown audio"}}'
                        )
                    return self._send(200, "application/json", json.dumps({"text": text}).encode())
                self._send(404, "application/json", b'{"error":{"message":"no route"}}')

            def _send(self, status: int, ctype: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def expect_audio(self, audio: bytes, text: str) -> None:
        """Answer `text` when exactly these bytes are uploaded."""
        self.transcripts[hashlib.sha256(audio).hexdigest()] = text

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()
