"""ImageDecoder-20 cases for the formats and variants beyond the lossless PNG / BMP / PNM
pictures of cases_20.image_decoder: JPEG (colour 4:2:0 / 4:4:4, greyscale, CMYK), JPEG 2000 (JP2
and raw codestream), TIFF (uncompressed, LZW grey, deflate palette, RGBA, 1-bit), BMP (palette,
grey, 1-bit, 32-bit RGBA), WebP (lossless, lossy), PBM (raw, plain), plain PGM / PPM, PGM with
maxval 10 / 100, 16-bit PPM, 16-bit, palette, RGBA and grey+alpha PNG, each decoded to RGB, BGR
and Grayscale.

Encoders and reference: Pillow (Debian python3-pil). ONNX's reference implementation
(onnx/reference/ops/op_image_decoder.py) decodes with Pillow; python3-onnx 1.12 predates it, so
its logic is written here: Image.open, then np.array for RGB (channels reversed for BGR) and
convert("L") for Grayscale. Where Pillow opens a picture in a mode other than RGB (palette,
RGBA, 1-bit, greyscale), the RGB / BGR reference takes convert("RGB") first, as the operator's
output is [H, W, 3]: palettes expanded, alpha dropped, grey repeated.
"""
import io
import struct
import zlib

import numpy as np
from PIL import Image

import dtypes as D
from mk import Case, rng


def pil_reference(data, pixel_format):
    img = Image.open(io.BytesIO(data))
    if pixel_format == "Grayscale":
        return np.array(img.convert("L"))[..., None]
    rgb = np.array(img if img.mode == "RGB" else img.convert("RGB"))
    return rgb if pixel_format == "RGB" else rgb[..., ::-1]


def _encode(arr, mode, fmt, palette=None, **kw):
    buf = io.BytesIO()
    img = Image.fromarray(arr, mode)
    if palette is not None:
        img.putpalette(palette.tobytes())
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def _png(pixels, color_type, depth=8, palette=None):
    """A PNG written by hand: Pillow writes no 16-bit colour PNG."""
    h, w = pixels.shape[:2]
    be = pixels.astype(">u2") if depth == 16 else pixels
    raw = b"".join(b"\x00" + be[i].tobytes() for i in range(h))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    plte = chunk(b"PLTE", palette.tobytes()) if palette is not None else b""
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 0)) + plte +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _plain(values):
    """Samples of a plain (ASCII) PNM raster, 8 to a line."""
    flat = [str(int(v)) for v in np.asarray(values).reshape(-1)]
    return "\n".join(" ".join(flat[i:i + 8]) for i in range(0, len(flat), 8)).encode() + b"\n"


def _smooth(r, h, w):
    """A picture with gradients and noise: lossy codecs keep it close, chroma varies."""
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) * 127 // (h + w)],
                    axis=-1)
    return np.clip(base + r.integers(-20, 21, size=(h, w, 3)), 0, 255).astype(np.uint8)


