"""Management endpoints of updates (section 4), on the same bases as trails and points."""

from trails.views import ItemView, SystemCollectionView, flag
from updates import selectors, services
from updates.serializers import UpdateCreateSerializer, UpdateFieldsSerializer, UpdateSerializer


class UpdatesView(SystemCollectionView):
    key = "updates"
    list_serializer = item_serializer = UpdateSerializer
    create_serializer = UpdateCreateSerializer

    def rows(self, request, system):
        return selectors.system_updates(system, include_expired=flag(request, "includeExpired"))

    def create(self, system, data, by):
        return services.create_update(system, data, by)

    def lookup(self, pk):
        return selectors.update_or_404(pk)


class UpdateView(ItemView):
    item_serializer = UpdateSerializer
    change_serializer = UpdateFieldsSerializer

    def lookup(self, pk):
        return selectors.update_or_404(pk)

    def change(self, row, changes, by):
        services.change_update(row, changes, by)

    def remove(self, row, by):
        services.delete_update(row)
        return {"deleted": True}
