"""One request on the wire: endpoint resolution, the HTTP client, SSE, the timed stream, its record
and the failure taxonomy."""
