"""Reading a session folder: the GC, the orchestration plan, TEAM-MEMORY, gate records,
and the folder that holds them. Reading only; what changes files lives above.
"""
