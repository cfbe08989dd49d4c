"""Management endpoints of updates (section 4), on the same bases as trails and points."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from api.bases import ItemView, SystemCollectionView, flag, true_flag
from api.updates.serializers import UpdateCreateSerializer, UpdateFieldsSerializer, UpdateSerializer
from updates import selectors, services


@extend_schema_view(
    get=extend_schema(parameters=[true_flag("includeExpired", "expired updates are listed too")])
)
class UpdatesView(SystemCollectionView):
    key = "updates"
    list_serializer = item_serializer = UpdateSerializer
    create_serializer = UpdateCreateSerializer
    create = staticmethod(services.create_update)
    lookup = staticmethod(selectors.update_or_404)

    def rows(self, request, system):
        return selectors.system_updates(system, include_expired=flag(request, "includeExpired"))


class UpdateView(ItemView):
    row_name = "update"
    item_serializer = UpdateSerializer
    change_serializer = UpdateFieldsSerializer
    lookup = staticmethod(selectors.update_or_404)
    change = staticmethod(services.change_update)
    remove = staticmethod(services.delete_update)
    removed = {"deleted": True}
