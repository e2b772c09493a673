"""The shipped example examples/torsion_study.py runs and says what it
claims: beta = 0 is C* itself (no gap), and every other beta moves the
point mass's path far more than it moves its Lyapunov curve."""

import subprocess
import sys

from conftest import REPO


def test_torsion_study_shows_paths_apart_and_lyapunov_close():
    done = subprocess.run(
        [sys.executable, str(REPO / "examples/torsion_study.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    point_mass = done.stdout.split("lesson_03")[0]
    rows = [line.split() for line in point_mass.splitlines() if "torsion (beta)" in line]
    assert len(rows) == 18  # 6 betas x 3 gains
    for row in rows:
        beta, path_gap, lyapunov_gap = float(row[0]), float(row[-2]), float(row[-1])
        if beta == 0.0:
            assert path_gap == 0.0 and lyapunov_gap == 0.0
        else:
            assert path_gap > 0.05 and path_gap > 30 * lyapunov_gap
    assert "lesson_03_panda_joint_space: 27 runs" in done.stdout
