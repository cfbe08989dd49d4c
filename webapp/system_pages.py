"""The per-system pages beyond the admin's forms: the overview and the invitation of members."""

import segno
from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.db.models import Q
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from apikeys.services import invite_member
from core.errors import DomainError
from core.links import absolute
from publishing.models import CompileRequest
from trails.enums import Role, TrailType, role_label
from trails.importing import InvalidInput, validate_role
from trails.models import TrailSystem
from webapp import roles
from webapp.actors import web_actor
from webapp.refusals import add_refusal
from webapp.signin import send_signin_link

OTHER_ROLE = "other"


def system_or_404(request, system_id: str, who: str) -> TrailSystem:
    """The system when the signed-in person holds `who` on it; 404 when they have no part in it,
    as for any row; 403 (the page that says so and where to turn) to a member without `who`,
    such as a Trustee following an Administrator's link, who would read 404 as a broken link."""
    system = TrailSystem.objects.filter(pk=system_id).first()
    if system is None:
        raise Http404
    if roles.is_super(request.user) or roles.holds(request.user, who, system):
        return system
    if roles.holds(request.user, roles.MEMBER, system):
        raise PermissionDenied
    raise Http404


def public_map_url(system: TrailSystem) -> str:
    return absolute("public-map", system.pk)


def last_compile(system: TrailSystem) -> CompileRequest | None:
    return (
        CompileRequest.objects.filter(trail_system=system, done_on__isnull=False)
        .order_by("-done_on")
        .first()
    )


def overview(model_admin, request, system_id: str):
    """Counts, the last compile, the published file and the public map with its QR code."""
    system = system_or_404(request, system_id, roles.MEMBER)
    compiled = last_compile(system)
    map_url = public_map_url(system)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": system.name,
        "opts": model_admin.opts,
        "system": system,
        "role": roles.shown_role(
            request.user,
            system,
            Role.ADMINISTRATOR
            if roles.is_super(request.user)
            else roles.role_for(request.user, system),
        ),
        "counts": {
            _("Trails"): system.trails.count(),
            _("Open trails"): system.open_trails,
            _("Caution trails"): system.caution_trails,
            _("Closed trails"): system.closed_trails,
            _("Points"): system.points.count(),
            _("Active updates"): system.updates.active().count(),
            _("Subscribers"): system.subscribers.filter(unsubscribed_on__isnull=True).count(),
        },
        "uncounted_trails": system.trails.filter(Q(type=TrailType.LIFT) | Q(hidden=True)).count(),
        "compiled": compiled,
        "compile_seconds": (
            (compiled.done_on - (compiled.started_on or compiled.requested_on)).total_seconds()
            if compiled
            else None
        ),
        "published_url": default_storage.url(system.geo_json_path) if system.geo_json_path else "",
        "map_url": map_url,
        "map_qr_svg": segno.make(map_url, error="m").svg_inline(scale=5, title=map_url),
        "may_administer": roles.is_super(request.user)
        or roles.holds(request.user, roles.ADMINISTRATOR, system),
    }
    return TemplateResponse(request, "webapp/system_overview.html", context)


class InviteForm(forms.Form):
    email = forms.EmailField(label=_("E-mail address"))
    role = forms.ChoiceField(
        label=_("Role"),
        choices=[
            (Role.TRUSTEE, Role.TRUSTEE.label),
            (Role.ADMINISTRATOR, Role.ADMINISTRATOR.label),
            (OTHER_ROLE, _("Another role, named below")),
        ],
        initial=Role.TRUSTEE,
    )
    role_name = forms.CharField(label=_("Role name"), required=False, max_length=60)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("role") == OTHER_ROLE:
            try:
                cleaned["role"] = validate_role(cleaned.get("role_name", ""))
            except InvalidInput as error:
                self.add_error("role_name", str(error))
        return cleaned


def invite(model_admin, request, system_id: str):
    """Invite by e-mail: the account is made if needed, and a sign-in link goes to the address."""
    system = system_or_404(request, system_id, roles.ADMINISTRATOR)
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            invitation = invite_member(
                system=system,
                email=form.cleaned_data["email"],
                role=form.cleaned_data["role"],
                actor=web_actor(request),
            )
        except DomainError as error:
            add_refusal(form, error)
        else:
            # After the service's transaction: the link names an account that exists.
            send_signin_link(invitation.user, reverse("admin:index"))
            messages.success(
                request,
                _("%(email)s is now %(role)s of %(system)s; a sign-in link is on its way.")
                % {
                    "email": form.cleaned_data["email"],  # as typed
                    "role": role_label(form.cleaned_data["role"]),
                    "system": system.name,
                },
            )
            return HttpResponseRedirect(
                reverse("admin:trails_trailsystem_change", args=[system.pk])
            )
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Invite a member to %(system)s") % {"system": system.name},
        "opts": model_admin.opts,
        "system": system,
        "form": form,
    }
    return TemplateResponse(request, "webapp/invite_member.html", context)
