"""Every Lead action, once: prepared into a ``Preview`` that says every file it writes (with
the exact bytes) and every decision with its reasons, then committed exactly as previewed, all
or nothing (``models.actions.preview.commit``). The window and the CLI only gather a request,
show the preview and commit it."""
