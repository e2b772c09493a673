//! The balance quantities (CoM, centroidal momentum, stance Jacobians)
//! against Pinocchio 4.1 on Solo-12 and Talos with free-flyer roots
//! (tests/fixtures/reference/contacts, written by
//! tests/fixtures/reference/generate_contacts.py; read here without
//! Pinocchio). Joints are mapped by name; the files' free-root speeds are
//! `[linear; angular]` and their spatial rows `[linear; angular]`, ours
//! `[angular; linear]`: converted at this boundary.

use nalgebra::{DMatrix, DVector};
use passivity_dynamics::algorithms::{
    center_of_mass, center_of_mass_jacobian, center_of_mass_velocity, centroidal_momentum,
    centroidal_momentum_matrix, centroidal_momentum_matrix_time_derivative, contact_bias,
    contact_jacobian, contact_jacobian_time_derivative, forward_kinematics, total_mass,
    CentroidalWorkspace, ContactPoint, ContactWorkspace, Workspace,
};
use passivity_dynamics::model::{Joint, Model, RootJoint};
use passivity_dynamics::spatial::{Force, Vec3};

mod json;
use json::Json;

/// Largest error accepted, relative to the larger of 1 and the reference's
/// largest entry.
const TOLERANCE: f64 = 1e-9;

fn repo_path(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// The file's speed and configuration order in the model's.
struct JointMap {
    /// `v_model[v_index[r]]` is the file's speed r.
    v_index: Vec<usize>,
    /// `q_model[q_index[r]]` is the file's configuration entry r.
    q_index: Vec<usize>,
}

impl JointMap {
    fn new(model: &Model, names: &[String]) -> Self {
        let (mut v_index, mut q_index) = (Vec::new(), Vec::new());
        for name in names {
            let b = model
                .body_by_joint_name(name)
                .unwrap_or_else(|| panic!("{name} is not a joint of the model"));
            let body = &model.bodies[b];
            match body.joint {
                Joint::Free => v_index.extend((0..6).map(|r| body.v_index + (r + 3) % 6)),
                _ => v_index.push(body.v_index),
            }
            q_index.extend(body.q_index..body.q_index + body.joint.nq());
        }
        assert_eq!(v_index.len(), model.nv, "every speed mapped");
        assert_eq!(q_index.len(), model.nq, "every coordinate mapped");
        JointMap { v_index, q_index }
    }

    fn to_model(index: &[usize], file: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; file.len()];
        for (r, &i) in index.iter().enumerate() {
            out[i] = file[r];
        }
        out
    }

    /// A model matrix with `nv` columns in the file's column order, rows
    /// taken through `row`.
    fn columns_to_file(&self, m: &DMatrix<f64>, row: impl Fn(usize) -> usize) -> DMatrix<f64> {
        DMatrix::from_fn(m.nrows(), m.ncols(), |r, c| m[(row(r), self.v_index[c])])
    }
}

/// Spatial rows `[angular; linear]` (ours) read as `[linear; angular]`.
fn swap_halves(r: usize) -> usize {
    (r + 3) % 6
}

fn force_to_file(f: &Force) -> Vec<f64> {
    f.lin.iter().chain(f.ang.iter()).copied().collect()
}

/// The largest error per quantity over the samples.
#[derive(Default)]
struct Errors(Vec<(&'static str, f64)>);

impl Errors {
    fn check(&mut self, what: &'static str, ours: &[f64], reference: &[f64]) {
        assert_eq!(ours.len(), reference.len(), "{what}: sizes differ");
        let scale = reference.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        let error = ours
            .iter()
            .zip(reference)
            .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()))
            / scale;
        assert!(
            error <= TOLERANCE,
            "{what}: relative error {error:e} above {TOLERANCE:e}"
        );
        match self.0.iter_mut().find(|(name, _)| *name == what) {
            Some((_, e)) => *e = e.max(error),
            None => self.0.push((what, error)),
        }
    }

    fn matrix(&mut self, what: &'static str, ours: &DMatrix<f64>, reference: &Json) {
        let rows = reference.matrix();
        assert_eq!(ours.nrows(), rows.len(), "{what}: rows");
        let flat: Vec<f64> = rows.concat();
        let ours: Vec<f64> = (0..ours.nrows())
            .flat_map(|r| ours.row(r).iter().copied().collect::<Vec<_>>())
            .collect();
        self.check(what, &ours, &flat);
    }
}

fn vec3s(v: &[Vec3]) -> Vec<f64> {
    v.iter().flat_map(|p| p.iter().copied()).collect()
}

