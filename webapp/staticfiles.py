"""A static files finder that serves a few chosen files of an npm package, not all of it."""

from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

# URL prefix under STATIC_URL -> (package folder in node_modules, the files served from it).
NPM_FILES = {
    "vendor/firebase": (
        "firebase",
        ["firebase-app-compat.js", "firebase-auth-compat.js"],
    ),
}


class NpmFilesFinder(BaseFinder):
    """Finds only the files NPM_FILES names (the Firebase package is 54 MB, we need 170 kB)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.storages = {}
        for prefix, (package, names) in NPM_FILES.items():
            storage = FileSystemStorage(location=Path(settings.NODE_MODULES) / package)
            storage.prefix = prefix
            self.storages[prefix] = (storage, names)

    def find(self, path, find_all=False, **kwargs):
        """Like Django's own finders, [] when not found (also without find_all): a None would
        reach django.contrib.staticfiles.finders.find's list of matches, which WhiteNoise then
        takes for a path and fails on (a 500 for any missing file when it re-reads files)."""
        prefix, _, name = path.rpartition("/")
        storage, names = self.storages.get(prefix, (None, ()))
        if name not in names or not storage.exists(name):
            return []
        found = storage.path(name)
        return [found] if find_all else found

    def list(self, ignore_patterns):
        for storage, names in self.storages.values():
            for name in names:
                if storage.exists(name):
                    yield name, storage
