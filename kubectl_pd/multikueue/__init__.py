"""MultiKueue: why a manager's Workload waits, read from the manager and from each worker cluster.

model.py parses what is read into typed records; answer.py (pure) decides the manager's state and each
worker's verdict, the worker copies diagnosed by the same engine as single-cluster why-pending; codes.py is
the table of its reason codes; words.py says them in English; reads.py is the shell (the user's contexts,
the reads of every cluster sent together); render.py the text rows and the json block. docs/multikueue.md.
"""
