"""What the settings refuse at start-up, the production profile, and the development .env
that makes `manage.py` work as `make run` does (defects 2, 3, 8 and 12).

Each case runs `manage.py` in a child process with a clean environment, as an operator would."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {
    "DJANGO_PROFILE": "production",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "FIREBASE_PROJECT_ID": "trails-prod",
    "ALLOWED_HOSTS": "trails.example.org",
    # Riders' push alerts' signing key (the deployment check warns without one).
    "VAPID_PRIVATE_KEY": "oowpSdtVpq3oSFkEnG647pB2DGBQpchvqyo4Kq6a9JQ",
}


def manage(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "VAR_DIR": str(tmp_path / "var"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "ENV_FILE": "",
        **env,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_check_deploy_is_clean_under_the_production_profile(tmp_path):
    result = manage("check", "--deploy", "--fail-level", "WARNING", tmp_path=tmp_path, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_lists_what_the_production_profile_answers(tmp_path):
    result = manage("check", "--deploy", tmp_path=tmp_path, SECRET_KEY=PRODUCTION["SECRET_KEY"])
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in result.stderr
    assert "alerts.W001" in result.stderr  # no VAPID key: no push alerts


def test_check_deploy_flags_emulator_tokens(tmp_path):
    result = manage("check", "--deploy", tmp_path=tmp_path, SECRET_KEY=PRODUCTION["SECRET_KEY"])
    assert result.returncode != 0
    assert "api.E001" in result.stderr
    assert "unsigned ID tokens are accepted" in result.stderr


@pytest.mark.parametrize(
    ("project", "starts"), [("trails-prod", False), ("demo-other", True), ("demo", False)]
)
def test_emulator_host_is_refused_unless_the_project_is_a_demo_one(tmp_path, project, starts):
    result = manage(
        "check",
        tmp_path=tmp_path,
        SECRET_KEY="x",
        FIREBASE_PROJECT_ID=project,
        FIREBASE_AUTH_EMULATOR_HOST="127.0.0.1:9099",
    )
    assert (result.returncode == 0) == starts, result.stderr
    if not starts:
        assert f"FIREBASE_PROJECT_ID {project!r} is a real project" in result.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SMS_BACKEND": "updates.sms.twilio.SmsBackend"}, "TWILIO_AUTH_TOKEN must be set"),
        ({**PRODUCTION, "DEBUG": "1"}, "DEBUG cannot be on"),
        ({**PRODUCTION, "FIREBASE_PROJECT_ID": ""}, "FIREBASE_PROJECT_ID"),
        ({"DJANGO_PROFILE": "prod"}, "DJANGO_PROFILE must be production or unset"),
    ],
    ids=["twilio-without-token", "production-debug", "production-no-project", "unknown-profile"],
)
def test_unsafe_configurations_refuse_to_start(tmp_path, env, message):
    env = {"SECRET_KEY": "x", **env}
    if env.get("FIREBASE_PROJECT_ID") == "":
        del env["FIREBASE_PROJECT_ID"]
    result = manage("check", tmp_path=tmp_path, **env)
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize(
    ("variable", "line"),
    [
        (
            "SMS_CONFIRMATIONS_PER_DAY=ten",
            "SMS_CONFIRMATIONS_PER_DAY must be a whole number, got 'ten'.",
        ),
        ("MAP_POLL_SECONDS=a minute", "MAP_POLL_SECONDS must be a number, got 'a minute'."),
        (
            "LEGACY_LISTEN=maybe",
            "LEGACY_LISTEN must be true or false (1, true, yes, on or 0, false, no, off), "
            "got 'maybe'.",
        ),
    ],
)
def test_a_malformed_variable_stops_the_start_with_a_line_naming_it(tmp_path, variable, line):
    """What `make run` shows, its first step being `manage.py migrate`: one line, no traceback."""
    name, value = variable.split("=")
    result = manage("check", tmp_path=tmp_path, SECRET_KEY="x", **{name: value})
    assert result.returncode == 1
    assert result.stderr.strip() == f"Configuration error: {line}"


def test_make_runs_env_file_gives_manage_py_its_development_settings(tmp_path):
    """scripts/dev_env.sh is what `make run` calls; the settings read the file it writes."""
    env_file = tmp_path / "dev.env"
    without = manage("check", tmp_path=tmp_path, ENV_FILE=str(env_file))
    assert without.returncode != 0
    assert "SECRET_KEY must be set" in without.stderr

    subprocess.run([ROOT / "scripts" / "dev_env.sh", str(env_file)], check=True)
    written = env_file.read_text()
    subprocess.run([ROOT / "scripts" / "dev_env.sh", str(env_file)], check=True)
    assert env_file.read_text() == written, "a second run keeps the secret"
    secret = next(line for line in written.splitlines() if line.startswith("SECRET_KEY="))
    assert len(secret) > len("SECRET_KEY=") + 50
    assert oct(env_file.stat().st_mode & 0o777) == "0o600"

    check = manage("check", tmp_path=tmp_path, ENV_FILE=str(env_file))
    assert check.returncode == 0, check.stderr
    debug = manage(
        "shell", "-c",
        "from django.conf import settings; print(settings.DEBUG, settings.WHITENOISE_AUTOREFRESH)",
        tmp_path=tmp_path, ENV_FILE=str(env_file),
    )  # fmt: skip
    # Never a debug page for a person; edited static files served without a restart.
    assert debug.stdout.strip().splitlines()[-1] == "False True"
