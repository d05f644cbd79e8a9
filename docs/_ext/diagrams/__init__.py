"""Chapter diagram renderers (chNN.py, loaded by file path from llmfs_book.py) and the helpers
they share (common.py). A regular package, so `from diagrams.common import ...` always finds
this folder (docs/_ext is on sys.path) and never an installed package of the same name."""
