"""Pure formatters: each turns a ``Report`` into text or renderables and never prints."""
