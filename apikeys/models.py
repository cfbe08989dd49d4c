"""Accounts (keyed by Firebase uid) and the API keys that act for them."""

from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.models import IdField


class UserManager(BaseUserManager):
    def create_user(self, uid: str, email: str = "", password: str | None = None, **extra):
        user = self.model(uid=uid, email=self.normalize_email(email), **extra)
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save(using=self._db)
        return user

    def create_superuser(self, uid: str, email: str = "", password: str | None = None, **extra):
        extra.update(is_staff=True, is_superuser=True, is_super_admin=True)
        return self.create_user(uid, email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    """One account per Firebase uid; created on the fly the first time a valid token is seen."""

    uid = models.CharField(max_length=128, primary_key=True, verbose_name=_("UID"))
    email = models.EmailField(blank=True, default="", verbose_name=_("e-mail address"))
    is_super_admin = models.BooleanField(
        default=False,
        help_text=_("superAdmin: Administrator of every trail system."),
        verbose_name=_("superAdmin"),
    )
    is_staff = models.BooleanField(
        default=False, help_text=_("May log into the web app."), verbose_name=_("staff")
    )
    is_active = models.BooleanField(default=True, verbose_name=_("active"))
    invitation_pending = models.BooleanField(
        default=False,
        help_text=_(
            "Made by an invitation and never signed in with Firebase: the first Firebase "
            "sign-in with this verified e-mail address takes the account over (apikeys.accounts)."
        ),
        verbose_name=_("invitation pending"),
    )
    date_joined = models.DateTimeField(default=timezone.now, verbose_name=_("date joined"))

    objects = UserManager()

    USERNAME_FIELD = "uid"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["email"]

    class Meta:
        verbose_name = _("account")
        verbose_name_plural = _("accounts")

    def __str__(self) -> str:
        return self.email or self.uid

    def has_usable_password(self) -> bool:
        """Accounts made on the fly (a Firebase sign-in, an import, the demo) store no password
        at all (''): they sign in with Firebase or a link, so the web app offers no password
        change, which would ask for an old password they never had."""
        return bool(self.password) and super().has_usable_password()

    def get_short_name(self) -> str:
        """How the web app greets the person: the address, not the opaque uid."""
        return str(self)


class ApiKey(models.Model):
    """A key acts as its owner. Only the SHA-256 digest of the plaintext is stored."""

    class Scope(models.TextChoices):
        READ = "read"
        WRITE = "write"

    id = IdField(primary_key=True, verbose_name=_("ID"))
    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="api_keys", verbose_name=_("user")
    )
    name = models.CharField(max_length=100, verbose_name=_("name"))
    prefix = models.CharField(max_length=11, verbose_name=_("prefix"))
    digest = models.CharField(max_length=64, unique=True, verbose_name=_("digest"))
    scopes = models.JSONField(default=list, verbose_name=_("scopes"))
    # None: unrestricted; otherwise the ids of the only systems the key may touch.
    trail_system_ids = models.JSONField(null=True, blank=True, verbose_name=_("trail systems"))
    created_on = models.DateTimeField(default=timezone.now, verbose_name=_("created on"))
    last_used_on = models.DateTimeField(null=True, blank=True, verbose_name=_("last used on"))
    expires_at = models.DateTimeField(null=True, blank=True, verbose_name=_("expires at"))
    revoked = models.BooleanField(default=False, verbose_name=_("revoked"))
    revoked_on = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked on"))

    class Meta:
        verbose_name = _("API key")
        verbose_name_plural = _("API keys")
        ordering = ["-created_on"]
        indexes = [models.Index(fields=["user", "revoked", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()
