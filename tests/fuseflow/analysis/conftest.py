import pytest

from fuseflow.program.frontend import parse_program


@pytest.fixture
def program_from():
    def build(text: str, name: str = "t.toml"):
        return parse_program(text, name)
    return build

