"""django-axes' lockout list in the web app, without its bulk clean-up action.

That action reads attributes axes sets only while a sign-in is processed, so from the list it
fails with an AttributeError; expired lockouts are cleaned up at every sign-in anyway.
"""

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin


class LockoutAdmin(AccessAttemptAdmin):
    actions = []


def register() -> None:
    admin.site.unregister(AccessAttempt)
    admin.site.register(AccessAttempt, LockoutAdmin)
