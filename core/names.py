"""Field names as the interfaces show them: the spec's camelCase of the domain's snake_case
name (`trail_ids` -> `trailIds`, `snow_depth_24h` -> `snowDepth24h`), the rule the API's
renderer (djangorestframework-camel-case) applies to every response. Written here without that
package, which is the API's: the domain knows nothing of DRF (.importlinter); a test holds the
two to the same spelling. Only what writes a wire format calls it (the error envelope, the
field descriptions of trails/fields.py, the published file, the events' payloads, the feeds'
labels); services and their refusals use their own names."""

import re

_UNDERSCORED = re.compile(r"_([a-z0-9])")


def camel(name: str) -> str:
    return _UNDERSCORED.sub(lambda match: match.group(1).upper(), name)
