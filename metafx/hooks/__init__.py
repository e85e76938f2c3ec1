"""The plugin system: hook specifications, the plugin manager and the registry."""
