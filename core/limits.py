"""Every bound the service puts on what it is sent, in one place (docs/developers/limits.md);
every interface applies them alike.

Each bound is far beyond any real value, so it never refuses real data; it exists so that a
number or a count no real client sends cannot overflow a column, a JSON encoder or a file
(a depth of 1e20, an elevation of 1e308, an 80,000-part line, 200,000 categories). A count
whose size the request body already bounds (a trail's positions) is never refused below it.
"""

from collections.abc import Iterable

REQUEST_BODY_MAX = 2 * 1024 * 1024  # bytes of a management request body (413 beyond)
TEXT_LIMIT = 2000  # characters of any free-text field (names, descriptions, links)

# Numbers (inclusive bounds).
SNOW_DEPTH_MAX = 100_000  # in the system's depth unit; the deepest snow ever measured is ~1,200 in
WAIT_TIME_MAX = 10_080  # minutes: one week
TRAIL_ORDER_MAX = 1_000_000  # |order|; a new trail gets minus the number of trails
EXPIRES_IN_HOURS_MAX = 8_760  # one year; must also be greater than 0
UNCONFIRMED_AFTER_HOURS_MAX = 8_760  # one year; a trail system's "unconfirmed after"
EXPIRES_IN_DAYS_MAX = 3_650  # API keys: ten years
LATITUDE_MAX = 90
LONGITUDE_MAX = 180
ELEVATION_MIN = -1_000  # metres; the Dead Sea shore is at -430 m
ELEVATION_MAX = 10_000  # metres; Everest is 8,849 m
YEAR_MIN, YEAR_MAX = 1, 9999  # dates, in UTC
ID_TOKEN_CLOCK_SKEW_SECONDS = 60  # an ID token's iat may be this far in the future, no more

# Counts.
GEOMETRY_PARTS_MAX = 500  # lines of one MultiLineString trail
# Positions of one trail, all parts together: as many as a body at REQUEST_BODY_MAX can carry
# ("[0,0]," each), so only a trail that comes another way (an import) can meet it.
GEOMETRY_POSITIONS_MAX = REQUEST_BODY_MAX // len("[0,0],")
CATEGORIES_MAX = 50  # categories of one trail
CATEGORY_LENGTH_MAX = 100  # characters of one category
ACTIVITY_CHANGES_MAX = 50  # activities changed by one trail PATCH
IDS_PER_REQUEST_MAX = 10_000  # trailIds of one request (trail status, updates)
KEY_SYSTEMS_MAX = 1_000  # trailSystemIds of one API key
KEY_SCOPES_MAX = 10  # scopes of one API key (duplicates are dropped)
HISTORY_LIMIT = 500  # entries of one trail's or point's history answer (?limit=)
SMS_CONFIRMATIONS_PER_DAY_MAX = 1_000_000  # a trail system's budget of confirmation SMS
REPORTS_PER_DAY_MAX = 100_000  # a trail system's budget of rider reports

# Error messages name at most this many of the values at fault.
NAMED_IN_ERRORS = 5


def some_of(values: Iterable[str], shown: int = NAMED_IN_ERRORS) -> str:
    """A short list for an error message: 'a, b, c and 149,997 more', never the whole list."""
    values = sorted(values)
    named = ", ".join(values[:shown])
    rest = len(values) - shown
    return f"{named} and {rest:,} more" if rest > 0 else named


def categories_problem(categories: Iterable[str]) -> str | None:
    """What is wrong with a trail's categories against their limits, or None."""
    categories = list(categories)
    if len(categories) > CATEGORIES_MAX or any(len(c) > CATEGORY_LENGTH_MAX for c in categories):
        return f"at most {CATEGORIES_MAX}, of {CATEGORY_LENGTH_MAX} characters each."
    return None
