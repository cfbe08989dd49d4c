#!/usr/bin/env bash
# `make run`: migrate, load the demo system once, print a ready-to-paste curl line, serve.
set -euo pipefail
cd "$(dirname "$0")/.."
host=${1:-127.0.0.1}
port=${2:-8000}
py=.venv/bin/python

if [ -z "${SECRET_KEY:-}" ]; then
  # No secret configured: a developer's machine. The settings read .env (secret, text logs),
  # and so does every later `.venv/bin/python manage.py ...` in this checkout.
  scripts/dev_env.sh
fi
export PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://$host:$port}
# A developer's webhook receiver listens on this machine (docs/developers/webhooks.md).
export WEBHOOK_ALLOW_PRIVATE_TARGETS=${WEBHOOK_ALLOW_PRIVATE_TARGETS:-1}

$py manage.py migrate --no-input
# The demo, then what to try (a development ID token, a sign-in link), in one process.
$py manage.py load_demo --welcome "http://$host:$port"

if [ -n "${DATABASE_URL:-}" ] && [ -n "${REDIS_URL:-${CELERY_BROKER_URL:-}}" ]; then
  # Production topology: web server, Celery worker and beat, and the live map streams' ASGI
  # server on the next port (no reverse proxy here, so pages open the streams there).
  # honcho gives each process its own PORT (5000 unless PORT is set), so pass the address the
  # message above printed; beat keeps its schedule under VAR_DIR, which nothing else creates
  # when DATABASE_URL is set.
  export HOST="$host" PORT="$port" STREAM_PORT="${STREAM_PORT:-$((port + 1))}"
  export STREAM_BASE_URL="${STREAM_BASE_URL-http://$host:$STREAM_PORT}"
  echo "Live map streams on $STREAM_BASE_URL/map/<id>/events"
  mkdir -p "${VAR_DIR:-var}"
  exec .venv/bin/honcho start -f Procfile
fi
# Embedded default: no beat, so scheduled status changes are applied by a loop of their own,
# and old rider reports deleted by another (hourly), both stopped with the server.
$py manage.py apply_schedules --every 15 &
schedules_loop=$!
$py manage.py purge_reports --every 3600 &
reports_loop=$!
trap 'kill "$schedules_loop" "$reports_loop" 2>/dev/null' EXIT
$py manage.py runserver "$host:$port"
