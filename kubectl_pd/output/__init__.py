"""Output formats shared by the commands: kubectl's -o flags (jsonpath, custom-columns, name, wide), sorting."""
