"""Claude Code agent teams: team files, inboxes under their lock, transcripts, delivery."""
