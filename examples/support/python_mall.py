"""A small Python mall server in front of `mallbot mall-server`, for the load
generator's `--mall python`: Python's standard-library HTTP server with its
defaults (a thread per request, HTTP/1.0 so one connection per request, a
listen backlog of five), passing each request on to the real mall server.
`GET /loadgen/requests` answers how many requests it has passed on.

Usage: python3 python_mall.py PORT UPSTREAM_URL
"""

import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

UPSTREAM = sys.argv[2]
SKIPPED = {"host", "connection", "content-length", "accept-encoding"}
passed_on = 0
counting = threading.Lock()


class Forward(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def forward(self):
        global passed_on
        if self.path == "/loadgen/requests":
            return self.answer(200, "text/plain", str(passed_on).encode())
        with counting:
            passed_on += 1
        length = int(self.headers.get("Content-Length") or 0)
        request = urllib.request.Request(
            UPSTREAM + self.path, data=self.rfile.read(length) if length else None, method=self.command
        )
        for name, value in self.headers.items():
            if name.lower() not in SKIPPED:
                request.add_header(name, value)
        try:
            with urllib.request.urlopen(request) as answer:
                status, headers, body = answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as refused:
            status, headers, body = refused.code, refused.headers, refused.read()
        self.answer(status, headers.get("Content-Type", "application/json"), body)

    def answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Forward).serve_forever()
