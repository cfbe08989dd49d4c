from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email

from apikeys.services import account_for_identity
from apikeys.tokens import mint_emulator_token
from core.errors import NotAuthenticated
from trails.importing import InvalidInput, validate_uid

# A working day: long enough for a development session, short enough to notice expiry.
DEV_TOKEN_LIFETIME = 12 * 3600


class Command(BaseCommand):
    help = (
        "Print a Firebase Auth emulator ID token for a uid (development only; valid 12 hours). "
        "Creates the account if missing."
    )

    def add_arguments(self, parser):
        parser.add_argument("uid", help="Firebase uid the token is for.")
        parser.add_argument("--email", default="", help="Email claim; stored on the account.")

    def handle(self, *args, **options):
        email = options["email"].strip()
        try:
            uid = validate_uid(options["uid"])
            if email:
                validate_email(email)
        except InvalidInput as error:
            raise CommandError(str(error)) from None
        except ValidationError:
            raise CommandError(f"{email!r} is not a valid email address.") from None
        try:
            user = account_for_identity(uid=uid, email=email, email_verified=True)
        except NotAuthenticated as error:
            raise CommandError(str(error)) from None
        token = mint_emulator_token(uid, email or user.email or None, expires_in=DEV_TOKEN_LIFETIME)
        self.stdout.write(token)
