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
        prefix, _, name = path.rpartition("/")
        storage, names = self.storages.get(prefix, (None, ()))
        if name not in names or not storage.exists(name):
            return [] if find_all else None
        found = storage.path(name)
        return [found] if find_all else found

    def list(self, ignore_patterns):
        for storage, names in self.storages.values():
            for name in names:
                if storage.exists(name):
                    yield name, storage