fn check_robot(file: &str) -> Errors {
    let text = std::fs::read_to_string(repo_path(&format!(
        "tests/fixtures/reference/contacts/{file}"
    )))
    .unwrap();
    let reference = Json::parse(&text);
    let model = Model::from_urdf_file(repo_path(reference["urdf"].str()), RootJoint::Free)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(
        model.warnings.is_empty(),
        "{file}: the loader changed the robot: {:?}",
        model.warnings
    );
    assert_eq!(model.nv, reference["nv"].number() as usize);
    assert!((total_mass(&model) - reference["mass"].number()).abs() < 1e-12);
    let names: Vec<String> = reference["joint_names"]
        .array()
        .iter()
        .map(|n| n.str().to_string())
        .collect();
    let map = JointMap::new(&model, &names);
    let points: Vec<ContactPoint> = reference["contacts"]
        .array()
        .iter()
        .map(|c| {
            let o = c["offset"].numbers();
            ContactPoint {
                frame: model.frame_by_name(c["frame"].str()).unwrap(),
                offset: Vec3::new(o[0], o[1], o[2]),
            }
        })
        .collect();
    let mut ws = Workspace::new(&model);
    let mut cw = CentroidalWorkspace::new(&model);
    let mut contacts = ContactWorkspace::new(&model, &points);
    let mut com_jacobian = DMatrix::zeros(3, model.nv);
    let mut errors = Errors::default();
    let samples = reference["samples"].array();
    assert!(samples.len() >= 3);
    for s in samples {
        let q = JointMap::to_model(&map.q_index, &s["q"].numbers());
        let v = JointMap::to_model(&map.v_index, &s["v"].numbers());
        let com = center_of_mass(&model, &mut ws, &q);
        errors.check("com", com.as_slice(), &s["com"].numbers());
        let (com2, com_velocity) = center_of_mass_velocity(&model, &mut ws, &q, &v);
        errors.check("com", com2.as_slice(), &s["com"].numbers());
        errors.check(
            "com_velocity",
            com_velocity.as_slice(),
            &s["com_velocity"].numbers(),
        );
        let com3 = center_of_mass_jacobian(&model, &mut ws, &q, &mut com_jacobian);
        errors.check("com", com3.as_slice(), &s["com"].numbers());
        errors.matrix(
            "com_jacobian",
            &map.columns_to_file(&com_jacobian, |r| r),
            &s["com_jacobian"],
        );
        let product = &com_jacobian * DVector::from_column_slice(&v);
        errors.check(
            "com_velocity",
            product.as_slice(),
            &s["com_velocity"].numbers(),
        );

        centroidal_momentum_matrix(&model, &mut ws, &mut cw, &q);
        errors.check("com", cw.com.as_slice(), &s["com"].numbers());
        errors.matrix(
            "centroidal_map",
            &map.columns_to_file(&cw.map, swap_halves),
            &s["centroidal_map"],
        );
        let h = centroidal_momentum(&model, &mut ws, &mut cw, &q, &v);
        errors.check(
            "centroidal_momentum",
            &force_to_file(&h),
            &s["centroidal_momentum"].numbers(),
        );
        errors.check(
            "centroidal_bias",
            &force_to_file(&cw.bias),
            &s["centroidal_bias"].numbers(),
        );
        cw.map.fill(f64::NAN);
        centroidal_momentum_matrix_time_derivative(&model, &mut ws, &mut cw, &q, &v);
        errors.matrix(
            "centroidal_map",
            &map.columns_to_file(&cw.map, swap_halves),
            &s["centroidal_map"],
        );
        errors.matrix(
            "centroidal_map_dot",
            &map.columns_to_file(&cw.map_dot, swap_halves),
            &s["centroidal_map_dot"],
        );
        errors.check(
            "centroidal_momentum",
            &force_to_file(&cw.momentum),
            &s["centroidal_momentum"].numbers(),
        );
        errors.check(
            "centroidal_bias",
            &force_to_file(&cw.bias),
            &s["centroidal_bias"].numbers(),
        );

        forward_kinematics(&model, &mut ws, &q);
        contact_jacobian(&model, &mut ws, &mut contacts);
        errors.matrix(
            "contact_jacobian",
            &map.columns_to_file(&contacts.jacobian, |r| r),
            &s["contact_jacobian"],
        );
        errors.check(
            "contact_position",
            &vec3s(&contacts.positions),
            &s["contact_position"].numbers(),
        );
        contact_bias(&model, &mut ws, &mut contacts, &q, &v);
        errors.check(
            "contact_bias",
            contacts.bias.as_slice(),
            &s["contact_bias"].numbers(),
        );
        contacts.jacobian.fill(f64::NAN);
        contacts.bias.fill(f64::NAN);
        contact_jacobian_time_derivative(&model, &mut ws, &mut contacts, &q, &v);
        errors.matrix(
            "contact_jacobian",
            &map.columns_to_file(&contacts.jacobian, |r| r),
            &s["contact_jacobian"],
        );
        errors.matrix(
            "contact_jacobian_dot",
            &map.columns_to_file(&contacts.jacobian_dot, |r| r),
            &s["contact_jacobian_dot"],
        );
        errors.check(
            "contact_bias",
            contacts.bias.as_slice(),
            &s["contact_bias"].numbers(),
        );
    }
    for (what, error) in &errors.0 {
        println!("{file}: {what} max relative error {error:.1e}");
    }
    errors
}

/// Every quantity of the files is compared.
fn assert_all_compared(errors: &Errors) {
    let names: Vec<&str> = errors.0.iter().map(|(n, _)| *n).collect();
    for expected in [
        "com",
        "com_velocity",
        "com_jacobian",
        "centroidal_map",
        "centroidal_momentum",
        "centroidal_map_dot",
        "centroidal_bias",
        "contact_jacobian",
        "contact_position",
        "contact_bias",
        "contact_jacobian_dot",
    ] {
        assert!(names.contains(&expected), "{expected} not compared");
    }
}

#[test]
fn solo12_balance_quantities_match_pinocchio() {
    assert_all_compared(&check_robot("solo12.json"));
}

#[test]
fn talos_balance_quantities_match_pinocchio() {
    assert_all_compared(&check_robot("talos.json"));
}
