"""The schema and CEL layer: objects checked against their CRD's own OpenAPI schema and CEL rules."""
