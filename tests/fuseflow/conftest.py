import pytest

from fuseflow.program.frontend import parse_program


@pytest.fixture
def program_from():
    def build(text: str, name: str = "t.toml"):
        return parse_program(text, name)
    return build


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch):
    """Runs navigator.cli.main in this process, in tmp_path (as tests/cli's fixture of that name)."""
    from tests.cli.conftest import InProcess

    return InProcess(tmp_path, capsys, monkeypatch)
