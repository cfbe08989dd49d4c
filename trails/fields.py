"""The fields of each resource that every interface reads, written once: the API's shapes, the
web app's forms and the legacy documents list them from here, so adding a field is one edit
(plus its model column). Names are the models'; the interfaces camelize them."""

# A trail's own fields, as a manager edits them (its geometry and activities apart).
TRAIL_FIELDS = (
    "name",
    "description",
    "status",
    "difficulty",
    "type",
    "line_style",
    "hidden",
    "one_way",
    "one_way_reversed",
    "order",
    "categories",
)
# What a trail derives from its geometry.
TRAIL_GEOMETRY_FIELDS = ("distance", "lat", "lng")
# An activity on a trail, as the web app's inline edits it.
ACTIVITY_FIELDS = ("value", "status", "difficulty", "position")
