"""A service's refusal (core.errors) on a web-app form, said once for every page: on the field
the refusal names, when the form has it, with the message alone; on the form as a whole, with
the field's name, when it names no field of this form."""

from collections.abc import Mapping

from django import forms
from django.utils.text import capfirst

from core.errors import DomainError


def add_refusal(
    form: forms.BaseForm, refusal: DomainError, form_field_of: Mapping[str, str] | None = None
) -> None:
    """`form_field_of`: the services' name of a field -> the form's name of it, where the two
    differ (`trail_ids` -> `trails`)."""
    name = (form_field_of or {}).get(refusal.field, refusal.field)
    if refusal.field and name in form.fields:
        form.add_error(name, capfirst(refusal.message))
    else:
        form.add_error(None, str(refusal))
