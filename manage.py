#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    # A setting refused at start-up (a malformed or unsafe variable) is told in one line that
    # names it, with a non-zero exit, not as a traceback from inside the settings.
    try:
        settings.INSTALLED_APPS  # noqa: B018 (reading a setting loads them all)
    except ImproperlyConfigured as error:
        sys.exit(f"Configuration error: {error}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
