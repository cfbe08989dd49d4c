"""A rider's photo, made safe to keep and show: JPEG, PNG or WebP up to PHOTO_BYTES_MAX,
decoded by Pillow with a pixel limit (a decompression bomb is refused before it is
decoded), turned upright, scaled to at most PHOTO_SIDE_MAX pixels and re-encoded as a new
JPEG: nothing of the upload's metadata (EXIF with its GPS position and device, XMP, text
chunks, comments) survives. A photo whose text metadata carries markup is refused outright:
no camera writes a script into a PNG."""

import io
import re
import warnings
from dataclasses import dataclass

from django.utils.translation import gettext
from PIL import Image, ImageOps, UnidentifiedImageError

from core.errors import Invalid, TooLarge

PHOTO_BYTES_MAX = 8 * 1024 * 1024
PHOTO_SIDE_MAX = 1600  # what the map's form sends; a bigger upload is scaled down here too
# 50 megapixels: above any phone camera (a 48 MP sensor's 8064 x 6048 is 48.8 MP).
PHOTO_PIXELS_MAX = 50_000_000
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP")
STORED_CONTENT_TYPE = "image/jpeg"
JPEG_QUALITY = 82
_MARKUP = re.compile(r"<\s*/?\s*[a-z!?]|javascript:|\bon[a-z]+\s*=", re.IGNORECASE)
# PNG's XMP packet is XML by definition: it is dropped, never refused.
_XML_CHUNKS = frozenset({"XML:com.adobe.xmp"})


class PhotoRefused(Invalid):
    """The upload is not a photo we keep; `code` says why (its message is the rider's, in the
    active language)."""

    def __init__(self, code: str, message: str):
        super().__init__(code, message, field="photo")


class PhotoTooLarge(PhotoRefused, TooLarge):
    """Over PHOTO_BYTES_MAX or PHOTO_PIXELS_MAX."""

    def __init__(self, message: str):
        super().__init__("photo_too_large", message)


@dataclass(frozen=True)
class CleanPhoto:
    body: bytes
    width: int
    height: int


def _text_metadata(image: Image.Image) -> list[str]:
    texts = [
        value
        for key, value in getattr(image, "text", {}).items()
        if key not in _XML_CHUNKS and isinstance(value, str)
    ]
    comment = image.info.get("comment")
    if isinstance(comment, bytes):
        texts.append(comment.decode("latin-1"))
    return texts


def _opened(data: bytes) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
            width, height = image.size
            if width * height > PHOTO_PIXELS_MAX:
                raise PhotoTooLarge(
                    gettext(
                        "The photo has too many pixels (%(width)d x %(height)d); "
                        "send one of at most 50 megapixels."
                    )
                    % {"width": width, "height": height},
                )
            if any(_MARKUP.search(text) for text in _text_metadata(image)):
                raise PhotoRefused(
                    "photo_invalid",
                    gettext("The photo carries markup in its metadata; send another."),
                )
            image.load()
    except PhotoRefused:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise PhotoTooLarge(gettext("The photo has too many pixels.")) from error
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
        raise PhotoRefused(
            "photo_invalid", gettext("The photo could not be read: send a JPEG, PNG or WebP image.")
        ) from error
    return image


def clean_photo(data: bytes) -> CleanPhoto:
    """The photo as we keep it, or PhotoRefused."""
    if len(data) > PHOTO_BYTES_MAX:
        raise PhotoTooLarge(gettext("The photo is over 8 MB."))
    image = _opened(data)
    upright = ImageOps.exif_transpose(image)
    if upright.mode != "RGB":
        background = Image.new("RGB", upright.size, "white")
        rgba = upright.convert("RGBA")
        background.paste(rgba, mask=rgba.getchannel("A"))
        upright = background
    upright.thumbnail((PHOTO_SIDE_MAX, PHOTO_SIDE_MAX), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    # A new image from the pixels alone: no exif, icc_profile, comment or xmp is passed on.
    upright.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    return CleanPhoto(out.getvalue(), *upright.size)
