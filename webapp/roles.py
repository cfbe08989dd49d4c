"""Who may do what in the web app: the spec's roles, written once.

Every admin page, filter, choice list, action, inline, export and history view asks this module
(through the permission backend and webapp.scoping), and the role on a system comes from the
management API's own role function (`role_for`), so the web app and the API never disagree.

- superAdmin (and an operator's Django superuser account): everything.
- Administrator (the owner, or `Administrator` in the system's permissions): the system's
  details and members, and everything below.
- Trustee or another named role: trails, points, updates and trash restore of that system.
  Subscribers' e-mail addresses and phone numbers are the Administrators' business only.
- No role: nothing.
"""

from django.db.models import Model, Q, QuerySet
from django.utils.translation import gettext as _

from trails.enums import Role, role_label
from trails.models import TrailSystem
from trails.selectors import managed_systems, role_for

MEMBER = "any role"
ADMINISTRATOR = "Administrator"
OWN = "own account"  # rows of the signed-in account itself (its API keys)

_ALL = ("view", "add", "change", "delete")

# "app_label.model_name" -> {action: who may}. An action not listed is for superAdmins only;
# so is every model not listed (accounts, groups).
RULES: dict[str, dict[str, str]] = {
    "trails.trailsystem": {"view": ADMINISTRATOR, "change": ADMINISTRATOR},
    "trails.membership": dict.fromkeys(_ALL, ADMINISTRATOR),
    # Deleting a live trail or point moves it to the trash, as the API's DELETE does.
    "trails.trail": dict.fromkeys(_ALL, MEMBER),
    "trails.trailactivity": dict.fromkeys(_ALL, MEMBER),
    "trails.point": dict.fromkeys(_ALL, MEMBER),
    # Restoring is changing a trashed row; deleting it for good is the Administrator's call.
    "trails.trashedtrail": {"view": MEMBER, "change": MEMBER, "delete": ADMINISTRATOR},
    "trails.trashedpoint": {"view": MEMBER, "change": MEMBER, "delete": ADMINISTRATOR},
    "updates.update": dict.fromkeys(_ALL, MEMBER),
    # Scheduled status changes are trail writes: the same rule.
    "schedules.schedule": dict.fromkeys(_ALL, MEMBER),
    # Subscribers' contacts (list, detail, export, unsubscribing) are the Administrators'.
    "updates.subscriber": dict.fromkeys(("view", "change", "export"), ADMINISTRATOR),
    "updates.delivery": {"view": ADMINISTRATOR},
    "publishing.compilerequest": {"view": ADMINISTRATOR},
    "apikeys.apikey": {"view": OWN, "add": OWN, "change": OWN},
    # Webhooks post the system's events to an address of the Administrator's choosing.
    "webhooks.webhookendpoint": dict.fromkeys(_ALL, ADMINISTRATOR),
    "webhooks.webhookdelivery": {"view": ADMINISTRATOR, "resend": ADMINISTRATOR},
}

# How to reach the trail system from a row of each model ("pk": the row is the system).
SYSTEM_PATHS = {
    "trails.trailsystem": "pk",
    "trails.trailactivity": "trail__trail_system",
    "updates.delivery": "update__trail_system",
    "webhooks.webhookdelivery": "endpoint__trail_system",
}
DEFAULT_SYSTEM_PATH = "trail_system"


def shown_role(user, system: TrailSystem, role: str | None) -> str:
    """The person's role on `system` as pages name it: its owner reads "Owner", not the
    Administrator role the owner acts with, so people tell the owner from invited members."""
    if system.owner_id == user.pk:
        return _("Owner")
    return role_label(role) if role else ""


def label_of(model: type[Model] | Model) -> str:
    return model._meta.label_lower


def need(model: type[Model] | Model, action: str) -> str | None:
    """Who may take `action` on `model`; None: superAdmins only."""
    return RULES.get(label_of(model), {}).get(action)


def is_super(user) -> bool:
    return bool(user.is_active and (user.is_superuser or user.is_super_admin))


def systems_for(user, who: str) -> QuerySet[TrailSystem]:
    """The systems on which `user` holds the role `who` (MEMBER or ADMINISTRATOR)."""
    systems = managed_systems(user)
    if who == ADMINISTRATOR and not is_super(user):
        administrator_of = Q(owner=user) | Q(
            memberships__user=user, memberships__role=Role.ADMINISTRATOR
        )
        systems = TrailSystem.objects.filter(pk__in=systems.filter(administrator_of).values("pk"))
    return systems


def system_path(model: type[Model] | Model) -> str:
    return SYSTEM_PATHS.get(label_of(model), DEFAULT_SYSTEM_PATH)


def system_of(obj: Model) -> TrailSystem | None:
    """The trail system a row belongs to, following SYSTEM_PATHS."""
    path = system_path(obj)
    if path == "pk":
        return obj
    for name in path.split("__"):
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return obj


def holds(user, who: str, obj: Model) -> bool:
    """Whether `user` holds `who` for the row `obj` (its system, or its account for OWN)."""
    if who == OWN:
        return getattr(obj, "user_id", None) == user.pk
    system = system_of(obj)
    role = role_for(user, system) if system is not None else None
    return role is not None and (who == MEMBER or role == Role.ADMINISTRATOR)


def holds_anywhere(user, who: str) -> bool:
    if who == OWN:
        return True
    cache = user.__dict__.setdefault("_webapp_roles", {})
    if who not in cache:
        cache[who] = systems_for(user, who).exists()
    return cache[who]


def has_perm(user, perm: str, obj: Model | None = None) -> bool:
    """The permission backend's answer for "app_label.action_model" on `obj` (or anywhere)."""
    if not user.is_active:
        return False
    if is_super(user):
        return True
    app_label, _, codename = perm.partition(".")
    action, _, model_name = codename.partition("_")
    who = RULES.get(f"{app_label}.{model_name}", {}).get(action)
    if who is None:
        return False
    return holds_anywhere(user, who) if obj is None else holds(user, who, obj)


def has_module_perms(user, app_label: str) -> bool:
    if not user.is_active:
        return False
    if is_super(user):
        return True
    return any(
        holds_anywhere(user, who)
        for label, actions in RULES.items()
        if label.startswith(f"{app_label}.")
        for who in actions.values()
    )


def may_enter(user) -> bool:
    """The web app is for operators and everyone who manages a system."""
    if not user.is_active:
        return False
    return bool(user.is_staff or is_super(user) or holds_anywhere(user, MEMBER))


def scoped(user, queryset: QuerySet, action: str = "view") -> QuerySet:
    """The rows of `queryset` on which `user` may take `action`."""
    if is_super(user):
        return queryset
    who = need(queryset.model, action)
    if who is None:
        return queryset.none()
    if who == OWN:
        return queryset.filter(user=user)
    systems = systems_for(user, who).values("pk")
    return queryset.filter(**{f"{system_path(queryset.model)}__in": systems})
