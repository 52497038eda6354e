"""Teammates' replies (seed 004, ADR-002): parsing ACKs, statuses and worker DELTA
reports, the ledger, validation against what was sent, and the Lead's actions.
"""
