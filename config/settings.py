"""One settings module, driven by the environment (12-factor).

With no variable set the service runs on the embedded default: SQLite, tasks run in-process
after commit, files on local disk, email and SMS to the console, and Firebase Auth in emulator
mode for the project ``demo-trails``. DATABASE_URL and REDIS_URL switch to the production
topology (PostgreSQL, Celery worker and beat over Redis). DJANGO_PROFILE=production turns on
the settings ``manage.py check --deploy`` asks for (HTTPS only, HSTS, secure cookies).

A git-ignored ``.env`` at the root of the checkout (written by ``make run``: a generated
SECRET_KEY, DEBUG off) is read first, so ``manage.py`` gets what ``make run`` uses; variables
of the environment win over it. ENV_FILE names another file; empty, none is read (tests).
"""

import ipaddress
import math
import os
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from pythonjsonlogger.core import RESERVED_ATTRS

from core.limits import REQUEST_BODY_MAX
from core.open_files import open_file_limit, streams_for_open_files

BASE_DIR = Path(__file__).resolve().parent.parent


env = environ.Env()
# The words a flag takes: django-environ's for true, and their opposites.
FLAG_WORDS = {*environ.Env.BOOLEAN_TRUE_STRINGS, "false", "off", "no", "n", "0"}
# The form each reader takes, as the message for a malformed value says it.
FORMS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false (1, true, yes, on or 0, false, no, off)",
}


