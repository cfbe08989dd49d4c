"""A service's refusal (core.errors) on a web-app form, said once for every page: on the field
the refusal names, when the form has it, with the message alone; on the form as a whole, with
the field's name, when it names no field of this form."""

from django import forms
from django.utils.text import capfirst

from core.errors import DomainError


def add_refusal(form: forms.BaseForm, refusal: DomainError) -> None:
    """A form names its fields as the services do (`trail_ids`, `starts_at`)."""
    if refusal.field and refusal.field in form.fields:
        form.add_error(refusal.field, capfirst(refusal.message))
    else:
        form.add_error(None, str(refusal))