def streams():
    r = rng("image_decoder_formats")
    rgb = _smooth(r, 13, 22)  # odd height, width not a multiple of the 16-pixel JPEG MCU
    gray = _smooth(r, 11, 9)[..., 1]
    rgba = np.concatenate([rgb, r.integers(1, 256, size=(13, 22, 1), dtype=np.uint8)], axis=-1)
    la = np.stack([gray, r.integers(1, 256, size=gray.shape, dtype=np.uint8)], axis=-1)
    rgb16 = r.integers(0, 65536, size=(5, 6, 3), dtype=np.uint16)
    palette = r.integers(0, 256, size=(16, 3), dtype=np.uint8)
    indices = r.integers(0, 16, size=(7, 9), dtype=np.uint8)
    bits = r.integers(0, 2, size=(6, 11), dtype=np.uint8).astype(bool)
    return [
        ("jpeg", _encode(rgb, "RGB", "JPEG", quality=90)),
        ("jpeg_gray", _encode(gray, "L", "JPEG", quality=90)),
        ("jpeg_444", _encode(rgb, "RGB", "JPEG", quality=95, subsampling=0)),
        ("jpeg_cmyk", _encode(rgba, "CMYK", "JPEG", quality=95)),
        ("jp2", _encode(rgb, "RGB", "JPEG2000")),
        ("j2k_gray", _encode(gray, "L", "JPEG2000", no_jp2=True)),
        ("tiff", _encode(rgb, "RGB", "TIFF")),
        ("tiff_lzw_gray", _encode(gray, "L", "TIFF", compression="tiff_lzw")),
        ("tiff_deflate_palette", _encode(indices, "P", "TIFF", palette=palette, compression="tiff_adobe_deflate")),
        ("tiff_rgba", _encode(rgba, "RGBA", "TIFF")),
        ("tiff_1bit", _encode(bits, "1", "TIFF")),
        ("bmp_palette", _encode(indices, "P", "BMP", palette=palette)),
        ("bmp_gray", _encode(gray, "L", "BMP")),
        ("bmp_1bit", _encode(bits, "1", "BMP")),
        ("bmp_rgba", _encode(rgba, "RGBA", "BMP")),
        ("webp_lossless", _encode(rgb, "RGB", "WEBP", lossless=True)),
        ("webp_lossy", _encode(rgb, "RGB", "WEBP", quality=80)),
        ("png_16bit", _png(rgb16, 2, depth=16)),
        ("png_palette", _png(indices, 3, palette=palette)),
        ("png_rgba", _png(rgba, 6)),
        ("png_gray_alpha", _png(la, 4)),
        ("pbm", _encode(bits, "1", "PPM")),
        ("pbm_plain", b"P1\n# plain\n11 6\n" + _plain(~bits)),
        ("pgm_plain_maxval_100", b"P2\n9 11\n100\n" + _plain(gray * 100 // 255)),
        ("pgm_maxval_10", b"P5\n9 11\n10\n" + (gray * 10 // 255).astype(np.uint8).tobytes()),
        ("ppm_plain", b"P3\n22 13\n255\n" + _plain(rgb)),
        ("ppm_16bit_maxval_1000", b"P6\n22 13\n1000\n" +
         (rgb.astype(np.uint32) * 1000 // 255).astype(">u2").tobytes()),
    ]


def high_byte_streams():
    """16-bit greyscale pictures: Pillow opens them as 32-bit integers, and its convert("L") /
    convert("RGB") clip those to 255, so its pixels are white wherever v > 255. The decoder keeps
    the picture instead (docs/image_decoder.md): the high byte for PNG, round(v / maxval * 255)
    for PGM, as Pillow does for 16-bit colour. References from numpy."""
    r = rng("image_decoder_16bit_gray")
    g16 = r.integers(0, 65536, size=(4, 7), dtype=np.uint16)
    pgm = np.rint(g16.astype(np.float64) / 65535 * 255).astype(np.uint8)
    return [("png_16bit_gray", _png(g16, 0, depth=16), (g16 >> 8).astype(np.uint8)),
            ("pgm_16bit", b"P5\n7 4\n65535\n" + g16.astype(">u2").tobytes(), pgm)]


def image_decoder_formats():
    out = []
    for tag, data, gray in high_byte_streams():
        arr = np.frombuffer(data, dtype=np.uint8).copy()
        rgb = np.repeat(gray[..., None], 3, axis=-1)
        for fmt, want in (("RGB", rgb), ("BGR", rgb), ("Grayscale", gray[..., None])):
            n = "image_decoder_20_%s_%s" % (tag, fmt.lower())
            out.append(Case(n, "ImageDecoder", 20, [("data", D.UINT8, arr)], [("output", D.UINT8)],
                            attrs={"pixel_format": fmt}, ort=False, ref=lambda d, w=want: [w],
                            note="numpy reference: 16-bit grey samples scaled to 8 bits "
                                 "(Pillow clips them to 255)"))
    for tag, data in streams():
        arr = np.frombuffer(data, dtype=np.uint8).copy()
        for fmt in ("RGB", "BGR", "Grayscale"):
            n = "image_decoder_20_%s_%s" % (tag, fmt.lower())
            out.append(Case(n, "ImageDecoder", 20, [("data", D.UINT8, arr)], [("output", D.UINT8)],
                            attrs={"pixel_format": fmt}, ort=False,
                            ref=lambda d, fmt=fmt: [pil_reference(d.tobytes(), fmt)],
                            note="Pillow reference (gen/cases_image.py: the logic of ONNX's "
                                 "reference implementation)"))
    return out
