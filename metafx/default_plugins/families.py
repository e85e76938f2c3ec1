"""Registration of the built-in feature families and describers."""

from __future__ import annotations

from ..hooks.spec import hookimpl
from .pixel_families import LocationDescriber, PixelAndFamily, PixelsFamily, RadiusDescriber


@hookimpl
def metafx_register_families(register):
    register(PixelAndFamily)
    register(PixelsFamily)


@hookimpl
def metafx_register_describers(register):
    register(LocationDescriber)
    register(RadiusDescriber)
