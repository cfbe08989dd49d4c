"""What every public page of one system shares: the system found on the public map (or the
not-found answer), in its language, and the context of the message page."""

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import get_language, gettext

from public.selectors import public_system
from trails.models import TrailSystem

Answer = Callable[[HttpRequest], HttpResponse]
View = Callable[..., HttpResponse]


def message_context(
    heading: str, message: str, *, system: TrailSystem | None = None, button: str = ""
) -> dict:
    """The context of public/message.html, in the active language: a heading and a sentence,
    the system whose map the page links back to, and the button that acts when there is one."""
    return {
        "heading": heading,
        "message": message,
        "language": get_language(),
        "system": system,
        "button": button,
    }


def not_found(request: HttpRequest) -> HttpResponse:
    context = message_context(
        gettext("Trail system not found"),
        gettext("There is no public trail map at this address."),
    )
    return render(request, "public/message.html", context, status=404)


def of_public_system(view: View | None = None, *, missing: Answer = not_found):
    """A page of one system on the public map: the view gets the system (not its id) and
    speaks the system's language; an id that is not on the map gets `missing`'s answer (the
    not-found page; a JSON route gives its envelope). `@of_public_system` or
    `@of_public_system(missing=...)`."""

    def decorate(view: View) -> View:
        @wraps(view)
        def page(request: HttpRequest, system_id: str, **kwargs) -> HttpResponse:
            system = public_system(system_id)
            if system is None:
                return missing(request)
            with translation.override(system.language):
                return view(request, system, **kwargs)

        return page

    return decorate(view) if view is not None else decorate
