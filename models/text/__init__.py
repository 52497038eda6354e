"""Text files as the app reads and writes them: decoding, atomic writes, front matter,
Markdown blocks, surgical edits and token counts. Knows nothing of sessions.
"""
