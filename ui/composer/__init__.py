"""The composer: edit the working GC, review the delta and decisions, publish."""
