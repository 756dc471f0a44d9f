"""tczoo's methods: one module (or subpackage) per method, registered as entry points."""
