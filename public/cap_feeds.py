"""/feeds/<id>/cap.atom: the system's public warnings as an Atom index of CAP 1.2 alerts, one
entry per warning (its id stable across the warning's messages) linking to its latest message;
/feeds/<id>/cap/<identifier>.xml: each message as it was issued (cap.documents).

Reading issues nothing: the messages are issued once each change commits and on beat's sweep
(cap.tasks), so each one the index links to is kept and later ones reference it."""

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.html import escape, linebreaks
from django.utils.translation import gettext

from cap.documents import CAP_CONTENT_TYPE, alert_document
from cap.models import CapMessage, MsgType
from cap.selectors import earlier_messages, listed_messages, message_of
from core.links import absolute
from public.feed_http import public_feed
from public.feeds import FEED_MAX_AGE, SystemAtomFeed
from public.pages import of_public_system
from trails.models import TrailSystem

# A message never changes once issued.
MESSAGE_MAX_AGE = 3600


class CapAtomFeed(SystemAtomFeed):
    """The system's feed (its title, language, author, map link), listing warnings."""

    def get_object(self, request: HttpRequest, system: TrailSystem) -> TrailSystem:
        system.feed_now = timezone.now()
        return super().get_object(request, system)

    def title(self, system: TrailSystem) -> str:
        return gettext("%(name)s: warnings") % {"name": system.name}

    def subtitle(self, system: TrailSystem) -> str:
        return gettext("Danger notices and closures for avalanches or fire, as CAP 1.2 alerts.")

    def feed_url(self, system: TrailSystem) -> str:
        return absolute("feed-cap", system.pk)

    def feed_guid(self, system: TrailSystem) -> str:
        return absolute("feed-cap", system.pk)

    def items(self, system: TrailSystem) -> list[CapMessage]:
        return listed_messages(system.pk, system.feed_now)

    def item_title(self, message: CapMessage) -> str:
        headline = message.info["headline"]
        if message.msg_type == MsgType.CANCEL:
            return gettext("Cancelled: %(headline)s") % {"headline": headline}
        return headline

    def item_description(self, message: CapMessage) -> str:
        """The text, escaped: the feed's summary is HTML, and data is never markup."""
        return linebreaks(escape(message.info["description"]))

    def item_link(self, message: CapMessage) -> str:
        return absolute("feed-cap-message", message.trail_system_id, message.identifier)

    def item_guid(self, message: CapMessage) -> str:
        return f"{absolute('feed-cap', message.trail_system_id)}#{message.thread}"

    def item_categories(self, message: CapMessage) -> tuple[str]:
        return (message.msg_type,)

    def item_pubdate(self, message: CapMessage):
        return message.first_sent or message.sent

    def item_updateddate(self, message: CapMessage):
        return message.sent


def message_xml(message: CapMessage) -> bytes:
    """A message's CAP 1.2 document, as its URL answers it."""
    return alert_document(message, earlier_messages(message))


def listed_message_documents(system: TrailSystem) -> list[tuple[str, bytes]]:
    """The URL and CAP document of each message cap.atom lists now, whether the system is on
    the public map or not (manage.py check_feeds)."""
    return [
        (absolute("feed-cap-message", system.pk, message.identifier), message_xml(message))
        for message in listed_messages(system.pk, timezone.now())
    ]


cap_atom_view = public_feed(ttl=FEED_MAX_AGE)(of_public_system(CapAtomFeed()))


@public_feed(ttl=MESSAGE_MAX_AGE)
@of_public_system
def cap_message_view(request: HttpRequest, system: TrailSystem, identifier: str) -> HttpResponse:
    message = message_of(system.pk, identifier)
    if message is None:
        raise Http404("No such message.")
    return HttpResponse(message_xml(message), content_type=CAP_CONTENT_TYPE)
