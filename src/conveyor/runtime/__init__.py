"""The worker and its task loops: source (at-least-once and exactly-once) and sink."""
