"""What a browser posts when a person submits a web-app form without touching it: every
field with the value the page shows (a select's selected option, else its first)."""

from html.parser import HTMLParser


class _FormFields(HTMLParser):
    def __init__(self, form_id: str):
        super().__init__()
        self.form_id = form_id
        self.inside = False
        self.fields: list[tuple[str, str]] = []
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._textarea: str | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        if not self.inside or ("name" not in attrs and tag != "option"):
            return
        if tag == "input":
            kind = attrs.get("type", "text")
            if kind in ("submit", "button", "file", "image"):
                return
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            self.fields.append(
                (attrs["name"], attrs.get("value", "on" if kind == "checkbox" else ""))
            )
        elif tag == "select":
            self._select, self._options = attrs["name"], []
        elif tag == "option" and self._select is not None:
            self._options.append((attrs.get("value", ""), "selected" in attrs))
        elif tag == "textarea":
            self._textarea, self._text = attrs["name"], ""

    def handle_data(self, data):
        if self._textarea is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._options if selected] or [
                value for value, _ in self._options[:1]
            ]
            self.fields += [(self._select, value) for value in chosen]
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            # Browsers drop the one newline that follows <textarea>.
            self.fields.append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None


def untouched_post(html: str, form_id: str) -> dict[str, str]:
    """The form's fields as the browser would submit them."""
    parser = _FormFields(form_id)
    parser.feed(html)
    return dict(parser.fields)
