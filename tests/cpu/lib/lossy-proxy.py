#!/usr/bin/env python3
"""lossy-proxy.py LISTEN_PORT UPSTREAM_PORT COUNT_FILE - an HTTP proxy on loopback that
loses the answer of the first POST /api/submissions: it forwards the request whole, so the
server makes the submission, then closes the client's connection without a byte, as a
server killed mid-request does. Every other request, and that post sent again, is passed
through. COUNT_FILE gets one line per POST /api/submissions it forwarded, with the
request's Idempotency-Key. Used by tests/cpu/cli.sh (the CLI sends the post again)."""
import http.client
import http.server
import sys
import threading

listen, upstream, count_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lost = threading.Event()


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        up = http.client.HTTPConnection("127.0.0.1", upstream, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "host")}
        up.request(self.command, self.path, body=body or None, headers=headers)
        res = up.getresponse()
        data = res.read()
        up.close()
        if self.command == "POST" and self.path.endswith("/api/submissions"):
            with open(count_file, "a") as f:
                f.write("%s\n" % self.headers.get("Idempotency-Key"))
            if not lost.is_set():
                lost.set()
                self.close_connection = True
                self.connection.close()
                return
        self.send_response(res.status)
        for k, v in res.getheaders():
            if k.lower() not in ("connection", "transfer-encoding", "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    do_GET = do_POST = do_DELETE = forward


http.server.ThreadingHTTPServer(("127.0.0.1", listen), Proxy).serve_forever()
