"""A rider's photo, made safe to keep and show: JPEG, PNG or WebP up to PHOTO_BYTES_MAX,
decoded by Pillow within a memory bound (a decompression bomb is refused before it is
decoded), scaled to at most PHOTO_SIDE_MAX pixels, turned upright and re-encoded as a new
JPEG: nothing of the upload's metadata (EXIF with its GPS position and device, XMP, text
chunks, comments) survives. A photo whose text metadata carries markup is refused outright:
no camera writes a script into a PNG.

The bound is on what decoding takes, not on pixels alone: a 6 KB PNG of 50 megapixels took
520 MB and 3.6 s. A JPEG is decoded straight at a half, a quarter or an eighth of its size
when that is still larger than the photo kept (libjpeg's scaling), so a phone's 48-megapixel
photo takes a few megabytes; what remains to decode, and to convert before scaling, must fit
in PHOTO_DECODE_BYTES_MAX, so that a worker cleaning a photo stays under about 150 MB. The
map's form scales photos to PHOTO_SIDE_MAX in the browser: the bound only ever refuses an
upload made without it."""

import io
import re
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

PHOTO_BYTES_MAX = 8 * 1024 * 1024
PHOTO_SIDE_MAX = 1600  # what the map's form sends; a bigger upload is scaled down here too
# 50 megapixels: above any phone camera (a 48 MP sensor's 8064 x 6048 is 48.8 MP).
PHOTO_PIXELS_MAX = 50_000_000
PHOTO_DECODE_BYTES_MAX = 48 * 1024 * 1024
# Pillow keeps a pixel of these modes in a byte (the others in 4). Images of other modes than
# the scalable ones are converted before scaling ("1" and "P" scaled as they are would be
# sampled, not averaged), and an image with alpha is scaled through a premultiplied copy.
_BYTE_MODES = ("1", "L", "P")
_SCALABLE_MODES = ("L", "LA", "RGB", "RGBA")
_ALPHA_MODES = ("LA", "RGBA")
# A progressive JPEG is decoded from all its DCT coefficients at once, at full size whatever
# the scale: up to 3 of 2 bytes a pixel (no chroma subsampling).
_PROGRESSIVE_BYTES_PER_PIXEL = 6
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP")
STORED_CONTENT_TYPE = "image/jpeg"
JPEG_QUALITY = 82
_MARKUP = re.compile(r"<\s*/?\s*[a-z!?]|javascript:|\bon[a-z]+\s*=", re.IGNORECASE)
# PNG's XMP packet is XML by definition: it is dropped, never refused.
_XML_CHUNKS = frozenset({"XML:com.adobe.xmp"})


class PhotoRefused(ValueError):
    """The upload is not a photo we keep; `code` says why (its message is the rider's)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


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


def _scaled_mode(image: Image.Image) -> str:
    """The mode the image is scaled in."""
    if image.mode in _SCALABLE_MODES:
        return image.mode
    if image.mode == "1":
        return "L"
    return "RGBA" if image.has_transparency_data else "RGB"


def _decoding_bytes(image: Image.Image, full_size: tuple[int, int]) -> int:
    """What decoding the image (once drafted), converting it and scaling it take, at most."""
    width, height = image.size
    scaled = _scaled_mode(image)
    per_pixel = 1 if image.mode in _BYTE_MODES else 4
    if scaled != image.mode:
        per_pixel += 1 if scaled == "L" else 4
    if scaled in _ALPHA_MODES:
        per_pixel += 4
    needed = width * height * per_pixel
    if image.format == "JPEG" and image.info.get("progressive"):
        needed += full_size[0] * full_size[1] * _PROGRESSIVE_BYTES_PER_PIXEL
    return needed


def _scaled_size(size: tuple[int, int]) -> tuple[int, int]:
    """The size the photo is kept at: at most PHOTO_SIDE_MAX on its longer side."""
    scale = min(1.0, PHOTO_SIDE_MAX / max(size))
    return max(1, round(size[0] * scale)), max(1, round(size[1] * scale))


def _opened(data: bytes) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
            width, height = image.size
            if width * height > PHOTO_PIXELS_MAX:
                raise PhotoRefused(
                    "photo_too_large",
                    f"The photo has too many pixels ({width} x {height}); "
                    "send one of at most 50 megapixels.",
                )
            image.draft("RGB", _scaled_size(image.size))  # JPEG only; no other format drafts
            if _decoding_bytes(image, (width, height)) > PHOTO_DECODE_BYTES_MAX:
                raise PhotoRefused(
                    "photo_too_large",
                    f"The photo is too large to read ({width} x {height}); send a smaller one.",
                )
            # After the bound: a PNG's text chunks may follow its pixels, and reading them
            # decodes the image.
            if any(_MARKUP.search(text) for text in _text_metadata(image)):
                raise PhotoRefused(
                    "photo_invalid", "The photo carries markup in its metadata; send another."
                )
            image.load()
    except PhotoRefused:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise PhotoRefused("photo_too_large", "The photo has too many pixels.") from error
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
        raise PhotoRefused(
            "photo_invalid", "The photo could not be read: send a JPEG, PNG or WebP image."
        ) from error
    return image


def clean_photo(data: bytes) -> CleanPhoto:
    """The photo as we keep it, or PhotoRefused."""
    if len(data) > PHOTO_BYTES_MAX:
        raise PhotoRefused("photo_too_large", "The photo is over 8 MB.")
    image = _opened(data)
    if image.mode != (scaled := _scaled_mode(image)):
        image = image.convert(scaled)
    # Scaled first: every later copy is of the small image.
    image.thumbnail((PHOTO_SIDE_MAX, PHOTO_SIDE_MAX), Image.Resampling.LANCZOS)
    upright = ImageOps.exif_transpose(image)
    if upright.mode != "RGB":
        background = Image.new("RGB", upright.size, "white")
        rgba = upright.convert("RGBA")
        background.paste(rgba, mask=rgba.getchannel("A"))
        upright = background
    out = io.BytesIO()
    # A new image from the pixels alone: no exif, icc_profile, comment or xmp is passed on.
    upright.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    return CleanPhoto(out.getvalue(), *upright.size)
