import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
ROBOTS = REPO / "assets/robots/example-robot-data/robots"
PANDA = ROBOTS / "panda_description/urdf/panda.urdf"


@pytest.fixture(scope="session")
def repo():
    return REPO
