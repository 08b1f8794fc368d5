"""``python -m summem`` runs the CLI."""

from summem.cli import main

if __name__ == "__main__":
    main()
