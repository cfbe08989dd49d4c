"""Words of "Report a problem" that code puts together: the categories (the map's form and the
page without script) and the words of its script (public/report.js), in the active language."""

from django.utils.translation import gettext


def categories() -> list[tuple[str, str]]:
    """Each category a rider may choose: its value and its words."""
    return [
        ("fallenTree", gettext("Fallen tree")),
        ("washout", gettext("Washout")),
        ("ice", gettext("Ice")),
        ("water", gettext("Water or flooding")),
        ("signage", gettext("Missing or wrong sign")),
        ("obstruction", gettext("Something blocks the trail")),
        ("other", gettext("Something else")),
    ]


def report_script_texts() -> dict[str, str]:
    """The words report.js shows."""
    return {
        "report_category": gettext("What did you see?"),
        "report_no_place": gettext("No place yet: use your position or tap the map."),
        "report_near": gettext("Near {trail} ({distance} m away)"),
        "report_place_set": gettext("Place set"),
        "report_sending": gettext("Sending…"),
        "report_retrying": gettext(
            "Could not send: no connection. Your report is kept here and sent again in {seconds} s."
        ),
        "report_failed": gettext("Could not send your report: {message}"),
    }
