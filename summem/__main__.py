"""``python -m summem`` runs the CLI."""

from summem.cli.app import main

if __name__ == "__main__":
    main()
