"""The window's panes, one module each; ``ui.main_window`` puts them into docks."""
