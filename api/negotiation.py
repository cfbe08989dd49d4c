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


class OwnFormatNegotiation(JsonFallbackNegotiation):
    """For a view whose own `format` query parameter names a file to download (CSV, XLSX):
    DRF's format override would read it as a renderer's name and answer 404; the view reads
    it instead and answers JSON otherwise."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
