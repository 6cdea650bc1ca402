"""`kubectl pd queues`: its words (the command itself is commands/queues.py)."""
