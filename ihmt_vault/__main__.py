"""`python -m ihmt_vault …` is the `ihmt` command."""

from .frontends.cli import main

if __name__ == "__main__":
    main()
