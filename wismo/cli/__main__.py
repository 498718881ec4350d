"""`python -m wismo.cli` runs the same CLI as the `wismo` console script."""

from wismo.cli import main

main()
