"""Lead Console application: boot, CLI, settings and the file-watch bridge."""
