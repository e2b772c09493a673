//! `Data`: the preallocated workspace of one model (Pinocchio's `Data`),
//! reused by every call, with the factorization and end-frame buffers of
//! the last call kept for the next.

use crate::arrays::scalar;
use crate::error;
use crate::model::Model;
use passivity_lab::algorithms::{OperationalSpaceWorkspace, Workspace};
use passivity_lab::factorization::{Beta, Factorization};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Buffers for the algorithms on one model: `Data(model)` or `model.create_data()`.
#[pyclass(module = "passivity_lab")]
pub struct Data {
    pub model_id: u64,
    pub ws: Workspace,
    /// The factorization of the last call, by (name, beta).
    factorization: Factorization,
    key: (String, Option<u64>),
    /// The EFPA's buffers for the last list of end frames.
    pub end_frames: Vec<usize>,
    pub operational: Option<OperationalSpaceWorkspace>,
}

impl Data {
    pub fn for_model(model: &Model) -> Self {
        Data {
            model_id: model.id,
            ws: Workspace::new(&model.inner),
            factorization: Factorization::ChristoffelConsistent,
            key: ("christoffel".into(), None),
            end_frames: Vec::new(),
            operational: None,
        }
    }

    /// Refuses a `Data` made for another model.
    pub fn check(&self, model: &Model) -> PyResult<()> {
        if self.model_id != model.id {
            return Err(PyValueError::new_err(
                "data: this Data was made for another model; use model.create_data()",
            ));
        }
        Ok(())
    }

    /// The factorization named `name` (`christoffel`, `classic`,
    /// `alternate`, or `torsion` with `beta` on every triple i < j < k),
    /// checked against the model; built once and kept while the same one
    /// is asked for.
    pub fn factorization(
        &mut self,
        model: &Model,
        name: &str,
        beta: Option<f64>,
    ) -> PyResult<(&mut Workspace, &Factorization)> {
        if let Some(b) = beta {
            scalar(b, "beta")?;
        }
        let key = beta.map(f64::to_bits);
        if self.key.0 != name || self.key.1 != key {
            let f = match (name, beta) {
                ("torsion", Some(b)) => {
                    Factorization::torsion_on_all_triples(model.inner.nv, Beta::constant(b))
                        .map_err(error)?
                }
                ("torsion", None) => {
                    return Err(PyValueError::new_err(
                        "beta: the torsion factorization needs a finite beta",
                    ))
                }
                (other, None) => Factorization::from_name(other).map_err(error)?,
                (other, Some(_)) => {
                    return Err(PyValueError::new_err(format!(
                        "beta: only the torsion factorization takes a beta, not '{other}'"
                    )))
                }
            };
            f.validate(&model.inner).map_err(error)?;
            self.factorization = f;
            self.key = (name.to_string(), key);
        }
        Ok((&mut self.ws, &self.factorization))
    }
}

#[pymethods]
impl Data {
    #[new]
    fn new(model: PyRef<'_, Model>) -> Self {
        Data::for_model(&model)
    }
}
