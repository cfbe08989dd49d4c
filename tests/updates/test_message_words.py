"""A message to people is one template, rendered in its system's language, with the plural its
count asks for (the e-mail to Administrators when sign-up by text pauses)."""

import pytest
from django.core import mail

from tests.factories import TrailSystemFactory, UserFactory
from updates.sms_budget import SYSTEM, tell_administrators

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "budget", "subject", "count_words"),
    [
        (
            "en",
            1,
            "Lost Trail: sign-up by text message is paused for today",
            "Lost Trail sent its 1 confirmation text message for today",
        ),
        (
            "en",
            2,
            "Lost Trail: sign-up by text message is paused for today",
            "Lost Trail sent its 2 confirmation text messages for today",
        ),
        (
            "fr",
            1,
            "Lost Trail : l'abonnement par texto est suspendu pour aujourd'hui",
            "Lost Trail a envoyé son 1 texto de confirmation pour aujourd'hui",
        ),
        (
            "fr",
            2,
            "Lost Trail : l'abonnement par texto est suspendu pour aujourd'hui",
            "Lost Trail a envoyé ses 2 textos de confirmation pour aujourd'hui",
        ),
    ],
)
def test_the_budget_e_mail_speaks_the_systems_language_with_the_plural_of_its_budget(
    language, budget, subject, count_words
):
    owner = UserFactory(email="owner@example.test")
    system = TrailSystemFactory(
        name="Lost Trail", language=language, owner=owner, sms_confirmations_per_day=budget
    )

    tell_administrators(system, SYSTEM)

    [told] = mail.outbox
    assert told.subject == subject
    assert count_words in told.body