def typed(kind: str, name: str, default):
    """Variable `name` through django-environ's typed reader `kind` (env.int, env.float,
    env.bool), or `default` when it is unset or empty. A value the reader cannot take stops
    the start with a message naming the variable and its form, rather than a bare ValueError
    from deep inside the settings."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        if kind == "bool" and raw.lower() not in FLAG_WORDS:
            raise ValueError(raw)
        value = getattr(env, kind)(name)
        if kind == "float" and not math.isfinite(value):
            raise ValueError(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {FORMS[kind]}, got {raw!r}.") from None
    return value


def env_int(name: str, default: int | None) -> int | None:
    return typed("int", name, default)


def env_float(name: str, default: float) -> float:
    return typed("float", name, default)


def env_flag(name: str, default: bool = False) -> bool:
    return typed("bool", name, default)


def env_list(name: str, default: str = "") -> list[str]:
    """A comma-separated list (env.list), each item stripped, blank ones dropped."""
    return [item.strip() for item in env.list(name, default=default.split(",")) if item.strip()]


def env_text(name: str, default: str | None = "") -> str | None:
    """Free text, read as it is: django-environ's env.str would take a value beginning with
    `$` for the name of another variable, and a secret or password may begin so."""
    return os.environ.get(name, default)


ENV_FILE = env_text("ENV_FILE", str(BASE_DIR / ".env"))
if ENV_FILE and Path(ENV_FILE).is_file():
    environ.Env.read_env(ENV_FILE)
PRODUCTION = env_text("DJANGO_PROFILE", "") == "production"
VAR_DIR = Path(env_text("VAR_DIR", BASE_DIR / "var"))


if env_text("DJANGO_PROFILE", "") not in ("", "production"):
    raise ImproperlyConfigured("DJANGO_PROFILE must be production or unset.")
DEBUG = env_flag("DEBUG")
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DEBUG cannot be on under DJANGO_PROFILE=production.")
SECRET_KEY = env_text("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (`make run` writes one to .env)."
        )
    SECRET_KEY = "insecure-development-key-only-for-debug"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
# Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client (core.clients):
# the right-most address in it that is not one of them. Empty: the header is ignored.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXIES: {_proxy!r} is neither an IP address nor a CIDR range."
        ) from None
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Public base URL used in links sent to subscribers and in discovery documents.
PUBLIC_BASE_URL = env_text("PUBLIC_BASE_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    # Before the admin, so its templates (the sign-in page) take precedence.
    "webapp.apps.WebappConfig",
    "webapp.apps.WebappAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "django_prometheus",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "apikeys",
    "trails",
    "updates",
    "publishing",
    "legacy",
    "grooming",
    "closures",
    "schedules",
    "webhooks",
    "reports",
    "alerts",
    "cap",
    "api",
    "demo",
    "moving",
    "public",
    "axes",
]

MIDDLEWARE = [
    "config.request_log.RequestLogMiddleware",
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # WhiteNoise, with every text file's gzip and brotli copies (webapp/staticfiles.py).
    "webapp.staticfiles.CompressedStaticFilesMiddleware",
    # /legacy answers here, past the request log, metrics and security headers only.
    "legacy.middleware.LegacyRouteMiddleware",
    # Compresses what the middleware below and the views answer (not /legacy, answered above).
    "config.middleware.CompressionMiddleware",
    "csp.middleware.CSPMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "config.middleware.ControlCharacterPathMiddleware",
    "api.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # PostgreSQL or Redis down: 503 with Retry-After from any page or public write.
    "config.middleware.UnavailableMiddleware",
    # Last but for the Prometheus timer, as django-axes asks: a lockout becomes its 429 page.
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "apikeys.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = env_text("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
    }
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "db.sqlite3",
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    }

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français")]
# One French catalog for what the web app shows, every app's models included: `make messages`
# (makemessages from the repository's root) writes it here.
LOCALE_PATHS = [BASE_DIR / "webapp" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# Only needed to run collectstatic for a CDN; WhiteNoise serves from the finders below.
STATIC_ROOT = env_text("STATIC_ROOT") or None
# Browser libraries come from npm (package.json, installed by the Makefile into node_modules)
# and are served under /static/vendor/; never copied into the repository.
NODE_MODULES = BASE_DIR / "node_modules"
STATICFILES_DIRS = [("vendor/leaflet", NODE_MODULES / "leaflet" / "dist")]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    # Two files of the 54 MB Firebase package: webapp.staticfiles.NPM_FILES.
    "webapp.staticfiles.NpmFilesFinder",
]
# WhiteNoise serves static files in every process (runserver, gunicorn, live test servers)
# straight from the finders, so no collectstatic step stands between a checkout and a
# styled page.
WHITENOISE_USE_FINDERS = True
# Re-read on every request instead of once at start-up: an edited script or stylesheet is
# served at once under `make run` (its .env turns this on; DEBUG does too).
WHITENOISE_AUTOREFRESH = env_flag("STATIC_AUTOREFRESH", DEBUG)
# The compressed copies of the static files found in the repository, made at first use.
STATIC_COPIES_ROOT = VAR_DIR / "static-copies"
MEDIA_URL = env_text("MEDIA_URL", "/media/")
MEDIA_ROOT = Path(env_text("MEDIA_ROOT", VAR_DIR / "media"))
# Serve MEDIA_ROOT from Django itself; on by default for local-disk storage.
SERVE_MEDIA = env_flag("SERVE_MEDIA", True)

# Published files go through Django's storage API: local disk by default; S3 or GCS by
# STORAGE_BACKEND with django-storages' own AWS_* / GS_* variables.
STORAGE_BACKEND = env_text("STORAGE_BACKEND", "local")
_storage_backends = {
    "local": "publishing.storage_backends.PublishedFileSystemStorage",
    "s3": "publishing.storage_backends.PublishedS3Storage",
    "gcs": "publishing.storage_backends.PublishedGoogleCloudStorage",
}
if STORAGE_BACKEND not in _storage_backends:
    raise ImproperlyConfigured(f"STORAGE_BACKEND must be one of {sorted(_storage_backends)}.")
# Rider reports' photos: the same backend, private (reports/storage.py).
_report_photo_storages = {
    "local": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": VAR_DIR / "report-photos", "base_url": None},
    },
    "s3": {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {"location": "report-photos", "default_acl": "private"},
    },
    "gcs": {
        "BACKEND": "storages.backends.gcloud.GoogleCloudStorage",
        "OPTIONS": {"location": "report-photos", "default_acl": "projectPrivate"},
    },
}
STORAGES = {
    "default": {"BACKEND": _storage_backends[STORAGE_BACKEND]},
    "report_photos": _report_photo_storages[STORAGE_BACKEND],
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
AWS_STORAGE_BUCKET_NAME = env_text("AWS_STORAGE_BUCKET_NAME")
AWS_S3_REGION_NAME = env_text("AWS_S3_REGION_NAME")
AWS_S3_ENDPOINT_URL = env_text("AWS_S3_ENDPOINT_URL")
AWS_QUERYSTRING_AUTH = False
AWS_DEFAULT_ACL = env_text("AWS_DEFAULT_ACL", "public-read")
GS_BUCKET_NAME = env_text("GS_BUCKET_NAME")
GS_QUERYSTRING_AUTH = False

# Background work. Without a broker, tasks run in-process (eagerly) after the commit. Celery
# still takes a producer for them: the in-memory transport, not a URL without a host (kombu's
# "No hostname was supplied" warning in every command).
REDIS_URL = env_text("REDIS_URL", "")
CELERY_TASK_ALWAYS_EAGER = not env_text("CELERY_BROKER_URL", REDIS_URL)
CELERY_BROKER_URL = env_text("CELERY_BROKER_URL", REDIS_URL) or "memory://localhost/"
CELERY_TASK_DEFAULT_QUEUE = env_text("CELERY_QUEUE", "trails")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes the database connection before and after every task unless
# this is set; a new connection is a new PostgreSQL backend with cold catalogs, which cost a
# compile more than its queries. Tasks keep theirs as requests do instead (config/celery.py:
# CONN_MAX_AGE, health checks); the fixup's own recycling is left this rare.
CELERY_DB_REUSE_MAX = 100_000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 600}
CELERY_TIMEZONE = "UTC"
# A replaced map file stays this long (at least a minute): a poller or embed handed its name
# by a legacy document or the public map just before a compile can still fetch it.
MAP_FILE_GRACE = timedelta(seconds=max(env_float("MAP_FILE_GRACE_SECONDS", 300.0), 60.0))
# A map file is published as compiled and its compressed copies made after the commit, off
# the freshness path (publishing.tasks.compile_system). On: made inside the compile, before
# the file is named, as before issue 32 (for the benchmark's comparison).
MAP_FILE_COPIES_IN_COMPILE = env_flag("MAP_FILE_COPIES_IN_COMPILE")
# A smaller file's copies are made inside its compile all the same: compressing a 20-trail
# file takes about a millisecond, less than a copies task costs (publishing.publisher).
MAP_FILE_COPIES_WORKER_MIN_BYTES = max(env_int("MAP_FILE_COPIES_WORKER_MIN_BYTES", 256 * 1024), 0)
CELERY_BEAT_SCHEDULE = {
    "sweep-replaced-map-files": {
        "task": "publishing.tasks.sweep_replaced_map_files",
        "schedule": MAP_FILE_GRACE,
    },
    "sweep-pending-compiles": {
        "task": "publishing.tasks.sweep_pending_compiles",
        "schedule": timedelta(seconds=env_float("COMPILE_SWEEP_SECONDS", 30.0)),
    },
    "prune-trail-change-log": {
        "task": "publishing.tasks.prune_trail_change_log",
        "schedule": crontab(minute=35),
    },
    "rebuild-all-systems-file": {
        "task": "publishing.tasks.rebuild_all_systems_file",
        "schedule": crontab(minute=0, hour="*/3"),
    },
    "collect-weather": {
        "task": "publishing.tasks.collect_weather",
        "schedule": crontab(minute=5),
    },
}

# Scheduled status changes fall due on the minute; beat looks this often (at least every
# second, at most every 60, so a change is applied within a minute of its time).
SCHEDULE_SWEEP_SECONDS = min(max(env_float("SCHEDULE_SWEEP_SECONDS", 15.0), 1.0), 60.0)
CELERY_BEAT_SCHEDULE["apply-schedules"] = {
    "task": "schedules.tasks.apply_schedules",
    "schedule": timedelta(seconds=SCHEDULE_SWEEP_SECONDS),
    # A pass queued behind a busy worker is dropped when the next one is due: never a pile.
    "options": {"expires": SCHEDULE_SWEEP_SECONDS},
}

# CAP messages are issued the moment each change commits (cap.tasks); beat issues, as often,
# those that time alone brings (a notice's expiry, a closure's end) and those a failed issue
# left.
CELERY_BEAT_SCHEDULE["issue-cap-messages"] = {
    "task": "cap.tasks.sweep_cap_messages",
    "schedule": timedelta(seconds=SCHEDULE_SWEEP_SECONDS),
    "options": {"expires": SCHEDULE_SWEEP_SECONDS},
}

# Live grooming (trackers): beat ends sessions 15 minutes without a position and marks what
# positions not measured yet groomed, this often (1 to 60 s).
GROOMING_SWEEP_SECONDS = min(max(env_float("GROOMING_SWEEP_SECONDS", 15.0), 1.0), 60.0)
CELERY_BEAT_SCHEDULE["sweep-grooming-sessions"] = {
    "task": "grooming.tasks.sweep_grooming_sessions",
    "schedule": timedelta(seconds=GROOMING_SWEEP_SECONDS),
    "options": {"expires": GROOMING_SWEEP_SECONDS},
}

# Firebase Auth. Without FIREBASE_PROJECT_ID the service runs against the Auth emulator for
# the demo project, which accepts unsigned tokens; a real project verifies RS256 tokens unless
# FIREBASE_AUTH_EMULATOR_HOST is set explicitly.
# Emulator tokens are accepted only for a demo-* project (Firebase's convention for
# emulator-only projects): a real project with the emulator variable set refuses to start.
if PRODUCTION and "FIREBASE_PROJECT_ID" not in os.environ:
    raise ImproperlyConfigured("FIREBASE_PROJECT_ID must be set under DJANGO_PROFILE=production.")
FIREBASE_PROJECT_ID = env_text("FIREBASE_PROJECT_ID", "demo-trails")
if "FIREBASE_PROJECT_ID" not in os.environ:
    os.environ.setdefault("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
FIREBASE_EMULATOR = bool(env_text("FIREBASE_AUTH_EMULATOR_HOST"))
if FIREBASE_EMULATOR and not FIREBASE_PROJECT_ID.startswith("demo-"):
    raise ImproperlyConfigured(
        f"FIREBASE_AUTH_EMULATOR_HOST is set, so unsigned emulator ID tokens would be accepted, "
        f"but FIREBASE_PROJECT_ID {FIREBASE_PROJECT_ID!r} is a real project. Unset "
        "FIREBASE_AUTH_EMULATOR_HOST, or use a demo-* project id for the emulator."
    )

# API keys begin with this fixed prefix; anything else is treated as an ID token.
API_KEY_PREFIX = env_text("API_KEY_PREFIX", "tsk_")

# Origins allowed to call /legacy from a browser.
LEGACY_ALLOWED_ORIGINS = env_list("LEGACY_ALLOWED_ORIGINS")
# Web processes listen for PostgreSQL notifications of changed trail systems, so a cached
# /legacy body is served without a query until a commit changes its system (legacy/listener.py).
LEGACY_LISTEN = env_flag("LEGACY_LISTEN", True)

# Email (Django's own variables) and SMS (same pattern, our backends).
EMAIL_BACKEND = env_text("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
if env_text("EMAIL_FILE_PATH"):
    EMAIL_FILE_PATH = env_text("EMAIL_FILE_PATH")
EMAIL_HOST = env_text("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_text("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_text("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_flag("EMAIL_USE_TLS")
# Seconds an SMTP server may leave a step unanswered (Django waits for ever without it): a
# sign-up's confirmation is sent in the rider's own request.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_text("DEFAULT_FROM_EMAIL", "Trail status <no-reply@localhost>")
SMS_BACKEND = env_text("SMS_BACKEND", "updates.sms.console.SmsBackend")
SMS_FILE_PATH = env_text("SMS_FILE_PATH", str(VAR_DIR / "sms"))
SMS_FROM_NUMBER = env_text("SMS_FROM_NUMBER", "")
# Confirmation SMS of the public sign-up, the whole site, per UTC day (updates.sms_budget);
# each trail system has its own budget too (smsConfirmationsPerDay, 100 by default).
SMS_CONFIRMATIONS_PER_DAY = env_int("SMS_CONFIRMATIONS_PER_DAY", 1000)
TWILIO_ACCOUNT_SID = env_text("TWILIO_ACCOUNT_SID", "")
TWILIO_AUTH_TOKEN = env_text("TWILIO_AUTH_TOKEN", "")
TWILIO_SMS_BACKEND = "updates.sms.twilio.SmsBackend"
# /sms/inbound checks every post's signature with the auth token; without it, anyone could
# unsubscribe any number.
if SMS_BACKEND == TWILIO_SMS_BACKEND and not TWILIO_AUTH_TOKEN:
    raise ImproperlyConfigured("TWILIO_AUTH_TOKEN must be set when SMS_BACKEND is Twilio's.")
# Open-Meteo endpoints of the weather and elevation providers (overridden in tests).
OPEN_METEO_URL = env_text("OPEN_METEO_URL", "https://api.open-meteo.com/v1/forecast")
OPEN_METEO_ELEVATION_URL = env_text(
    "OPEN_METEO_ELEVATION_URL", "https://api.open-meteo.com/v1/elevation"
)
CELERY_BEAT_SCHEDULE["sweep-notifications"] = {
    "task": "updates.tasks.sweep_notifications",
    "schedule": timedelta(seconds=env_float("NOTIFICATION_SWEEP_SECONDS", 300.0)),
}
# Fan-outs a broker outage kept from being queued are queued this often, so notifications go
# out within a minute of the broker's return (updates.tasks.queue_unqueued_fan_outs).
CELERY_BEAT_SCHEDULE["queue-unqueued-fan-outs"] = {
    "task": "updates.tasks.queue_unqueued_fan_outs",
    "schedule": timedelta(seconds=env_float("NOTIFICATION_QUEUE_SWEEP_SECONDS", 15.0)),
}
# Fair queuing of notifications (core.fairqueue), as WEBHOOK_SLOTS: sending tasks at once (the
# main worker's processes: the Procfile's 2), and of one trail system (a fan-out's other
# messages wait in the database while other systems' go). Beat frees lost tasks' slots.
NOTIFICATION_SLOTS = max(env_int("NOTIFICATION_SLOTS", 2), 1)
NOTIFICATION_SLOTS_PER_SYSTEM = max(env_int("NOTIFICATION_SLOTS_PER_SYSTEM", 1), 1)
CELERY_BEAT_SCHEDULE["sweep-notification-shares"] = {
    "task": "updates.tasks.sweep_notification_shares",
    "schedule": timedelta(seconds=env_float("NOTIFICATION_QUEUE_SWEEP_SECONDS", 15.0)),
}
CELERY_BEAT_SCHEDULE["purge-expired-confirmations"] = {
    "task": "updates.tasks.purge_expired_confirmations",
    "schedule": crontab(minute=30, hour=3),
}
# A queued fan-out older than this is taken as lost and queued again by the sweep.
NOTIFICATION_SWEEP_AFTER = timedelta(seconds=env_float("NOTIFICATION_SWEEP_AFTER_SECONDS", 600.0))
# A delivery claimed longer ago than this belongs to a dead worker (a chunk task is killed
# at its time limit, well before): the sweep recovers it (docs/developers/architecture.md,
# "Notifications").
DELIVERY_LEASE = timedelta(seconds=env_float("DELIVERY_LEASE_SECONDS", 1800.0))
# Outcomes of a chunk's sends recorded together; a worker killed mid-chunk leaves at most this
# many messages in doubt (not sent again). 1: at most one, at a third of the throughput.
NOTIFICATION_RECORD_EVERY = max(1, env_int("NOTIFICATION_RECORD_EVERY", 10))
# How old the /metrics counts of sent, failed and skipped deliveries may be (updates/metrics.py).
DELIVERY_METRICS_SECONDS = env_float("DELIVERY_METRICS_SECONDS", 300.0)

# Outbound webhooks (webhooks/). Their targets must resolve to public addresses unless this
# is set (the tests and `make run` set it, to reach receivers on 127.0.0.1); a failed delivery
# is retried after WEBHOOK_RETRY_SECONDS, then 3 times longer each time, for 24 hours; beat
# queues due deliveries whose task was lost every WEBHOOK_SWEEP_SECONDS.
WEBHOOK_ALLOW_PRIVATE_TARGETS = env_flag("WEBHOOK_ALLOW_PRIVATE_TARGETS")
WEBHOOK_RETRY_SECONDS = max(env_float("WEBHOOK_RETRY_SECONDS", 5.0), 0.1)
# Fair queuing (core.fairqueue, docs/operators/fairness.md): sending tasks queued or running
# at once, at most (the threads of the webhook workers: the Procfile's 8), and of one trail
# system (the rest wait in the database, in order, for the others to be served in turn).
WEBHOOK_SLOTS = max(env_int("WEBHOOK_SLOTS", 8), 1)
WEBHOOK_SLOTS_PER_SYSTEM = max(env_int("WEBHOOK_SLOTS_PER_SYSTEM", 2), 1)
CELERY_BEAT_SCHEDULE["sweep-webhooks"] = {
    "task": "webhooks.tasks.sweep_webhooks",
    "schedule": timedelta(seconds=env_float("WEBHOOK_SWEEP_SECONDS", 10.0)),
}
# Rider reports (reports/): kept this many days, with their photos and addresses; anonymous
# reports accepted per client address (an IPv6 client by its /64) per 10 minutes and per
# day, and reports kept over the whole site per hour (each system has reportsPerDay too).
# Alerts to Administrators that a broker outage kept from being queued are queued this often.
REPORT_RETENTION_DAYS = max(env_int("REPORT_RETENTION_DAYS", 90), 1)
REPORTS_PER_CLIENT_10_MINUTES = env_int("REPORTS_PER_CLIENT_10_MINUTES", 5)
REPORTS_PER_CLIENT_DAY = env_int("REPORTS_PER_CLIENT_DAY", 30)
REPORTS_PER_HOUR = env_int("REPORTS_PER_HOUR", 2000)
CELERY_BEAT_SCHEDULE["queue-unqueued-report-alerts"] = {
    "task": "reports.tasks.queue_unqueued_alerts",
    "schedule": timedelta(seconds=15),
}
CELERY_BEAT_SCHEDULE["purge-old-reports"] = {
    "task": "reports.tasks.purge_old_reports",
    "schedule": crontab(minute=15, hour=4),
}
CELERY_BEAT_SCHEDULE["purge-webhook-messages"] = {
    "task": "webhooks.tasks.purge_webhook_messages",
    "schedule": crontab(minute=45, hour=3),
}

# Riders' alerts (alerts/). Web Push signs with the VAPID key pair (base64url: the raw 32-byte
# private key, the uncompressed public point; `make run` writes a pair into .env), naming
# VAPID_SUBJECT, a mailto: or https: address (Apple refuses others). Push endpoints must be
# https on a known push service's host or on one of WEB_PUSH_EXTRA_HOSTS (where http is
# allowed on 127.0.0.1 only). A burst after a message waits ALERTS_COALESCE_SECONDS and goes
# as one; push messages live ALERTS_PUSH_TTL_SECONDS at the push service. Anonymous sign-ups
# are bounded per client per minute and per system per minute.
VAPID_PRIVATE_KEY = env_text("VAPID_PRIVATE_KEY", "")
VAPID_PUBLIC_KEY = env_text("VAPID_PUBLIC_KEY", "")
VAPID_SUBJECT = env_text("VAPID_SUBJECT", "") or "mailto:alerts@" + (
    PUBLIC_BASE_URL.split("://")[-1].split("/")[0].split(":")[0] or "localhost"
)
if not VAPID_SUBJECT.startswith(("mailto:", "https:")):
    raise ImproperlyConfigured(
        f"VAPID_SUBJECT must be a mailto: or https: address (push services refuse others), "
        f"got {VAPID_SUBJECT!r}."
    )
WEB_PUSH_EXTRA_HOSTS = [host.lower() for host in env_list("WEB_PUSH_EXTRA_HOSTS")]
ALERTS_COALESCE_SECONDS = max(env_float("ALERTS_COALESCE_SECONDS", 60.0), 0.0)
ALERTS_PUSH_TTL_SECONDS = max(env_int("ALERTS_PUSH_TTL_SECONDS", 43_200), 0)
ALERTS_RETRY_SECONDS = max(env_float("ALERTS_RETRY_SECONDS", 5.0), 0.1)
ALERTS_SIGNUPS_PER_CLIENT_MINUTE = env_int("ALERTS_SIGNUPS_PER_CLIENT_MINUTE", 5)
ALERTS_SIGNUPS_PER_SYSTEM_MINUTE = env_int("ALERTS_SIGNUPS_PER_SYSTEM_MINUTE", 100)
# Fair queuing of alerts (core.fairqueue), as WEBHOOK_SLOTS: sending tasks at once (the
# processes of the alerts workers less one, which stays free for fan-outs: the Procfile's
# 4 processes, 3 slots), and of one trail system. A system's alerts through one push service
# (or e-mail, or SMS) go in ALERTS_LANES lanes (by follower), each a key of the fair queue,
# so that up to ALERTS_SLOTS_PER_SYSTEM processes send one big fan-out at once.
ALERTS_SLOTS = max(env_int("ALERTS_SLOTS", 3), 1)
ALERTS_SLOTS_PER_SYSTEM = max(env_int("ALERTS_SLOTS_PER_SYSTEM", 2), 1)
ALERTS_LANES = max(env_int("ALERTS_LANES", 4), 1)
CELERY_BEAT_SCHEDULE["sweep-alerts"] = {
    "task": "alerts.tasks.sweep_alerts",
    "schedule": timedelta(seconds=env_float("ALERTS_SWEEP_SECONDS", 10.0)),
}

# Outside data providers; "fixed" serves built-in data and needs no network.
WEATHER_PROVIDER = env_text("WEATHER_PROVIDER", "fixed")
ELEVATION_PROVIDER = env_text("ELEVATION_PROVIDER", "fixed")

# The public map (public/): how often it re-reads the legacy system document (at least a
# minute in production; tests shorten it), and an optional base map. With no tile URL the map
# draws on a plain background and needs no outside server.
MAP_POLL_SECONDS = max(env_float("MAP_POLL_SECONDS", 60.0), 1.0)
MAP_TILE_URL = env_text("MAP_TILE_URL", "")
MAP_TILE_ATTRIBUTION = env_text("MAP_TILE_ATTRIBUTION", "")
# The standard feeds (Open511, CAP, MTN.XML, the discovery file): the licence the systems'
# public data is offered under, and the address their readers write to. By default
# feeds@<host of PUBLIC_BASE_URL>, or an address of the reserved .test domain on a host with no
# domain name (an IP address, localhost), where no mail could be read anyway.
FEEDS_LICENSE_URL = env_text("FEEDS_LICENSE_URL", "https://creativecommons.org/licenses/by/4.0/")
_public_host = urlsplit(PUBLIC_BASE_URL).hostname or ""
FEEDS_CONTACT_EMAIL = env_text("FEEDS_CONTACT_EMAIL", "") or "feeds@" + (
    _public_host if re.search(r"\.[a-z]{2,}$", _public_host) else "localhost.test"
)
# Live map streams (/map/<id>/events, public/live.py) are served by the ASGI process (the
# Procfile's `stream` line); STREAM_BASE_URL is where browsers reach it when it is not behind
# the pages' own origin (empty: a reverse proxy routes the streams' path to it). Heartbeats
# keep proxies from closing an idle stream.
STREAM_BASE_URL = env_text("STREAM_BASE_URL", "").rstrip("/")
STREAM_HEARTBEAT_SECONDS = max(env_float("STREAM_HEARTBEAT_SECONDS", 15.0), 1.0)
# Bounds of the streams a process holds (docs/operators/streams.md): per client address (an
# IPv6 client by its /64, behind TRUSTED_PROXIES the client they name), then 429; in all, then
# 503. By default the process keeps a tenth of its open-file limit (at least 100) for the
# database, Redis, the listener and ordinary requests. A stream whose writes wait longer than
# STREAM_WRITE_TIMEOUT_SECONDS (a client that stopped reading) is dropped.
STREAM_MAX_PER_CLIENT = max(env_int("STREAM_MAX_PER_CLIENT", 20), 1)
_stream_max_connections = env_int("STREAM_MAX_CONNECTIONS", None)
STREAM_MAX_CONNECTIONS = max(
    streams_for_open_files(open_file_limit())
    if _stream_max_connections is None
    else _stream_max_connections,
    1,
)
STREAM_WRITE_TIMEOUT_SECONDS = max(env_float("STREAM_WRITE_TIMEOUT_SECONDS", 30.0), 1.0)
# The stream process (config/asgi.py) runs this much nicer than the web workers: one address's
# flood of stream requests is refused with the CPU they leave (0: the same priority).
STREAM_NICENESS = min(max(env_int("STREAM_NICENESS", 10), 0), 19)
# The stream process also takes the trackers' positions (/track/osmand, /track/owntracks, routed
# there by the reverse proxy; public/ingestion.py), in this many threads, each with a database
# connection of its own.
TRACKER_THREADS = min(max(env_int("TRACKER_THREADS", 4), 1), 32)
# Rate limits (core.ratelimit) count in this cache: Redis when there is one, so every web
# process shares the counts; process memory in the embedded default. Redis unreachable costs
# a request at most a second (core.ratelimit then counts in the process for a few seconds
# without trying it).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
    }
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ApiKeyAuthentication",
        "api.authentication.FirebaseIdTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.ScopePermission"],
    "DEFAULT_RENDERER_CLASSES": ["api.renderers.CamelCaseJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.CamelCaseJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.JsonFallbackNegotiation",
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DATETIME_FORMAT": "%Y-%m-%dT%H:%M:%S.%fZ",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Trail Management API",
    "DESCRIPTION": (
        "Trail systems, trails, points of interest and updates, and the API keys that act "
        'for an account. Every error is {"error": {"code", "message"}}.'
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and docs are public: a credential sent to them is ignored.
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SCHEMA_PATH_PREFIX_TRIM": True,
    "SERVERS": [{"url": "/api/v1"}],
    "COMPONENT_SPLIT_REQUEST": True,
    # Fields named status and type hold different choice sets: name each set after its enum.
    "ENUM_NAME_OVERRIDES": {
        "TrailStatusEnum": "trails.enums.TrailStatus",
        "StatusEnum": "trails.enums.PointStatus",  # points and activities
        "TrailTypeEnum": "trails.enums.TrailType",
        "UpdateTypeEnum": "updates.enums.UpdateType",
        "SurfaceConditionEnum": "updates.enums.SURFACE_CONDITIONS",  # updates and trackers
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "drf_spectacular.contrib.djangorestframework_camel_case.camelize_serializer_fields",
        "api.schema.add_error_responses",
        "api.schema.require_bodies",
        "api.schema.describe_request_strings",
        "api.schema.add_field_rules",
    ],
    # The docs page must work with no network: no online validator, and its assets come from
    # drf-spectacular-sidecar through api.views.OfflineSwaggerView.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

# Any origin may call the management interface. Authorization must be named: browsers do not
# let a wildcard cover it. No cookies are used, so credentials mode stays off.
CORS_URLS_REGEX = r"^/api/v1(/.*)?$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = [
    "authorization",
    "x-api-key",
    "content-type",
    "accept",
    "accept-language",
    "if-none-match",
]
CORS_EXPOSE_HEADERS = [
    "content-length",
    "etag",
    "last-modified",
    "location",
    "allow",
    "retry-after",
    "www-authenticate",
]
CORS_PREFLIGHT_MAX_AGE = 86400

# One JSON object per line on stderr, each with the id of the request it belongs to
# (config.request_log); LOG_FORMAT=text gives plain lines for a developer's terminal.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "config.request_log.RequestIdFilter"},
        "in_process_tasks": {"()": "config.task_log.InProcessTaskFilter"},
    },
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            # Django's request object (its repr shows the whole path) stays out of the line.
            "reserved_attrs": [*RESERVED_ATTRS, "request"],
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id", "in_process_tasks"],
            "formatter": env_text("LOG_FORMAT", "json"),
        }
    },
    "root": {"handlers": ["console"], "level": env_text("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # Our request line replaces runserver's access line and Django's 4xx warnings.
        "django.server": {"level": "WARNING"},
        "django.request": {"level": "ERROR"},
        "axes": {"level": "WARNING"},
    },
}

# docs/operators/health-metrics-logs.md: /metrics answers this bearer token, or loopback only.
METRICS_TOKEN = env_text("METRICS_TOKEN", "")


if not DEBUG:
    SESSION_COOKIE_SECURE = env_flag("SECURE_COOKIES", False)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# Content-Security-Policy (django-csp). Scripts and styles come from this site only (Leaflet
# and the Firebase Web SDK are served from our static files); views widen it with
# csp.decorators.csp_update/csp_replace, e.g. frame-ancestors * on the public embeds.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        # Django admin and Swagger UI set style attributes.
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "https:"],
        # The web-app login page adds Firebase Auth for itself (webapp.signin.allow_firebase).
        "connect-src": ["'self'"],
        "frame-ancestors": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
    }
}

# DJANGO_PROFILE=production: HTTPS only behind a proxy that sets X-Forwarded-Proto, HSTS
# for a year, secure cookies. `manage.py check --deploy` is clean under it.
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # Load balancers probe and Prometheus scrapes over plain HTTP.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
    SECURE_HSTS_SECONDS = 31_536_000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# The web app (Django admin) for managers: sign-in and throttling (docs/managers/index.md).
AUTHENTICATION_BACKENDS = [
    # First, as django-axes asks: refuses a locked-out client before any other backend.
    "axes.backends.AxesStandaloneBackend",
    "webapp.backends.RoleBackend",
    "webapp.backends.FirebaseIdTokenBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
# E-mailed sign-in links: 15 minutes, single use (signing in changes last_login).
SESAME_MAX_AGE = 15 * 60
SESAME_ONE_TIME = True
# Wrong passwords: 5 for one account (from any address) lock that account's password form, 50
# from one client address (across accounts; core.clients: behind TRUSTED_PROXIES the client it
# names, an IPv6 client by its /64) lock the address's, for 15 minutes after the last one. ID
# tokens and e-mailed links cannot be guessed; they are never locked out, and a success clears
# no failures (webapp.throttling).
AXES_HANDLER = "webapp.throttling.PasswordLockouts"
AXES_CLIENT_IP_CALLABLE = "core.clients.counted_client"
AXES_USERNAME_CALLABLE = "webapp.throttling.username_of"
AXES_WHITELIST_CALLABLE = "webapp.throttling.not_a_password"
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_ADDRESS_FAILURE_LIMIT = env_int("AXES_ADDRESS_FAILURE_LIMIT", 50)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = "webapp.throttling.lockout_parameters"
AXES_LOCKOUT_CALLABLE = "webapp.signin.password_locked"
AXES_RESET_ON_SUCCESS = False
AXES_VERBOSE = False
AXES_ENABLE_ACCESS_FAILURE_LOG = True
# The login page's Firebase Web SDK sign-in; off unless both are set.
FIREBASE_WEB_API_KEY = env_text("FIREBASE_WEB_API_KEY", "")
FIREBASE_AUTH_DOMAIN = env_text("FIREBASE_AUTH_DOMAIN", "")
# The browser's Auth emulator address, when the server itself uses the emulator.
FIREBASE_WEB_EMULATOR_HOST = env_text("FIREBASE_AUTH_EMULATOR_HOST", "")
