"""The web app's pages, one module per app whose models they edit; importing registers them."""

from webapp.admin import accounts, publishing, schedules, trails, updates, webhooks  # noqa: F401
