"""A fake LLM API on loopback: a real ``ThreadingHTTPServer`` on 127.0.0.1, in a thread.

It speaks ``POST /v1/chat/completions`` (OpenAI-compatible) and ``POST /v1/messages``
(Anthropic), records every request (path, lower-cased headers, JSON body) and answers
from a per-test script (a queue of :class:`Reply`, then an optional ``responder``) or,
by default, as a deterministic judge whose values follow from the prompt, so tests
know what to expect (see :func:`fake_score` and friends).

Run it alone for a benchmark: ``python -m tests.helpers.fake_llm --delay 0.05`` prints
the base URL and serves until killed.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATH = "/v1/chat/completions"
MESSAGES_PATH = "/v1/messages"


@dataclass
class Reply:
    """One scripted answer. ``content`` is the model's text (``None``: the default judge's);
    ``body`` replaces the whole HTTP body (a broken response); ``delay`` is in seconds."""

    status: int = 200
    content: str | None = None
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float | None = None
    usage: bool = True


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def user_text(self) -> str:
        messages = self.body.get("messages", []) if isinstance(self.body, dict) else []
        return "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")

    @property
    def system_text(self) -> str:
        if not isinstance(self.body, dict):
            return ""
        if "system" in self.body:
            return str(self.body["system"])
        return "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []) if m.get("role") == "system")


# --- the default deterministic judge ----------------------------------------------------


def between(text: str, tag: str) -> str:
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.DOTALL)
    return match.group(1) if match else ""


def fake_score(prediction: str) -> int:
    """jamendo-paper: the number of words modulo 6 (0-5)."""
    return len(prediction.split()) % 6


def fake_released(prediction: str) -> dict[str, int]:
    """jamendo-released: three criteria 1-5 from the word and character counts."""
    return {"correctness": 1 + len(prediction.split()) % 5, "comparative_validity": 1 + len(prediction) % 5,
            "reasoning_quality": 3}


def fake_error_type(prediction: str) -> str:
    words = prediction.lower().split()
    if "both" in words:
        return "comparative_collapse"
    if "roughly" in words:
        return "granularity_mismatch"
    return "attribute_hallucination"


def fake_bgm(caption: str) -> dict[str, Any]:
    """dialbgm-suitability ratings from the caption."""
    return {"technicality": 2.0 if "busy" in caption else 8.0, "fit": float(len(caption.split()) % 11),
            "pacing": 6.0, "prominent_vocals": "vocal" in caption.lower()}


def fake_choice(prediction: str, options: list[str]) -> int:
    """mmau-answer-mapping: a letter or "option N" names that option; else the one option whose text is in the
    answer (case aside); else 0 (none, or several)."""
    text = prediction.strip()
    letter = re.fullmatch(r"\(?([A-Za-z])\)?[.:]?", text)
    if letter and ord(letter[1].upper()) - 64 <= len(options):
        return ord(letter[1].upper()) - 64
    number = re.search(r"\boption (\d+)\b", text, re.I)
    if number and 1 <= int(number[1]) <= len(options):
        return int(number[1])
    found = [n for n, option in enumerate(options, start=1) if option.lower() in text.lower()]
    return found[0] if len(found) == 1 else 0


def listed_options(user: str) -> list[str]:
    """The options of a mapping prompt (``1. text`` lines after ``## Options``)."""
    block = user.split("## Options\n", 1)[1].split("\n\n", 1)[0]
    return [line.split(". ", 1)[1] for line in block.splitlines() if ". " in line]


def default_content(request: Recorded) -> str:
    system, user = request.system_text, request.user_text
    if '"choice"' in system:
        return json.dumps({"choice": fake_choice(between(user, "prediction"), listed_options(user))})
    if "comparative_validity" in system:
        verdict: dict[str, Any] = fake_released(between(user, "prediction"))
    elif "error_type" in system:
        verdict = {"error_type": fake_error_type(between(user, "prediction")), "explanation": "fake"}
    elif "technicality" in system:
        verdict = fake_bgm(between(user, "caption"))
    else:
        verdict = {"score": fake_score(between(user, "prediction")), "explanation": "fake reason"}
    return json.dumps(verdict)


# --- the server ---------------------------------------------------------------------------


class FakeLLM:
    """Start with ``with FakeLLM() as fake:``; ``fake.base_url`` ends in ``/v1``."""

    def __init__(self, *, delay: float = 0.0) -> None:
        self.delay = delay
        self.script: deque[Reply] = deque()
        self.responder: Callable[[Recorded], Reply] | None = None
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def queue(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def count(self, path: str | None = None) -> int:
        with self._lock:
            return sum(path is None or r.path == path for r in self.requests)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _arrive(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.script:
                return self.script.popleft()
        return self.responder(request) if self.responder else Reply()

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stall

    def do_POST(self) -> None:
        fake: FakeLLM = self.server.fake  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        request = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        reply = fake._arrive(request)
        try:
            time.sleep(fake.delay if reply.delay is None else reply.delay)
            self._answer(request, reply)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
            pass
        finally:
            fake._leave()

    def _answer(self, request: Recorded, reply: Reply) -> None:
        if request.path not in (CHAT_PATH, MESSAGES_PATH):
            reply = Reply(404, body=json.dumps({"error": {"message": f"no route {request.path}"}}))
        payload = reply.body
        if payload is None and reply.status >= 400:
            payload = json.dumps({"error": {"message": f"fake error {reply.status}"}})
        if payload is None:
            content = reply.content if reply.content is not None else default_content(request)
            payload = json.dumps(_response(request, content, reply.usage))
        data = payload.encode()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _response(request: Recorded, content: str, usage: bool) -> dict[str, Any]:
    model = request.body.get("model", "") if isinstance(request.body, dict) else ""
    prompt_tokens = (len(request.system_text) + len(request.user_text)) // 4
    completion_tokens = max(len(content) // 4, 1)
    if request.path == MESSAGES_PATH:
        response: dict[str, Any] = {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": content}], "stop_reason": "end_turn",
        }
        if usage:
            response["usage"] = {"input_tokens": prompt_tokens, "output_tokens": completion_tokens}
        return response
    response = {
        "id": "chatcmpl-fake", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }
    if usage:
        response["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}
    return response


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the fake judge API on loopback")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    args = parser.parse_args()
    with FakeLLM(delay=args.delay) as fake:
        print(fake.base_url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
