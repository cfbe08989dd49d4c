"""Sign-in to the web app: a Firebase ID token, an e-mailed one-time link, or a password.

Each method goes through django.contrib.auth.authenticate, so django-axes refuses locked-out
clients and counts every failure (webapp.throttling says per what).
"""

from urllib.parse import urlencode

from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import REDIRECT_FIELD_NAME, authenticate, login
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST
from sesame.utils import get_token

from apikeys.models import User
from core import ratelimit
from core.clients import counted_client
from core.links import absolute

LINK_MINUTES = settings.SESAME_MAX_AGE // 60

# The one origin the Firebase Web SDK calls for an e-mail and password sign-in (its session is
# kept in memory, so it never refreshes a token through securetoken.googleapis.com).
FIREBASE_AUTH_ORIGIN = "https://identitytoolkit.googleapis.com"

# Sign-in links asked for, per client address and per e-mail address, per hour.
LINK_LIMIT_PER_ADDRESS = 5
LINK_LIMIT_PER_EMAIL = 3
LINK_WINDOW_SECONDS = 3600


def firebase_web_config() -> dict | None:
    """What the login page's script needs to sign in with Firebase; None when not set up."""
    if not (settings.FIREBASE_WEB_API_KEY and settings.FIREBASE_AUTH_DOMAIN):
        return None
    return {
        "api_key": settings.FIREBASE_WEB_API_KEY,
        "auth_domain": settings.FIREBASE_AUTH_DOMAIN,
        "project_id": settings.FIREBASE_PROJECT_ID,
        "emulator_host": settings.FIREBASE_WEB_EMULATOR_HOST,
    }


def allow_firebase(response: HttpResponse) -> HttpResponse:
    """Let the login page's script reach Firebase Auth (or the emulator), on this page only."""
    config = firebase_web_config()
    if config is None:
        return response
    emulator = config["emulator_host"]
    origin = f"http://{emulator}" if emulator else FIREBASE_AUTH_ORIGIN
    return csp_update({"connect-src": [origin]})(lambda: response)()


def login_context(request: HttpRequest) -> dict:
    return {"firebase": firebase_web_config(), "link_minutes": LINK_MINUTES}


def safe_next(request: HttpRequest) -> str:
    """The `next` address when it stays on this site, else the web app's index."""
    wanted = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME, "")
    if url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return reverse("admin:index")


def login_page(request: HttpRequest, error: str, status: int) -> TemplateResponse:
    """The login page again, with what went wrong."""
    site = admin.site
    context = {
        **site.each_context(request),
        **login_context(request),
        "title": _("Log in"),
        "subtitle": None,
        "app_path": reverse("admin:login"),
        "form": AdminAuthenticationForm(request),
        REDIRECT_FIELD_NAME: safe_next(request),
        "signin_error": error,
    }
    return allow_firebase(TemplateResponse(request, "admin/login.html", context, status=status))


def password_locked(
    request: HttpRequest, response: HttpResponse | None = None, credentials: dict | None = None
) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the login page again, saying how long the password form waits
    (webapp.throttling) and what still works."""
    cool_off = settings.AXES_COOLOFF_TIME
    error = _(
        "Too many wrong passwords for this account or from this address: password sign-in is "
        "paused for %(minutes)d minutes after the last one. An e-mailed sign-in link still "
        "works."
    ) % {"minutes": cool_off.total_seconds() // 60}
    page = login_page(request, error, 429).render()
    page["Retry-After"] = str(round(cool_off.total_seconds()))
    return page


def signed_in(request: HttpRequest, user: User) -> HttpResponseRedirect:
    login(request, user)
    return HttpResponseRedirect(safe_next(request))


@sensitive_post_parameters("id_token")
@never_cache
@require_POST
def token_login(request: HttpRequest) -> HttpResponse:
    """POST /admin/login/token/ with `id_token`: a session for the token's account."""
    user = authenticate(request, id_token=request.POST.get("id_token", "").strip())
    if user is None:
        return login_page(request, _("That sign-in is invalid or has expired. Try again."), 401)
    return signed_in(request, user)


def signin_link(user: User, next_url: str = "") -> str:
    """A one-time address that signs `user` in (valid SESAME_MAX_AGE seconds)."""
    query = {"sesame": get_token(user), **({"next": next_url} if next_url else {})}
    return absolute("admin:login_link_use", query=query)


def send_signin_link(user: User, next_url: str = "") -> None:
    context = {"link": signin_link(user, next_url), "minutes": LINK_MINUTES, "user": user}
    send_mail(
        _("Your sign-in link"),
        render_to_string("webapp/signin_link_email.txt", context),
        None,
        [user.email],
    )


@sensitive_post_parameters("email")
@never_cache
@require_POST
def request_link(request: HttpRequest) -> HttpResponse:
    """E-mail a sign-in link. The answer never tells whether the address has an account.

    Past the limits (per client address, per e-mail address) nothing is sent and the page
    answers 429 with the same words, so nobody can flood an inbox through it.
    """
    email = request.POST.get("email", "").strip()
    next_url = safe_next(request)
    allowed = ratelimit.allow(
        "signin-link-address",
        counted_client(request),
        limit=LINK_LIMIT_PER_ADDRESS,
        window_seconds=LINK_WINDOW_SECONDS,
    )
    if email:
        allowed &= ratelimit.allow(
            "signin-link-email",
            email,
            limit=LINK_LIMIT_PER_EMAIL,
            window_seconds=LINK_WINDOW_SECONDS,
        )
    if allowed and email:
        for user in User.objects.filter(email__iexact=email, is_active=True):
            send_signin_link(user, next_url)
    messages.info(
        request,
        _(
            "If an account uses that address, a sign-in link is on its way. "
            "It works once, within %(minutes)d minutes."
        )
        % {"minutes": LINK_MINUTES},
    )
    if not allowed:
        response = login_page(request, "", 429)
        response["Retry-After"] = str(LINK_WINDOW_SECONDS)
        return response
    return redirect(f"{reverse('admin:login')}?{urlencode({REDIRECT_FIELD_NAME: next_url})}")


@sensitive_post_parameters("sesame")
@never_cache
def use_link(request: HttpRequest) -> HttpResponse:
    """GET shows a button and POST signs in, so a mail scanner opening the link spends nothing."""
    token = request.POST.get("sesame") or request.GET.get("sesame", "")
    if request.method != "POST":
        context = {
            **admin.site.each_context(request),
            "title": _("Sign in"),
            "sesame": token,
            REDIRECT_FIELD_NAME: safe_next(request),
        }
        return TemplateResponse(request, "webapp/use_link.html", context)
    user = authenticate(request, sesame=token) if token else None
    if user is None:
        spent = _("This sign-in link was already used, has expired or is not valid.")
        return login_page(request, f"{spent} {_('Ask for a new one.')}", 401)
    return signed_in(request, user)
