#!/usr/bin/env bash
# `make run`: migrate, load the demo system once, serve, and once the server answers print a
# ready-to-paste curl line and a sign-in link: the welcome is the last thing on the screen.
set -euo pipefail
cd "$(dirname "$0")/.."
host=${1:-127.0.0.1}
port=${2:-8000}
py=.venv/bin/python

export PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://$host:$port}
if [ -z "${SECRET_KEY:-}" ]; then
  # No secret configured: a developer's machine. The settings read .env (secret, text logs),
  # and so does every later `.venv/bin/python manage.py ...` in this checkout: the address
  # served on is kept there too, so `signin_link` and the like print links to this server.
  scripts/dev_env.sh
  scripts/dev_env.sh --address "$PUBLIC_BASE_URL"
fi
# Web Push (riders' alerts) signs with a VAPID key pair: one is made once and kept in .env
# unless the environment gives one (docs/operators/alerts.md).
if [ -z "${VAPID_PRIVATE_KEY:-}" ] && ! grep -qs '^VAPID_PRIVATE_KEY=' .env; then
  $py -c 'from alerts.vapid import generate_keys; print("\n".join(
    ["# The VAPID key pair of Web Push, made by `make run` (docs/operators/alerts.md)."]
    + [f"VAPID_{name}_KEY={key}" for name, key in zip(("PRIVATE", "PUBLIC"), generate_keys())]))' \
    >> .env
  echo "Wrote a VAPID key pair (Web Push) into .env."
fi
# A developer's webhook receiver listens on this machine (docs/developers/webhooks.md).
export WEBHOOK_ALLOW_PRIVATE_TARGETS=${WEBHOOK_ALLOW_PRIVATE_TARGETS:-1}

$py manage.py migrate --no-input
# The demo, then what to try (a development ID token, a sign-in link), in one process; shown
# once the server answers, after its own lines.
welcome=$($py manage.py load_demo --welcome "http://$host:$port")

# The welcome, after the server's start-up lines: printed once /healthz answers (the server
# is then past its banner), or not at all when it never starts within a minute.
print_welcome_when_serving() {
  for _ in $(seq 600); do
    if answered "$host" "$port"; then
      printf '%s\n' "$welcome"
      return
    fi
    sleep 0.1
  done
}

# Whether an HTTP GET of /healthz gets an answer (bash's /dev/tcp: no curl on a fresh machine).
answered() {
  local status
  { exec 3<>"/dev/tcp/$1/$2"; } 2>/dev/null || return 1
  printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" >&3
  read -r -t 5 status <&3 || status=""
  exec 3>&-
  [ -n "$status" ]
}

if [ -n "${DATABASE_URL:-}" ] && [ -n "${REDIS_URL:-${CELERY_BROKER_URL:-}}" ]; then
  # Production topology: web server, Celery worker and beat, and the live map streams' ASGI
  # server on the next port (no reverse proxy here, so pages open the streams there).
  # honcho gives each process its own PORT (5000 unless PORT is set), so pass the address the
  # welcome prints; beat keeps its schedule under VAR_DIR, which nothing else creates
  # when DATABASE_URL is set.
  export HOST="$host" PORT="$port" STREAM_PORT="${STREAM_PORT:-$((port + 1))}"
  export STREAM_BASE_URL="${STREAM_BASE_URL-http://$host:$STREAM_PORT}"
  echo "Live map streams on $STREAM_BASE_URL/map/<id>/events"
  mkdir -p "${VAR_DIR:-var}"
  print_welcome_when_serving &
  exec .venv/bin/honcho start -f Procfile
fi
# Embedded default: no beat and no worker, so scheduled status changes are applied, webhooks
# sent and retried (never inside a request), grooming sessions ended and old rider reports
# deleted by one process beside the server, each on its own period, stopped with the server:
# by the trap below when this script exits (the server stopped or failed to start, Ctrl-C,
# SIGTERM), and by itself within a second when this script is gone without running the trap
# (killed with SIGKILL): --parent.
$py manage.py repeat apply_schedules=15 send_webhooks=1 send_alerts=1 sweep_grooming_sessions=15 \
  purge_reports=3600 prune_trail_change_log=3600 --parent $$ &
background=$!
print_welcome_when_serving &
welcome_printer=$!
# Django's development server, without the system checks (migrate ran them) and its warning
# banner (this is a developer's machine; production runs gunicorn), unbuffered so that its
# lines come before the welcome even into a pipe. Waited for in the background, so that the
# trap stops it too when this script is stopped (Ctrl-C, SIGTERM).
DJANGO_RUNSERVER_HIDE_WARNING=true PYTHONUNBUFFERED=1 \
  $py manage.py runserver --skip-checks "$host:$port" &
server=$!
# Every process this script started: the loop, the welcome's printer, the autoreloader's child
# and the autoreloader (its children as the kernel lists them: no procps needed).
stop_all() {
  local children
  children=$(cat /proc/"$server"/task/*/children 2>/dev/null || true)
  # shellcheck disable=SC2086 # one word per process id
  kill "$background" "$welcome_printer" $children "$server" 2>/dev/null || true
}
trap stop_all EXIT
wait "$server"
