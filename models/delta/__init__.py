"""GC deltas (ADR-002): diff two GCs, apply a delta, the [CONTEXT-UPDATE] message format,
each teammate's delta-or-full decision (FC-1..FC-5) and the savings tables.
"""
