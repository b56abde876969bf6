"""The commands: one module per command (or group), the options they share, and their views."""
