"""What an op cites: the source documents it is transcribed from (files the repository carries) or, for an
extension op, the published specification of its dialect; each a located SpecError when wrong."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from .errors import SpecError
from .model import OpSpec
from .parse import SOURCES_DIR

_DOCUMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_URL = re.compile(r"https?://[^\s<>\"'`]+")


def check_sources(op: OpSpec, root: Path) -> Iterator[SpecError]:
    """An op's citations: each source document is a file of the specs' sources folder, each address a web
    address, and an extension op cites its dialect's published specification instead of a document."""
    folder = root / SOURCES_DIR
    yield from _check_extension(op)
    for k, source in enumerate(op.sources):
        if source.document is None:
            continue  # an extension op's citation: its url, checked below and by _check_extension
        if not (_DOCUMENT.fullmatch(source.document) and (folder / source.document).is_file()):
            known = sorted(p.name for p in folder.glob("*") if p.is_file() and p.name != "README.md") \
                if folder.is_dir() else []
            yield SpecError(op.location, f"source document {source.document!r} is not in {SOURCES_DIR}/ of the "
                            f"specs folder; known: {', '.join(known) or 'none'}", op.key, f"sources[{k}].document")
        for label, url in (("url", source.url),):
            if url is not None and not _URL.fullmatch(url):
                yield SpecError(op.location, f"{url!r} is not a web address (http:// or https://, no spaces)",
                                op.key, f"sources[{k}].{label}")
    ref = op.provenance.reference
    if ref is not None and not _URL.fullmatch(ref):
        yield SpecError(op.location, f"{ref!r} is not a web address (http:// or https://, no spaces)", op.key,
                        "provenance.reference")


# The published specification each extension dialect cites instead of a source document (StableHLO's
# spec, and the reference of its CHLO dialect for the operations jax writes as chlo.*, such as erf_inv).
EXTENSION_SPECIFICATIONS = {"stablehlo": ("https://openxla.org/stablehlo/spec",
                                          "https://openxla.org/stablehlo/generated/chlo")}


def _check_extension(op: OpSpec) -> Iterator[SpecError]:
    """An extension op cites its dialect's specification (url and section) and no source document;
    a transcribed op cites a document, so the two kinds never mix."""
    if op.extension is None:
        for k, source in enumerate(op.sources):
            if source.document is None:
                yield SpecError(op.location, "a source without a document is allowed only on an extension op "
                                "(set extension: stablehlo, or name the source document)", op.key,
                                f"sources[{k}].document")
        return
    spec_urls = EXTENSION_SPECIFICATIONS[op.extension]
    for k, source in enumerate(op.sources):
        if source.document is not None:
            yield SpecError(op.location, f"an extension op ({op.extension}) is not in a source document; cite "
                            f"{spec_urls[0]} by url and section instead of {source.document!r}", op.key,
                            f"sources[{k}].document")
        elif not (source.url or "").startswith(spec_urls) or not source.section:
            yield SpecError(op.location, f"an extension op ({op.extension}) cites {' or '.join(spec_urls)} "
                            "(url starting with it and the section name)", op.key, f"sources[{k}]")
