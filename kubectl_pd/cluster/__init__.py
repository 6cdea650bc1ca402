"""Reading the cluster: one `Source` protocol, a live and a snapshot implementation."""
