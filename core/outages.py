"""Errors that mean a service a request needs (PostgreSQL, Redis) cannot be reached just now.
Every interface answers them 503 with Retry-After, so the client sends again a little later
(a tracker app's queue, the map's report form), never 500: the API's exception handler, the
pages' and the public writes' middleware (config.middleware.UnavailableMiddleware)."""

from django.db import InterfaceError, OperationalError
from redis.exceptions import RedisError

from core.ratelimit import Unavailable

UNAVAILABLE = (OperationalError, InterfaceError, RedisError, Unavailable)
RETRY_AFTER_SECONDS = 5
