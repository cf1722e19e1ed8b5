"""Plain text (``.txt``): decoded without altering a single character."""

from __future__ import annotations

import codecs
from collections.abc import Iterable

from .errors import MEDIA_TYPE_TXT, ExtractedText, ExtractionError


def _extract_txt(data: bytes) -> ExtractedText:
    """Decode plain text without altering a single character.

    Offsets into the returned text are used as citations back into the file,
    so the UTF-8 path is exactly ``data.decode("utf-8")``.  UTF-16 with a BOM
    (Notepad's "Unicode") is recognised because otherwise it would "succeed"
    as cp1252 full of NUL characters.
    """
    warnings: list[str] = []
    text: str | None = None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            # "utf-16" consumes the BOM; re-add it so that, like the UTF-8 path,
            # the BOM is kept as U+FEFF rather than silently dropped.
            text = "\ufeff" + data.decode("utf-16")
            warnings.append("The file is not UTF-8; it was read as UTF-16.")
        except UnicodeDecodeError:
            text = None
    if text is None:
        text, used = _decode_with_fallback(data, ("utf-8", "cp1252", "latin-1"))
        if used != "utf-8":
            warnings.append(f"The file is not valid UTF-8; it was read as {_codec_label(used)}.")

    if "\x00" in text:
        # Valid-looking text never contains NUL; this is a binary file (or an
        # odd encoding) with a .txt name, and PostgreSQL cannot store NULs.
        raise ExtractionError(
            "corrupt", "The file contains binary data, so it does not look like a plain-text file."
        )
    if not text.replace("\ufeff", "").strip():
        raise ExtractionError("empty", "The file is empty.")
    return ExtractedText(text=text, media_type=MEDIA_TYPE_TXT, pages=None, warnings=tuple(warnings))


def _decode_with_fallback(data: bytes, encodings: Iterable[str]) -> tuple[str, str]:
    """Decode with the first encoding that works strictly; latin-1 never fails."""
    for enc in encodings:
        try:
            return data.decode(enc), enc
        except (UnicodeDecodeError, LookupError):
            continue
    return data.decode("latin-1"), "latin-1"


def _codec_label(enc: str) -> str:
    try:
        name = codecs.lookup(enc).name
    except LookupError:
        return enc
    return {
        "cp1252": "Windows-1252 (cp1252)",
        "iso8859-1": "Latin-1 (ISO-8859-1)",
        "latin-1": "Latin-1 (ISO-8859-1)",
        "utf-8": "UTF-8",
    }.get(name, name)
