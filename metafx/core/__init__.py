"""Values, base classes, validation and exceptions: the layer every other one builds on."""

__version__ = "0.1.0"
