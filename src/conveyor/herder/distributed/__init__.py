"""Distributed mode's building blocks: the Connect group protocol and the eager and cooperative assignors."""
