"""The REST API's resources, one module per group of endpoints, each a router built around a herder."""

from conveyor.rest.path_segments import register_segment_convertor

register_segment_convertor()
