"""`kubectl pd create`: flags to a checked ModelDeployment (or the seed's pod group), pure where it can be.

flags.py parses and validates, scaffold.py and pods.py render, preflight.py reads the cluster,
wait.py follows admission. Only commands/create.py knows about click and the terminal.
"""
