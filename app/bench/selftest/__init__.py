"""The client's own ceiling on this machine: the streams it stamps faithfully, measured
against a local server that logs its send times."""
