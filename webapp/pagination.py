"""Pages of the web app's lists that do not count every row of a large table."""

import json
from functools import cached_property

from django.core.paginator import EmptyPage, Paginator
from django.db import connection

# Rows counted exactly; past this, PostgreSQL's estimate (counting a million rows takes longer
# than the page may, and nobody reads "1,000,321" differently from "about a million").
COUNT_CAP = 10_000


class CappedCountPaginator(Paginator):
    """Counts up to COUNT_CAP rows, then takes the planner's estimate of the row count; a
    page past the last real row is shown empty rather than refused."""

    @cached_property
    def count(self) -> int:
        if connection.vendor != "postgresql":
            return super().count
        counted = self.object_list.order_by()[: COUNT_CAP + 1].count()
        if counted <= COUNT_CAP:
            return counted
        return max(COUNT_CAP + 1, self.estimated)

    @property
    def estimated(self) -> int:
        plan = json.loads(self.object_list.order_by().explain(format="json"))
        return int(plan[0]["Plan"]["Plan Rows"])

    def validate_number(self, number):
        try:
            return super().validate_number(number)
        except EmptyPage:
            if self.count <= COUNT_CAP or int(number) < 1:
                raise
            return int(number)  # past the estimate's last real row: an empty page
