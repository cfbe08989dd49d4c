from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.permissions import AllowAny

from config.errors import not_found


@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])
@authentication_classes([])
@permission_classes([AllowAny])
def route_not_found(request):
    raise not_found("not_found", f"No route {request.method} {request.path}.")
