"""A CAP 1.2 alert document from an issued message: pure, no database. Written with lxml in
the order the OASIS schema asks; text from data is XML-escaped by lxml (cap.sources left out
what XML cannot hold)."""

from datetime import UTC
from urllib.parse import urlsplit

from django.conf import settings
from lxml import etree

from cap.models import CapMessage
from cap.sources import cap_time

CAP_NAMESPACE = "urn:oasis:names:tc:emergency:cap:1.2"
CAP_CONTENT_TYPE = "application/cap+xml"
# The info block's elements, in the schema's order (area is written apart).
INFO_ORDER = (
    "language",
    "category",
    "event",
    "responseType",
    "urgency",
    "severity",
    "certainty",
    "eventCode",
    "onset",
    "expires",
    "senderName",
    "headline",
    "description",
    "instruction",
    "web",
)


def sender(system_id: str) -> str:
    """CAP's sender: the system at this service's host, unique to it the world over."""
    return f"{system_id}@{urlsplit(settings.PUBLIC_BASE_URL).netloc}"


def _reference(message: CapMessage) -> str:
    return f"{sender(message.trail_system_id)},{message.identifier},{_sent(message)}"


def _sent(message: CapMessage) -> str:
    return cap_time(message.sent, UTC)


def _add(parent: etree._Element, name: str, value: object) -> None:
    """One element per value (a list makes several); a dict is a valueName/value pair."""
    for one in value if isinstance(value, list) else [value]:
        child = etree.SubElement(parent, f"{{{CAP_NAMESPACE}}}{name}")
        if isinstance(one, dict):
            _add(child, "valueName", one["valueName"])
            _add(child, "value", one["value"])
        else:
            child.text = str(one)


def alert_document(message: CapMessage, references: list[CapMessage]) -> bytes:
    """The message as a CAP 1.2 alert; `references` are the earlier messages it refers to
    (cap.selectors.earlier_messages)."""
    alert = etree.Element(f"{{{CAP_NAMESPACE}}}alert", nsmap={None: CAP_NAMESPACE})
    _add(alert, "identifier", message.identifier)
    _add(alert, "sender", sender(message.trail_system_id))
    _add(alert, "sent", _sent(message))
    _add(alert, "status", "Actual")
    _add(alert, "msgType", message.msg_type)
    _add(alert, "scope", "Public")
    if references:
        _add(alert, "references", " ".join(_reference(earlier) for earlier in references))
    _add(alert, "incidents", message.thread)
    info = etree.SubElement(alert, f"{{{CAP_NAMESPACE}}}info")
    for name in INFO_ORDER:
        if name in message.info:
            _add(info, name, message.info[name])
    for area in message.info["area"]:
        block = etree.SubElement(info, f"{{{CAP_NAMESPACE}}}area")
        _add(block, "areaDesc", area["areaDesc"])
        _add(block, "polygon", area["polygon"])
    return etree.tostring(alert, xml_declaration=True, encoding="UTF-8", pretty_print=True)
