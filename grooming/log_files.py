"""The grooming log as files for whoever pays for the grooming: CSV (one row per session and
trail) and XLSX (a sheet per machine and one of totals), from the log's document, with the
columns named as the JSON names them."""

import csv
import io
import re

from openpyxl import Workbook
from openpyxl.utils import get_column_letter

# One row per session and trail; a session that groomed no trail has one row without a trail.
COLUMNS = (
    "day",
    "machine",
    "sessionId",
    "startedAt",
    "endedAt",
    "hours",
    "pausesLeftOut",
    "drivenMeters",
    "trailId",
    "trailName",
    "passes",
    "groomedMeters",
    "condition",
    "afterApproval",
)
TOTAL_COLUMNS = ("machine", "sessions", "hours", "drivenMeters", "groomedMeters")
TRAIL_TOTAL_COLUMNS = ("trailId", "name", "lengthMeters", "passes", "groomedMeters")
# Characters a sheet's title may not hold, and its length (Excel's rules).
_NOT_IN_TITLES = re.compile(r"[\[\]:*?/\\]")
TITLE_MAX = 31
# A cell that a spreadsheet would read as a formula (CSV injection): written as text.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _text(value):
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def rows(log: dict) -> list[tuple]:
    """The log's sessions as rows of COLUMNS: the drivenMeters and hours of a session are on
    its first row only, so a column's sum is the session's total."""
    table = []
    for session in log["sessions"]:
        head = (
            session["day"],
            _text(session["machine"]),
            session["id"],
            session["startedAt"],
            session["endedAt"],
        )
        trails = session["trails"] or [None]
        for index, trail in enumerate(trails):
            first = index == 0
            table.append(
                (
                    *head,
                    session["hours"] if first else None,
                    session["pausesLeftOut"] if first else None,
                    session["drivenMeters"] if first else None,
                    trail and trail["trailId"],
                    trail and _text(trail["name"]),
                    trail and trail["passes"],
                    trail and trail["groomedMeters"],
                    session["condition"],
                    session["afterApproval"],
                )
            )
    return table


def as_csv(log: dict) -> bytes:
    """UTF-8 with a byte-order mark, so that a spreadsheet opened on Windows reads accents."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows(log))
    return ("\ufeff" + out.getvalue()).encode()


def _sheet_title(name: str, taken: set[str]) -> str:
    base = _NOT_IN_TITLES.sub("_", name).strip("'") or "Machine"
    title, n = base[:TITLE_MAX], 2
    while title.lower() in taken:
        suffix = f" ({n})"
        title, n = base[: TITLE_MAX - len(suffix)] + suffix, n + 1
    taken.add(title.lower())
    return title


def _write(sheet, header: tuple, table: list[tuple]) -> None:
    """A sheet of the header and the rows (its layout first: a write-only sheet's rows are
    final once written)."""
    for column, name in enumerate(header, 1):
        sheet.column_dimensions[get_column_letter(column)].width = max(12, len(name) + 2)
    sheet.freeze_panes = "A2"
    sheet.append(header)
    for row in table:
        sheet.append(row)


def file_name(log: dict, kind: str) -> str:
    """The download's name: the system, the period, the kind."""
    return f"grooming-log-{log['trailSystemId']}-{log['from']}-{log['to']}.{kind}"


def as_xlsx(log: dict) -> bytes:
    """A sheet of totals (the period's, per machine, per trail), then one per machine."""
    # Write-only: rows stream to the file instead of a cell object each (a season's 9,000 rows
    # took 10 s the other way).
    book = Workbook(write_only=True)
    totals = book.create_sheet("Totals")
    all_totals = log["totals"]
    totals.append(("period", f"{log['from']} to {log['to']}", "timeZone", log["timeZone"]))
    totals.append(())
    _write(
        totals,
        TOTAL_COLUMNS,
        [
            *(tuple(_text(m[name]) for name in TOTAL_COLUMNS) for m in all_totals["machines"]),
            ("all machines", *(all_totals[name] for name in TOTAL_COLUMNS[1:])),
        ],
    )
    totals.append(())
    for row in [TRAIL_TOTAL_COLUMNS] + [
        tuple(_text(t[name]) for name in TRAIL_TOTAL_COLUMNS) for t in all_totals["trails"]
    ]:
        totals.append(row)
    taken = {"totals"}
    table = rows(log)
    for machine in all_totals["machines"]:
        sheet = book.create_sheet(_sheet_title(machine["machine"], taken))
        ids = {s["id"] for s in log["sessions"] if s["machineId"] == machine["machineId"]}
        _write(sheet, COLUMNS, [row for row in table if row[2] in ids and not row[-1]])
    late = [row for row in table if row[-1]]
    if late:
        _write(book.create_sheet(_sheet_title("After approval", taken)), COLUMNS, late)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


# kind -> (media type, writer): the files the API and the web app offer.
FILES = {
    "csv": ("text/csv; charset=utf-8", as_csv),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", as_xlsx),
}
