"""Command-line tools: thin layers of argument parsing and printing over the package."""
