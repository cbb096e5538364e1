"""The request and response bodies of the service, one module per area, on pydantic alone (no
web framework, no database): the routes declare them, the rules read the parsed requests, and
a client can validate the same shapes."""
