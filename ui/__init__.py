"""Qt widgets and the thin item models that adapt models/ to views."""
