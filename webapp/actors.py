"""Who writes through the web app: every page and admin module passes this actor to the
services."""

from core.actors import Actor, Via


def web_actor(request) -> Actor:
    """The signed-in person, writing through the web app."""
    return Actor(request.user.pk, Via.WEB_APP)
