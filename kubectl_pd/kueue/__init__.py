"""Kueue API knowledge: version normalisation, quantities, message parsing."""
