"""Built-in plugins: registered through the same hooks as third-party ones.

The plugin manager loads these modules by dotted name (see
``metafx.hooks.manager.BUILTIN_PLUGINS``); nothing in the core imports them.
"""
