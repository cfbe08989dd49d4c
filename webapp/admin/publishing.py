"""Compile requests (the outbox), read-only: when a change was queued and when it was served."""

from django.contrib import admin

from publishing.models import CompileRequest
from webapp.admin.base import ReadOnlyAdmin


@admin.register(CompileRequest)
class CompileRequestAdmin(ReadOnlyAdmin):
    list_display = ["id", "trail_system", "reason", "requested_on", "done_on", "published_path"]
    list_filter = [("done_on", admin.EmptyFieldListFilter), "trail_system"]
    list_select_related = ["trail_system"]
    search_fields = ["id", "trail_system__name", "reason"]
    date_hierarchy = "requested_on"
