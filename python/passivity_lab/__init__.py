"""passivity-lab from Python: the Rust dynamics core and scenarios.

Shaped like Pinocchio: ``model = Model.from_urdf(path)``, ``data =
model.create_data()``, then ``rnea(model, data, q, v, a)`` and friends.
Inputs are float64 numpy arrays of finite numbers (ValueError naming the
argument otherwise); outputs are new numpy arrays, and a result that
overflows to inf or NaN raises ValueError naming it, as the command line
refuses it. Vectors are in the model's speed
order (``model.idx_vs``); a free root has configuration
``[x, y, z, qx, qy, qz, qw]`` and body-frame speeds ``[angular; linear]``.
Errors of the library raise ``passivity_lab.Error`` with the command
line's message.

``passivity_lab.sweep`` runs a scenario over a grid of keys' values or
random samples, on this machine (``sweep.run``) or on a Ray cluster
(``sweep.on_ray``), giving the table of ``passivity-lab sweep``.
"""

from ._core import (  # noqa: F401
    Data,
    Error,
    Model,
    Scenario,
    SweepPlan,
    SweepTable,
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
from . import sweep  # noqa: F401
from .runs import Run, run  # noqa: F401

FACTORIZATIONS = ("christoffel", "classic", "alternate", "torsion")
