"""The service's rules, one module per area, with no web framework: each function takes the
request's database session (``db``) and the parsed request, decides, stores, and returns the
interface's resource as a dict, or raises the one error type, :class:`.errors.Refusal`."""
