import os

from django.core.files.storage import storages
from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Loaded as the worker starts, not by its first request while a reader waits (2 to 4 s on the
# 2-core machine, a phone's first map after a deploy): the URL configuration, which imports
# every view, and the storage of the published files, which imports its backends.
get_resolver().url_patterns  # noqa: B018 - the property imports them
storages["default"]
