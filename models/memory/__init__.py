"""Changing TEAM-MEMORY.md safely (ADR-001): section-anchored edits, access rules,
curation and the detection of entries an outside write took away.
"""
