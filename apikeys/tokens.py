"""Unsigned ID tokens the Firebase Auth emulator accepts; for tests and `dev_token` only."""

import base64
import json
import time

from django.conf import settings


def _b64(data: dict) -> str:
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def mint_emulator_token(
    uid: str,
    email: str | None = None,
    *,
    expires_in: int = 3600,
    project_id: str | None = None,
    **claims,
) -> str:
    project = project_id or settings.FIREBASE_PROJECT_ID
    now = int(time.time())
    payload = {
        "iss": f"https://securetoken.google.com/{project}",
        "aud": project,
        "auth_time": now,
        "iat": now,
        "exp": now + expires_in,
        "sub": uid,
        "user_id": uid,
        **({"email": email, "email_verified": True} if email else {}),
        **claims,
    }
    return f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(payload)}."
