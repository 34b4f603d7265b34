"""``python -m spacy_dynoracle ...`` runs the command line (see cli.py)."""
from .cli import main

if __name__ == "__main__":
    main()
