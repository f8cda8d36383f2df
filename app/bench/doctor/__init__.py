"""The endpoint doctor: ordered checks of what a base URL, key and model really answer."""
