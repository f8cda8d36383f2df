"""A sweep: points run one after another, observers that see every request, early stop, events."""
