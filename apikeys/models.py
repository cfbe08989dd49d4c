"""Accounts (keyed by Firebase uid) and the API keys that act for them."""

from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.utils import timezone

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

    uid = models.CharField(max_length=128, primary_key=True)
    email = models.EmailField(blank=True, default="")
    is_super_admin = models.BooleanField(
        default=False, help_text="superAdmin: Administrator of every trail system."
    )
    is_staff = models.BooleanField(default=False, help_text="May log into the web app.")
    is_active = models.BooleanField(default=True)
    invitation_pending = models.BooleanField(
        default=False,
        help_text="Made by an invitation and never signed in with Firebase: the first Firebase "
        "sign-in with this verified e-mail address takes the account over (apikeys.accounts).",
    )
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "uid"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["email"]

    def __str__(self) -> str:
        return self.email or self.uid


class ApiKey(models.Model):
    """A key acts as its owner. Only the SHA-256 digest of the plaintext is stored."""

    class Scope(models.TextChoices):
        READ = "read"
        WRITE = "write"

    id = IdField(primary_key=True)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=11)
    digest = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    # None: unrestricted; otherwise the ids of the only systems the key may touch.
    trail_system_ids = models.JSONField(null=True, blank=True)
    created_on = models.DateTimeField(default=timezone.now)
    last_used_on = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked = models.BooleanField(default=False)
    revoked_on = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_on"]
        indexes = [models.Index(fields=["user", "revoked", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()
