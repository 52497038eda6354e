"""Publishing a GC update: the composer's working state and the checked writes of a publish."""
