"""A club's page on another site reads the published file from the browser (spec section 4:
no credentials, no origin allowlist), served by the service itself (local storage)."""

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from publishing.storage import public_url

pytestmark = pytest.mark.django_db

CLUB_PAGE = """<!doctype html>
<title>Our trails</title>
<p id="status">loading</p>
<script>
fetch(%r, {headers: {"If-None-Match": "\\"none\\""}})
  .then((answer) => answer.json())
  .then((map) => {
    document.getElementById("status").textContent =
      map.features.filter((f) => f.geometry.type === "LineString").length + " trails";
  })
  .catch((error) => { document.getElementById("status").textContent = "refused: " + error; });
</script>
"""


@pytest.fixture
def club_site(tmp_path):
    """Another origin: a plain HTTP server on a free port, serving one page."""
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://localhost:{server.server_address[1]}"
    server.shutdown()


def test_a_page_on_another_site_reads_the_published_file(
    published_path, service_url, club_site, page, screenshot
):
    folder, club_url = club_site
    file_url = f"{service_url}{public_url(published_path)}"
    # The If-None-Match header makes the browser send a preflight first.
    (folder / "index.html").write_text(CLUB_PAGE % file_url)
    answered = []
    page.on("response", lambda r: answered.append((r.request.method, r.url, r.status)))

    page.goto(f"{club_url}/index.html")

    status = page.locator("#status")
    status.filter(has_text="trails").wait_for()
    screenshot("club-page-reads-the-published-file")
    assert status.inner_text() == "5 trails"
    assert ("GET", file_url, 200) in answered
