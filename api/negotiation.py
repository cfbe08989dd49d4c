from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class JsonFallbackNegotiation(DefaultContentNegotiation):
    """The management interface speaks JSON only: an Accept header it cannot satisfy gets JSON
    anyway instead of a 406 that no client of this API needs."""

    def select_renderer(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type
