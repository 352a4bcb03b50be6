"""Publish a generated dataset folder to the Hugging Face Hub, from a checkout: the same command as
`kernelstrain upload` (generator/hub/publish.py), kept for users who run the repo's scripts.

    python upload.py out/kernelinfer --repo-id ORG/kernelinfer [--dry-run] [--no-merged]
"""
import sys

from generator.hub.publish import main

if __name__ == "__main__":
    sys.exit(main(prog="python upload.py"))
