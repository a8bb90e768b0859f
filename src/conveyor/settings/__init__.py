"""Every typed view of worker and connector properties, config providers, the client override policy
and the names derived from settings."""
