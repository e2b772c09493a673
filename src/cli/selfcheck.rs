//! `passivity-lab selfcheck`: evaluates the embedded
//! Panda and Solo-12 (free root) and compares every quantity with the
//! embedded Pinocchio 4.1 reference data.

use super::terminal::outln;
use anyhow::{bail, Context};
use passivity_lab::eval::{compare, evaluate};
use passivity_lab::factorization::Factorization;
use passivity_lab::model::{Model, RootJoint};

struct Case {
    name: &'static str,
    urdf: &'static str,
    root: RootJoint,
    reference: &'static str,
}

const CASES: [Case; 2] = [
    Case {
        name: "Panda (fixed root, nv 9)",
        urdf: include_str!(
            "../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
        ),
        root: RootJoint::Fixed,
        reference: include_str!("../../tests/fixtures/reference/panda.json"),
    },
    Case {
        name: "Solo-12 (free root, nv 18)",
        urdf: include_str!(
            "../../assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"
        ),
        root: RootJoint::Free,
        reference: include_str!("../../tests/fixtures/reference/solo12.json"),
    },
];

pub fn run() -> anyhow::Result<()> {
    outln!("passivity-lab selfcheck: the dynamics core against Pinocchio 4.1 reference data")?;
    let mut failures = 0;
    for case in &CASES {
        let mut model = Model::from_urdf_str(case.urdf, case.name, case.root)?;
        let reference: serde_json::Value =
            serde_json::from_str(case.reference).context("embedded reference data")?;
        let ours = evaluate(
            &mut model,
            &reference,
            &Factorization::ChristoffelConsistent,
        )?;
        outln!(
            "\n{}: {} samples",
            case.name,
            reference["samples"].as_array().map_or(0, Vec::len)
        )?;
        outln!(
            "  {:<32} {:>14} {:>10}  result",
            "quantity",
            "max rel. err",
            "tolerance"
        )?;
        for c in compare(&ours, &reference) {
            let ok = c.relative_error <= c.tolerance;
            failures += usize::from(!ok);
            outln!(
                "  {:<32} {:>14.3e} {:>10.0e}  {}",
                c.quantity,
                c.relative_error,
                c.tolerance,
                if ok { "ok" } else { "FAIL" }
            )?;
        }
    }
    if failures > 0 {
        bail!("{failures} quantities differ from the reference");
    }
    outln!("\nall quantities match")?;
    Ok(())
}
