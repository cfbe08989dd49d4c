from django.core.management.base import BaseCommand, CommandError

from apikeys.models import User
from webapp.signin import signin_link


class Command(BaseCommand):
    help = "Print a one-time web app sign-in link for an account (valid 15 minutes, used once)."

    def add_arguments(self, parser):
        parser.add_argument("uid", help="The account's uid.")

    def handle(self, *args, **options):
        user = User.objects.filter(uid=options["uid"], is_active=True).first()
        if user is None:
            raise CommandError(f"No active account {options['uid']!r}.")
        self.stdout.write(signin_link(user))
