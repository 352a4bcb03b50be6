"""kernelstrain generator: a deterministic, analytic simulator of GPU-kernel optimization trajectories."""

__version__ = "0.6.7"      # pyproject reads it; stats.json and the card state it (docs/CHANGELOG.md says what changed)
SCHEMA_VERSION = "3"       # the row formats of schema/: bumped whenever a field is added, removed or retyped
