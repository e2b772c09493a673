//! `Model`: an immutable robot description, as Pinocchio's `Model`
//! (joint and frame names, `nq`, `nv`, index maps), loaded from URDF or
//! built in.

use crate::arrays::vector;
use crate::error;
use numpy::PyArray1;
use passivity_lab::algorithms::check_dynamics_size;
use passivity_lab::model::{self as lib, RootJoint, UrdfOptions};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Identifies a model's structure, so that a `Data` is only used with the
/// model it was made for.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A robot model (bodies, joints, inertias, frames).
#[pyclass(module = "passivity_lab")]
pub struct Model {
    pub inner: lib::Model,
    /// Shared by the models of one structure; armature and gravity keep it.
    pub id: u64,
}

impl Model {
    fn new(inner: lib::Model) -> PyResult<Self> {
        check_dynamics_size(&inner).map_err(error)?;
        Ok(Model {
            inner,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// A frame index from a name (link or joint) or an index.
    pub fn frame_index(&self, frame: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Ok(name) = frame.cast::<PyString>() {
            let name = name.to_cow()?;
            return self.inner.frame_by_name(&name).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "frame '{name}' is not a link or joint of the model"
                ))
            });
        }
        // (True is an int to Python: not taken for frame 1.)
        let i: usize = frame
            .extract()
            .ok()
            .filter(|_| !frame.is_instance_of::<PyBool>())
            .ok_or_else(|| {
                PyValueError::new_err("frame: expected a frame name (str) or index (int)")
            })?;
        if i >= self.inner.frames.len() {
            return Err(PyIndexError::new_err(format!(
                "frame {i}: the model has {} frames",
                self.inner.frames.len()
            )));
        }
        Ok(i)
    }
}

#[pymethods]
impl Model {
    /// Loads a URDF: `root` "fixed" or "free" (a 6-DoF `root_joint`,
    /// quaternion (x, y, z, w), body-frame speeds [angular; linear]);
    /// `mimic` honours `<mimic>` tags (the coordinates are the independent
    /// joints); `strict` refuses non-physical inertias.
    #[staticmethod]
    #[pyo3(signature = (path, root = "fixed", mimic = false, strict = false))]
    fn from_urdf(path: PathBuf, root: &str, mimic: bool, strict: bool) -> PyResult<Self> {
        crate::given(&path, "path")?;
        let root = match root {
            "fixed" => RootJoint::Fixed,
            "free" => RootJoint::Free,
            other => {
                return Err(PyValueError::new_err(format!(
                    "root: '{other}' is not a root; use \"fixed\" or \"free\""
                )))
            }
        };
        let options = UrdfOptions {
            root,
            strict,
            mimic,
        };
        Model::new(lib::Model::from_urdf_file(&path, options).map_err(error)?)
    }

    /// The 3-D point mass of Wensing, Englsberger & Slotine (2023) (three prismatic joints).
    #[staticmethod]
    #[pyo3(signature = (mass = 1.0))]
    fn point_mass(mass: f64) -> PyResult<Self> {
        if !(mass.is_finite() && mass > 0.0) {
            return Err(PyValueError::new_err(format!(
                "mass: must be positive and finite, got {mass}"
            )));
        }
        Model::new(lib::point_mass(mass))
    }

    /// A `Data` (workspace) for this model.
    fn create_data(slf: PyRef<'_, Self>) -> crate::data::Data {
        crate::data::Data::for_model(&slf)
    }

    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    /// Number of configuration coordinates.
    #[getter]
    fn nq(&self) -> usize {
        self.inner.nq
    }
    /// Number of speeds.
    #[getter]
    fn nv(&self) -> usize {
        self.inner.nv
    }
    /// Number of bodies (moving links, fixed links merged).
    #[getter]
    fn nbodies(&self) -> usize {
        self.inner.nbodies()
    }
    /// The joint moving each body, in body order.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.inner
            .bodies
            .iter()
            .map(|b| b.joint_name.clone())
            .collect()
    }
    /// The link of each body, in body order.
    #[getter]
    fn body_names(&self) -> Vec<String> {
        self.inner.bodies.iter().map(|b| b.name.clone()).collect()
    }
    /// Every frame (links and joints), in frame-index order.
    #[getter]
    fn frame_names(&self) -> Vec<String> {
        self.inner.frames.iter().map(|f| f.name.clone()).collect()
    }
    /// First configuration index of each joint (None for a mimicking joint).
    #[getter]
    fn idx_qs(&self) -> Vec<Option<usize>> {
        (0..self.inner.nbodies())
            .map(|b| self.inner.system_indices(b).map(|(_, q)| q))
            .collect()
    }
    /// First speed index of each joint (None for a mimicking joint).
    #[getter]
    fn idx_vs(&self) -> Vec<Option<usize>> {
        (0..self.inner.nbodies())
            .map(|b| self.inner.system_indices(b).map(|(v, _)| v))
            .collect()
    }
    /// Configuration coordinates of each joint.
    #[getter]
    fn nqs(&self) -> Vec<usize> {
        self.inner.bodies.iter().map(|b| b.joint.nq()).collect()
    }
    /// Speeds of each joint.
    #[getter]
    fn nvs(&self) -> Vec<usize> {
        self.inner.bodies.iter().map(|b| b.joint.nv()).collect()
    }
    /// Whether the root is a free joint.
    #[getter]
    fn has_free_root(&self) -> bool {
        self.inner.has_free_root()
    }
    /// What the URDF loader changed to load the robot.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings.iter().map(|w| w.to_string()).collect()
    }
    /// Gravity in world coordinates.
    #[getter]
    fn gravity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.gravity.as_slice())
    }
    #[setter]
    fn set_gravity(&mut self, g: &Bound<'_, PyAny>) -> PyResult<()> {
        let g = vector(g, "gravity", 3)?;
        self.inner.gravity = passivity_lab::spatial::Vec3::new(g[0], g[1], g[2]);
        Ok(())
    }
    /// Joint armature per speed (H = H_rigid + diag(armature)).
    #[getter]
    fn armature<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.armature())
    }
    #[setter]
    fn set_armature(&mut self, a: &Bound<'_, PyAny>) -> PyResult<()> {
        let a = vector(a, "armature", self.inner.nv)?;
        self.inner.set_armature(&a).map_err(error)
    }
    /// The neutral configuration (zeros, identity quaternion for a free root).
    fn neutral<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec(py, self.inner.neutral_configuration())
    }
    /// The inertial parameters, 10 per body in body order:
    /// [m, m c_x, m c_y, m c_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] about the body
    /// frame origin (the regressor's columns).
    fn inertial_parameters<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let p: Vec<f64> = self
            .inner
            .bodies
            .iter()
            .flat_map(|b| b.inertia.parameters())
            .collect();
        PyArray1::from_vec(py, p)
    }
    /// The index of a frame by name.
    fn frame_id(&self, name: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.frame_index(name)
    }
    fn __repr__(&self) -> String {
        format!(
            "Model('{}', nq={}, nv={}, nbodies={})",
            self.inner.name,
            self.inner.nq,
            self.inner.nv,
            self.inner.nbodies()
        )
    }
}
