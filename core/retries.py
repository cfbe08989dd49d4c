"""The one retry schedule of work sent out again after a failure (notification deliveries,
webhook attempts): each wait is the last times a factor, up to a ceiling, and drawn within 20 %
of that, so that what failed together (a provider's outage) does not come back all at once."""

import random
from datetime import timedelta

# Each wait is drawn between 80 % and 120 % of the schedule's.
JITTER = 0.2
# Past this many failures in a row the wait grows no more (before any ceiling: no overflow).
GROWTH_MAX = 20


def retry_delay(failures: int, *, first: timedelta, factor: float, longest: timedelta) -> timedelta:
    """The wait after the `failures`-th failure in a row: `first`, then `factor` times longer
    each time, at most `longest`; jittered."""
    seconds = first.total_seconds() * factor ** min(failures - 1, GROWTH_MAX)
    scheduled = min(seconds, longest.total_seconds())
    return timedelta(seconds=scheduled * random.uniform(1 - JITTER, 1 + JITTER))
