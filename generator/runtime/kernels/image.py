"""ONNX ImageDecoder: an encoded image (the bytes of a BMP, JPEG, JPEG 2000, TIFF, PNG, WebP or PNM file)
decoded to a (height, width, channels) uint8 array by Pillow, which the reference kernel needs (the
`test` extra installs it; the kernel raises ImportError without it).

Pillow's decoders follow the formats' own definitions, and its JPEG decoder is libjpeg-turbo with the
"fancy" chroma upsampling the text describes. RGB and BGR give 3 channels (images with alpha or a palette
are converted to RGB: alpha is dropped); Grayscale gives 1 channel, Pillow's ITU-R 601-2 luma
L = (299 R + 587 G + 114 B) / 1000 for colour images. An EXIF orientation tag is not applied (the text
does not mention one). A stream that cannot be decoded gives an empty (0, 0, channels) array, as the text
says ("an empty matrix").
"""
from __future__ import annotations

import io
from typing import Any

import numpy as np

_CHANNELS = {"RGB": 3, "BGR": 3, "Grayscale": 1}


def image_decoder(encoded_stream: np.ndarray, *, pixel_format: str = "RGB", image_dtype: Any = None) -> np.ndarray:
    """ONNX ImageDecoder: the image of a 1-D uint8 stream, channels last, in pixel_format (module doc)."""
    if pixel_format not in _CHANNELS:
        raise ValueError(f"pixel_format must be RGB, BGR or Grayscale, got {pixel_format!r}")
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError as exc:  # pragma: no cover - the test extra installs Pillow
        raise ImportError("ImageDecoder's reference kernel decodes with Pillow: pip install pillow") from exc
    data = np.ascontiguousarray(encoded_stream, dtype=np.uint8).tobytes()
    try:
        with Image.open(io.BytesIO(data)) as image:
            decoded = np.asarray(image.convert("L" if pixel_format == "Grayscale" else "RGB"), dtype=np.uint8)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        return np.zeros((0, 0, _CHANNELS[pixel_format]), np.uint8)
    if pixel_format == "Grayscale":
        return decoded[:, :, None].copy()
    return decoded[:, :, ::-1].copy() if pixel_format == "BGR" else decoded.copy()
