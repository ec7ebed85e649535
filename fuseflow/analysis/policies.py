"""The reduction policies a schedule can be lowered under (fuseflow.analysis.contexts says what
each one means). A module of its own, importing nothing, so that the command line can offer
them without loading the compiler."""

POLICIES = ("accumulate", "stream")
DEFAULT_POLICY = "accumulate"
