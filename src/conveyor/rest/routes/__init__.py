"""The REST API's resources, one module per group of endpoints, each a router built around a herder."""
