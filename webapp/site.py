"""The admin site as the managers' web app: who may enter, and the sign-in routes."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import path
from django.utils.translation import gettext_lazy as _

from trails.selectors import systems_with_roles
from webapp import roles, signin


class TrailsAdminSite(admin.AdminSite):
    site_header = _("Trail status")
    site_title = _("Trail status")
    index_title = _("Your trail systems")

    def has_permission(self, request) -> bool:
        return roles.may_enter(request.user)

    def get_urls(self):
        # The board's views use the admin pages' helpers, which need this site built first.
        from webapp import board, reports_page

        sign_in_routes = [
            path("login/token/", signin.token_login, name="login_token"),
            path("login/link/", signin.request_link, name="login_link"),
            path("login/link/use/", signin.use_link, name="login_link_use"),
        ]
        board_routes = [
            path("trail-systems/board-worker.js", board.worker, name="board_worker"),
            path(
                "trail-systems/<str:system_id>/board/",
                self.admin_view(
                    lambda request, system_id: board.board(request, system_id, site=self)
                ),
                name="trail_system_board",
            ),
        ]
        return [*sign_in_routes, *board_routes, *reports_page.routes(self), *super().get_urls()]

    def index(self, request, extra_context=None):
        systems = systems_with_roles(request.user, everything=True)
        for system in systems:
            system.role_label = roles.shown_role(request.user, system, system.role)
        return super().index(request, {"managed_systems": systems, **(extra_context or {})})

    def login(self, request, extra_context=None):
        context = {**signin.login_context(request), **(extra_context or {})}
        return signin.allow_firebase(super().login(request, context))

    def page_not_found(self, request: HttpRequest) -> HttpResponse:
        """An unknown address or a row that is not the person's (handler404 under /admin/)."""
        context = {**self.each_context(request), "title": _("Page not found")}
        return render(request, "admin/404.html", context, status=404)

    def permission_denied(self, request: HttpRequest) -> HttpResponse:
        """A page the person's role does not open, a Trustee's look at an Administrator's
        page say (handler403 under /admin/): in the web app's look, with the way home."""
        context = {**self.each_context(request), "title": _("Not open to your role")}
        return render(request, "admin/403.html", context, status=403)

    def server_error(self) -> HttpResponse:
        """handler500's page under /admin/, rendered without the request: its session, the
        person's roles and the database itself may be what failed."""
        context = {"site_header": self.site_header, "site_title": self.site_title}
        return HttpResponseServerError(render_to_string("webapp/500.html", context))
