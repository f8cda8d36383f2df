"""The Results tab: browse, overlay and export result folders."""
