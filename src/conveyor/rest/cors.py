"""CORS as Kafka Connect sets it up: `access.control.allow.origin` and `access.control.allow.methods`.

Origins are comma-separated; `*` alone allows any, and a `*` inside one (`https://*.example.com`)
stands for any characters, as in Jetty's CrossOriginFilter. Methods default to GET, POST and HEAD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware

DEFAULT_METHODS = ("GET", "POST", "HEAD")
ALLOWED_HEADERS = ("X-Requested-With", "Content-Type", "Accept", "Origin", "Authorization")


@dataclass(frozen=True)
class CorsPolicy:
    """The worker's two CORS keys, as given."""

    allowed_origins: str = ""
    allowed_methods: str = ""

    @property
    def enabled(self) -> bool:
        return bool(self.allowed_origins.strip())

    def install(self, app: Starlette) -> None:
        """Add Starlette's CORS middleware to `app`, set up to answer as this policy says."""
        origins = [origin.strip() for origin in self.allowed_origins.split(",") if origin.strip()]
        methods = [method.strip().upper() for method in self.allowed_methods.split(",") if method.strip()]
        exact = [origin for origin in origins if "*" not in origin]
        wildcards = [origin for origin in origins if "*" in origin and origin != "*"]
        patterns = [re.escape(origin).replace(r"\*", ".*") for origin in wildcards]
        app.add_middleware(
            CORSMiddleware,
            allow_origins=["*"] if "*" in origins else exact,
            allow_origin_regex="|".join(patterns) or None,
            allow_methods=methods or list(DEFAULT_METHODS),
            allow_headers=list(ALLOWED_HEADERS),
            allow_credentials=True,
        )
