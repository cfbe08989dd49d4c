"""Opaque, Firestore-like identifiers: 20 random characters, so imported ids survive."""

import secrets
import string

ALPHABET = string.ascii_letters + string.digits
ID_LENGTH = 20
# Imported documents may carry ids of other lengths; keep room for them.
ID_MAX_LENGTH = 64


def new_id() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(ID_LENGTH))
