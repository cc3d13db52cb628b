"""`gg media image|tts|stt`: the media capability from the command line."""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path
from typing import Any

from ggcli.commands import add_connection_flags, connect

NAMES = ("media",)
_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "audio/wav": "wav"}


def register(sub: Any) -> None:
    """Add `gg media ...`."""
    p = sub.add_parser("media", help="generate images and speech, transcribe audio")
    msub = p.add_subparsers(dest="action", required=True)
    img = msub.add_parser("image", help="generate an image from a prompt")
    img.add_argument("prompt")
    img.add_argument("--size", default="1024x1024")
    img.add_argument("-o", "--output", type=Path, help="file to write (default gg-<id>.<ext>)")
    tts = msub.add_parser("tts", help="speak text to a WAV file")
    tts.add_argument("text")
    tts.add_argument("--voice", default="alloy")
    tts.add_argument("-o", "--output", type=Path)
    stt = msub.add_parser("stt", help="transcribe an audio file of this workspace")
    stt.add_argument("file", type=Path)
    for q in (img, tts, stt):
        add_connection_flags(q)


def run(args: argparse.Namespace) -> int:
    """Run one media command."""
    client = connect(args)
    try:
        if args.action == "stt":
            res = client.request("gg/media.stt", {"path": str(args.file.resolve())})
            print(res["text"])
            return 0
        if args.action == "image":
            item = client.request("gg/media.image", {"prompt": args.prompt, "size": args.size})
        else:
            item = client.request("gg/media.tts", {"text": args.text, "voice": args.voice})
        got = client.request("gg/media.get", {"mediaId": item["mediaId"]})
    finally:
        client.close()
    out = args.output or Path(f"gg-{item['mediaId']}.{_EXT.get(got['mime'], 'bin')}")
    out.write_bytes(base64.b64decode(got["data"]))
    sys.stderr.write(f"wrote {out} ({got['size']} bytes, {got['mime']})\n")
    return 0
