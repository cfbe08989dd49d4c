"""Words of the public pages that code puts together (the views, the feeds) and those the pages'
scripts show, in the active language.

Every public view renders under `translation.override(system.language)`, so a word here is
gettext's, translated in the one catalog (webapp/locale) like the web app's. The scripts get
their words in the page's JSON settings (`script_texts`): inline, so the phone's first render
waits for no second request, and only the words the scripts use.
"""

from collections.abc import Callable
from datetime import datetime

from django.utils.translation import gettext, ngettext


def status_label(status: str) -> str:
    """A trail's published status (Open, Caution, Closed) in words."""
    labels = {"Open": gettext("Open"), "Caution": gettext("Caution"), "Closed": gettext("Closed")}
    return labels.get(status, status)


def severity_labels() -> dict[str, str]:
    """A notice's severity in words, by its published value."""
    return {
        "info": gettext("Information"),
        "warning": gettext("Warning"),
        "danger": gettext("Danger"),
    }


def snow_labels() -> dict[str, str]:
    """A snow report's figures, by their published property."""
    return {
        "baseDepth": gettext("Base"),
        "twentyFourHours": gettext("Last 24 h"),
        "fourtyEightHours": gettext("Last 48 h"),
        "sevenDays": gettext("Last 7 days"),
        "seasonTotal": gettext("Season total"),
        "lastSnowAmount": gettext("Last snowfall"),
        "upperElevationDepth": gettext("Upper mountain"),
        "lastSnowDate": gettext("Last snow"),
    }


def label_colon(label: str) -> str:
    """`Warning: ` (`Avertissement : ` in French), before what the label names."""
    return gettext("{label}: ").format(label=label)


def map_title(name: str) -> str:
    """`Trail map of <name>`, the map page's title and its embed's."""
    return gettext("Trail map of %(name)s") % {"name": name}


def open_of_total(open_count: int, total: int) -> str:
    """`1 trail open of 1`, `3 trails open of 5` (the index's line of a system)."""
    return ngettext(
        "%(open)d trail open of %(total)d", "%(open)d trails open of %(total)d", open_count
    ) % {"open": open_count, "total": total}


def ago(moment: datetime, now: datetime) -> str:
    """ "3 h ago", as the map script words it (map.js `ago`)."""
    minutes = int((now - moment).total_seconds() // 60)
    if minutes < 1:
        return gettext("just now")
    if minutes < 60:
        return gettext("{n} min ago").format(n=minutes)
    hours = minutes // 60
    if hours < 48:
        return gettext("{n} h ago").format(n=hours)
    return gettext("{n} d ago").format(n=hours // 24)


def unconfirmed_text(confirmed_on: datetime | None, now: datetime) -> str:
    """What the public pages say of a trail whose status is unconfirmed."""
    if confirmed_on is None:
        return gettext("Unconfirmed: never confirmed")
    return gettext("Unconfirmed: last confirmed {ago}").format(ago=ago(confirmed_on, now))


def plural_forms(say: Callable[[int], str]) -> dict[str, str]:
    """A counted message for a script: its words for one and for several, which the script
    picks by `Intl.PluralRules` (map.js `plural`). English and French need no other form."""
    return {"one": say(1), "other": say(2)}


def list_texts() -> dict[str, str]:
    """The status line of the map and of the embedded list (live.js `statusText`)."""
    return {
        "updated": gettext("Updated {time}"),
        "live_updated": gettext("Live · updated {time}"),
        "reconnecting_updated": gettext("Reconnecting… · updated {time}"),
    }


def script_texts() -> dict[str, str | dict[str, str]]:
    """The words of map.js and of the scripts beside it (grooming_view.js, schedules.js)."""
    return {
        **{status.lower(): status_label(status) for status in ("Open", "Caution", "Closed")},
        **severity_labels(),
        **snow_labels(),
        **list_texts(),
        "lift": gettext("Lift"),
        "lifts": gettext("Lifts"),
        "one_way": gettext("One way"),
        "label_colon": gettext("{label}: "),
        "feels_like": gettext("feels like"),
        "wind": gettext("wind"),
        "just_now": gettext("just now"),
        "ago_minutes": gettext("{n} min ago"),
        "ago_hours": gettext("{n} h ago"),
        "ago_days": gettext("{n} d ago"),
        "unconfirmed_since": gettext("Unconfirmed: last confirmed {ago}"),
        "never_confirmed": gettext("Unconfirmed: never confirmed"),
        "every_activity_closed": gettext("Every activity closed"),
        # Where a trail lies among trails of the same name (map.js `partAmong`).
        "part_n": gettext("north part"),
        "part_ne": gettext("north-east part"),
        "part_e": gettext("east part"),
        "part_se": gettext("south-east part"),
        "part_s": gettext("south part"),
        "part_sw": gettext("south-west part"),
        "part_w": gettext("west part"),
        "part_nw": gettext("north-west part"),
        "change_line": gettext("{name}: {status}"),
        "change_gone": gettext("{name}: no longer shown"),
        "more_changes": plural_forms(
            lambda n: ngettext("and {n} more change", "and {n} more changes", n)
        ),
        "load_failed": gettext("The map could not be loaded. It will try again shortly."),
        "no_trails": gettext("No trail matches this activity."),
        "wait_time": gettext("Wait {n} min"),
        "more": gettext("More information"),
        "schedule_until": gettext("{status} until {end}"),
        "schedule_window": gettext("{status} {start} – {end}"),
        "schedule_from": gettext("{status} from {start}"),
        "schedule_every_day": gettext("every day"),
        "difficulty_circle": gettext("Easiest"),
        "difficulty_square": gettext("More difficult"),
        "difficulty_diamond": gettext("Most difficult"),
        "difficulty_doubleDiamond": gettext("Experts only"),
        "difficulty_terrainPark": gettext("Terrain park"),
        # The map's Grooming view (grooming_view.js).
        "view_status": gettext("Status"),
        "view_grooming": gettext("Grooming"),
        "map_view": gettext("Map view"),
        "grooming_legend": gettext("Time since groomed"),
        "bucket_today": gettext("Today"),
        "bucket_1_3": gettext("1–3 days"),
        "bucket_4_6": gettext("4–6 days"),
        "bucket_7_10": gettext("7–10 days"),
        "bucket_11_14": gettext("11–14 days"),
        "bucket_older": gettext("Older or never"),
        "not_groomable": gettext("Lift (not groomed)"),
        "groomed_ago": gettext("{condition} {ago}"),
        "never_groomed": gettext("Not groomed in the last 14 days"),
        "groomer_now": gettext("Grooming now: {name}"),
        # Closed stretches of trails (closures.js).
        "partly_closed": gettext("Partly closed"),
        "closed_stretch": gettext("Closed stretch: {length}"),
        "closed_until": gettext("until {end}"),
        "detour": gettext("Detour: {detour}"),
        "closed_stretch_legend": gettext("Closed stretch"),
    }
