#!/usr/bin/env bash
# Write the development settings of this checkout (default: .env at its root) unless the file
# exists: a generated SECRET_KEY, DEBUG off, static files re-read and plain-text log lines. config/settings.py reads the file, so
# `manage.py` gets the same settings as `make run`; variables set in the environment win.
#
# `dev_env.sh --address URL [FILE]` keeps in the file the address `make run` serves on
# (PUBLIC_BASE_URL, replacing the one kept before), so that the links `manage.py` commands
# print (signin_link, the welcome) point at the server that runs, whatever its port.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--address" ]; then
  file=${3:-.env}
  sed -i -e '/^# The address `make run` serves on/d' -e '/^PUBLIC_BASE_URL=/d' "$file"
  printf '%s\n' "# The address \`make run\` serves on (rewritten by each \`make run\`)." \
    "PUBLIC_BASE_URL=$2" >> "$file"
  exit 0
fi
file=${1:-.env}
if [ -e "$file" ]; then
  exit 0
fi
umask 077
secret=$(python3 -c "import secrets; print(secrets.token_urlsafe(50))")
cat > "$file" <<ENV
# Development settings written by \`make run\` (scripts/dev_env.sh); git-ignored.
SECRET_KEY=$secret
# Off, so a page a person sees is the site's own, never Django's debug page; tracebacks go to
# the terminal. 1 turns Django's debug pages on for a developer hunting a bug.
DEBUG=0
# Edited scripts and stylesheets are served without a restart.
STATIC_AUTOREFRESH=1
LOG_FORMAT=text
ENV
echo "Wrote $file (development settings: generated SECRET_KEY, DEBUG off, static files re-read, text logs)."
