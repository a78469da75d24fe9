"""A small web site on 127.0.0.1 (a free port) for crawl tests, with an access log.

Four unique articles; a near-copy (one word changed) of article 1 and of article 3, found only
through the original's page; article 2 mirrored under another path and article 3 under another
query string. Every page links back to the index and to other pages, so a crawler meets each URL
many times. The index is not an article: it yields no item.
"""
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from site_texts import article, edited

ORIGINALS = ["/news/1", "/news/2", "/news/3", "/news/4"]
#: copy -> its original
COPY_OF = {"/copy/1": "/news/1", "/mirror/news/2": "/news/2", "/copy/3": "/news/3",
           "/news/3?utm_source=feed": "/news/3"}
COPIES = list(COPY_OF)


def pages():
    """path -> (article text or None, links)."""
    a = {n: article(100 + n) for n in range(1, 5)}
    return {
        "/": (None, ORIGINALS),
        "/news/1": (a[1], ["/", "/news/2", "/copy/1"]),
        "/news/2": (a[2], ["/", "/news/1", "/mirror/news/2"]),
        "/news/3": (a[3], ["/", "/copy/3", "/news/3?utm_source=feed", "/news/4"]),
        "/news/4": (a[4], ["/", "/news/1", "/news/3"]),
        "/copy/1": (edited(a[1]), ["/", "/news/1"]),
        "/mirror/news/2": (a[2], ["/", "/news/2"]),
        "/copy/3": (edited(a[3], position=17), ["/", "/news/3"]),
        "/news/3?utm_source=feed": (a[3], ["/", "/news/4"]),
    }


def _html(text, links):
    body = "".join('<a href="%s">%s</a> ' % (href, href) for href in links)
    if text is not None:
        body += "<article>%s</article>" % text
    return ("<html><body>%s</body></html>" % body).encode()


class LocalSite:
    """Serves ``pages()`` in a thread; ``requests`` lists each request's path in arrival order."""

    def __init__(self):
        self.pages = pages()
        self.requests = []
        lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                with lock:
                    site.requests.append(self.path)
                page = site.pages.get(self.path)
                body = _html(*page) if page else b"not found"
                self.send_response(200 if page else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
