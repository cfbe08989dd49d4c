"""What a list action did, told to the person: shared by the admin modules and the trail
lists' own actions."""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import model_ngettext
from django.utils.translation import ngettext


@dataclass
class ActionOutcome:
    """What a list action did: how many rows, and the rows a service refused with its reason."""

    done: int = 0
    refused: list[tuple[list, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # the ids of the selected rows still listed

    def refuse(self, rows: list, reason: str) -> None:
        self.refused.append((rows, reason))
        self.seen.update(str(row.pk) for row in rows)

    def count(self, rows: list) -> None:
        self.done += len(rows)
        self.seen.update(str(row.pk) for row in rows)


def report_outcome(
    model_admin,
    request,
    outcome: ActionOutcome,
    *,
    done: str | Callable[[int], str],
    not_done: str,
    params: dict | None = None,
) -> None:
    """Tell the person what a list action did. Each row is its own change, as in the API, so a
    refusal leaves only the rows it names as they were and the others are done; selected rows
    no longer in the list (someone else trashed, restored or deleted them meanwhile) are left
    alone and counted. `done` takes the count (or is the words for that count, said with
    ngettext); `not_done` says what did not happen; both take `params`."""
    params = params or {}
    if outcome.done:
        model_admin.message_user(
            request,
            (done(outcome.done) if callable(done) else done) % {"count": outcome.done, **params},
            messages.SUCCESS,
        )
    for rows, reason in outcome.refused:
        names = ", ".join(f"“{row}”" for row in rows)
        model_admin.message_user(request, f"{not_done % params}: {names}. {reason}", messages.ERROR)
    gone = _vanished(request, outcome.seen)
    if gone:
        model_admin.message_user(
            request,
            ngettext(
                "%(count)d selected %(items)s is no longer in this list (someone else moved, "
                "restored or deleted it meanwhile); it was left as it is.",
                "%(count)d selected %(items)s are no longer in this list (someone else moved, "
                "restored or deleted them meanwhile); they were left as they are.",
                gone,
            )
            % {"count": gone, "items": model_ngettext(model_admin.opts, gone)},
            messages.WARNING,
        )


def _vanished(request, seen: set[str]) -> int:
    """Selected rows the action did not find; 0 when every row of the list was selected."""
    if request.POST.get("select_across") == "1":
        return 0
    return len(set(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)) - seen)
