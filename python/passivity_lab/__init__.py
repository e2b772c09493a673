"""passivity-lab from Python: the Rust dynamics core and scenarios.

Shaped like Pinocchio: ``model = Model.from_urdf(path)``, ``data =
model.create_data()``, then ``rnea(model, data, q, v, a)`` and friends.
Inputs are float64 numpy arrays (ValueError naming the argument
otherwise); outputs are new numpy arrays. Vectors are in the model's speed
order (``model.idx_vs``); a free root has configuration
``[x, y, z, qx, qy, qz, qw]`` and body-frame speeds ``[angular; linear]``.
Errors of the library raise ``passivity_lab.Error`` with the command
line's message.
"""

from ._core import (  # noqa: F401
    Data,
    Error,
    Model,
    Scenario,
    aba,
    christoffel_symbols,
    coriolis_all,
    coriolis_matrix,
    crba,
    diagnostics,
    forward_kinematics,
    frame_jacobian,
    frame_jacobian_time_derivative,
    frame_placement,
    gravity,
    kinetic_energy,
    lambda_inv,
    potential_energy,
    regressor,
    rnea,
    slotine_li_torque,
)
from .runs import Run, run  # noqa: F401

FACTORIZATIONS = ("christoffel", "classic", "alternate", "torsion")
