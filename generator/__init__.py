"""kernelstrain generator: a deterministic, analytic simulator of GPU-kernel optimization trajectories."""

__version__ = "0.7.0"      # pyproject reads it; stats.json and the card state it (docs/CHANGELOG.md says what changed)
SCHEMA_VERSION = "4"       # the row formats of schema/: bumped whenever a field or a kind value is added, removed or retyped
