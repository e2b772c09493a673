//! URDF loading (urdf-rs) into a [`Model`]: fixed joints merged into their
//! parent body, every number validated, body inertias checked once merged
//! (`inertia_check`). `<mimic>` tags are honoured on request
//! ([`UrdfOptions::mimic`], resolved in `mimic.rs`).

use super::inertia_check::check_body_inertias;
use super::urdf_lint::lint_urdf;
use super::{
    Body, Frame, FrameKind, Joint, JointLimits, MimicError, Model, ModelError, ModelWarning,
};
use crate::input::{check_xml_depth, count_top_level, read_text, unclosed_element, InputKind};
use crate::spatial::{rpy_to_matrix, Mat3, RigidInertia, Transform, Vec3};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How the URDF root link is attached to the world.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RootJoint {
    /// The root link is welded to the world.
    #[default]
    Fixed,
    /// The root link floats: a 6-DoF free joint named `root_joint`.
    Free,
}

/// How a URDF is loaded (a [`RootJoint`] alone means not strict, mimic
/// tags ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UrdfOptions {
    /// How the root link is attached to the world.
    pub root: RootJoint,
    /// Refuse a body whose inertia is not physical beyond rounding, instead
    /// of replacing a negligible error by the nearest physical inertia with
    /// a warning (see [`super::NEGLIGIBLE_INERTIA_CHANGE`]).
    pub strict: bool,
    /// Honour `<mimic>` tags: the robot's coordinates are its independent
    /// joints. Off, a mimicking joint is independent.
    pub mimic: bool,
}

impl From<RootJoint> for UrdfOptions {
    fn from(root: RootJoint) -> Self {
        UrdfOptions {
            root,
            ..UrdfOptions::default()
        }
    }
}

impl Model {
    /// Loads a URDF file; what the loader changed is in [`Model::warnings`].
    ///
    /// # Errors
    /// [`ModelError::Input`] when the file cannot be read (missing, not a
    /// regular file, over 64 MiB, not UTF-8, XML nested too deep);
    /// [`ModelError::TooMany`] or [`ModelError::Malformed`] when it cannot be
    /// parsed; the other [`ModelError`] variants when the description is not a
    /// supported tree (see [`Model::from_urdf_str`]).
    ///
    /// # Examples
    ///
    /// Load the Franka Emika Panda shipped with the repository: seven arm joints
    /// and two finger joints (the second finger mimics the first when
    /// [`UrdfOptions::mimic`] is on).
    ///
    /// ```
    /// use passivity_dynamics::model::{Model, ModelError, RootJoint, UrdfOptions};
    ///
    /// let path = concat!(
    ///     env!("CARGO_MANIFEST_DIR"),
    ///     "/../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
    /// );
    /// let panda = Model::from_urdf_file(path, RootJoint::Fixed)?;
    /// assert_eq!((panda.nq, panda.nv), (9, 9));
    /// assert!(panda.frame_by_name("panda_hand_tcp").is_some());
    ///
    /// // Mimic tags honoured: the fingers share one coordinate.
    /// let coupled = Model::from_urdf_file(path, UrdfOptions { mimic: true, ..RootJoint::Fixed.into() })?;
    /// assert_eq!(coupled.nv, 8);
    /// assert!(coupled.coupling().is_some());
    ///
    /// // A floating base: position and unit quaternion, body twist.
    /// let floating = Model::from_urdf_file(path, RootJoint::Free)?;
    /// assert_eq!((floating.nq, floating.nv), (16, 15));
    ///
    /// // A missing file is an input error naming the file.
    /// let missing = Model::from_urdf_file("no/such/robot.urdf", RootJoint::Fixed);
    /// assert!(matches!(missing, Err(ModelError::Input(_))));
    /// # Ok::<(), ModelError>(())
    /// ```
    pub fn from_urdf_file(
        path: impl AsRef<Path>,
        options: impl Into<UrdfOptions>,
    ) -> Result<Model, ModelError> {
        let path = path.as_ref();
        let text = read_text(path, InputKind::Urdf)?;
        Self::from_urdf_str(&text, path, options)
    }

    /// Loads URDF text; `file` is only used to name the source in errors
    /// and warnings.
    ///
    /// # Errors
    /// [`ModelError::Input`] (nesting too deep), [`ModelError::TooMany`] or
    /// [`ModelError::Malformed`] when the text cannot be parsed (see
    /// [`parse_urdf`]); [`ModelError::UnsupportedJoint`],
    /// [`ModelError::MissingLink`], [`ModelError::TwoParents`],
    /// [`ModelError::Loop`], [`ModelError::NotOneRoot`],
    /// [`ModelError::DuplicateName`], [`ModelError::NonFinite`],
    /// [`ModelError::OutOfRange`],
    /// [`ModelError::NegativeMass`], [`ModelError::ZeroAxis`],
    /// [`ModelError::InvertedLimits`] or
    /// [`ModelError::NoMovingBody`] when the description is not a supported
    /// tree of finite, non-degenerate data; [`ModelError::InvalidInertia`] when a
    /// body's inertia is not physical (beyond rounding, or at all when
    /// `strict`); [`ModelError::Mimic`] when `mimic` is on and a `<mimic>` tag is
    /// bad.
    ///
    /// # Examples
    ///
    /// ```
    /// use passivity_dynamics::model::{Model, ModelError, RootJoint};
    ///
    /// let urdf = r#"<robot name="pendulum">
    ///   <link name="base"/>
    ///   <link name="bob">
    ///     <inertial>
    ///       <origin xyz="0 0 -1"/>
    ///       <mass value="2"/>
    ///       <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    ///     </inertial>
    ///   </link>
    ///   <joint name="hinge" type="continuous">
    ///     <parent link="base"/>
    ///     <child link="bob"/>
    ///     <axis xyz="0 1 0"/>
    ///   </joint>
    /// </robot>"#;
    /// let pendulum = Model::from_urdf_str(urdf, "pendulum.urdf", RootJoint::Fixed)?;
    /// assert_eq!(pendulum.nv, 1);
    /// assert_eq!(pendulum.bodies[0].joint_name, "hinge");
    ///
    /// // A planar joint is not supported.
    /// let planar = urdf.replace("continuous", "planar");
    /// let refused = Model::from_urdf_str(&planar, "planar.urdf", RootJoint::Fixed);
    /// assert!(matches!(refused, Err(ModelError::UnsupportedJoint { .. })));
    /// # Ok::<(), ModelError>(())
    /// ```
    pub fn from_urdf_str(
        text: &str,
        file: impl AsRef<Path>,
        options: impl Into<UrdfOptions>,
    ) -> Result<Model, ModelError> {
        let file = file.as_ref();
        let (robot, misspelt) = parse_urdf_with_warnings(text, file)?;
        let mut model = build_parsed(&robot, file, options.into())?;
        model.warnings.extend(misspelt);
        Ok(model)
    }
}

/// The model of a parsed URDF; `file` names it in errors and warnings.
pub(super) fn build_parsed(
    robot: &urdf_rs::Robot,
    file: &Path,
    options: UrdfOptions,
) -> Result<Model, ModelError> {
    let model = Builder {
        file: file.to_path_buf(),
        robot,
    }
    .build(options)?;
    if options.mimic {
        return super::mimic::couple(model, robot, file);
    }
    // A tag on a fixed joint does nothing when mimic joints are off (models
    // reduced by fixing joints keep them: Talos's grippers); any other
    // refusal is a broken file all the same.
    let mut model = model;
    match super::mimic::resolve(&model, robot, file) {
        Err(ModelError::Mimic(MimicError::FixedMimic { .. })) | Ok(_) => {}
        Err(e) => model.warnings.push(ModelWarning::MimicIgnored {
            problem: e.to_string(),
        }),
    }
    Ok(model)
}

/// Most links, and most joints, a URDF may have: urdf-rs parses about
/// 10,000 links a second (and needs ~15 kB each), so larger files are
/// refused before parsing rather than loaded slowly.
pub const MAX_URDF_LINKS: usize = 10_000;

/// Parses URDF text with urdf-rs after checking its nesting depth (the
/// parser recurses per level) and its number of links and joints;
/// `file` names the source in errors.
///
/// # Errors
/// [`ModelError`] naming `file` when the XML nests too deeply, has too many
/// links or joints, or is not a URDF urdf-rs can read.
pub fn parse_urdf(text: &str, file: &Path) -> Result<urdf_rs::Robot, ModelError> {
    parse_urdf_with_warnings(text, file).map(|(robot, _)| robot)
}

/// [`parse_urdf`], and the misspelt element and attribute names of the
/// text, which urdf-rs ignores (see [`lint_urdf`]), as warnings.
pub(super) fn parse_urdf_with_warnings(
    text: &str,
    file: &Path,
) -> Result<(urdf_rs::Robot, Vec<ModelWarning>), ModelError> {
    check_xml_depth(text.as_bytes(), file)?;
    let misspelt = lint_urdf(text.as_bytes()).map_err(|finding| ModelError::UrdfText {
        file: file.to_path_buf(),
        line: finding.line,
        message: finding.message,
    })?;
    let warnings = misspelt
        .into_iter()
        .map(|finding| ModelWarning::MisspeltName {
            file: file.to_path_buf(),
            line: finding.line,
            message: finding.message,
        })
        .collect();
    for element in ["link", "joint"] {
        let count = count_top_level(text.as_bytes(), element);
        if count > MAX_URDF_LINKS {
            return Err(ModelError::TooMany {
                file: file.to_path_buf(),
                element,
                count,
                limit: MAX_URDF_LINKS,
            });
        }
    }
    // urdf-rs requires a filename on <texture>; the empty <texture /> that
    // some exporters write (iCub's, Romeo's) carries nothing.
    let text = if text.contains("<texture />") || text.contains("<texture/>") {
        std::borrow::Cow::Owned(text.replace("<texture />", "").replace("<texture/>", ""))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let robot = urdf_rs::read_from_string(&text).map_err(|e| {
        let mut message = e.to_string();
        // The XML parser's words for a text that ends inside an element.
        if message == "No elements found" {
            if let Some((name, line, open)) = unclosed_element(text.as_bytes()) {
                message = format!(
                    "the text ends inside <{name}> (line {line}) with {open} element{} open: cut short, or a closing tag is missing",
                    if open == 1 { "" } else { "s" }
                );
            }
        }
        ModelError::Malformed {
            file: file.to_path_buf(),
            message,
        }
    })?;
    Ok((robot, warnings))
}

struct Builder<'a> {
    file: PathBuf,
    robot: &'a urdf_rs::Robot,
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// The largest origin offset of a joint or a link's centre of mass, m: 10
/// km, as the robot's collision shapes (a joint at 1e300 m loaded and made
/// H singular, blamed on a massless body).
const MAX_URDF_OFFSET: f64 = 1e4;

/// The largest mass (kg) or inertia entry (kg m^2) of a URDF, as the
/// payloads and built-in systems allow (an axis is only a direction: any
/// finite one is normalized).
const MAX_URDF_MAGNITUDE: f64 = 1e8;

/// Whether every entry of `v` is at most `limit` in magnitude.
fn within(v: &[f64], limit: f64) -> bool {
    v.iter().all(|x| x.abs() <= limit)
}

fn pose_transform(p: &urdf_rs::Pose) -> Transform {
    Transform::new(rpy_to_matrix(p.rpy.0), Vec3::from(p.xyz.0))
}

impl Builder<'_> {
    fn build(&self, options: UrdfOptions) -> Result<Model, ModelError> {
        let root = options.root;
        let file = &self.file;
        let links = &self.robot.links;
        let joints = &self.robot.joints;

        let mut link_index = HashMap::new();
        for (i, l) in links.iter().enumerate() {
            if link_index.insert(l.name.as_str(), i).is_some() {
                return Err(ModelError::DuplicateName {
                    file: file.clone(),
                    element: "link",
                    name: l.name.clone(),
                });
            }
        }
        let mut joint_names = HashMap::new();
        for j in joints {
            if joint_names.insert(j.name.as_str(), ()).is_some() {
                return Err(ModelError::DuplicateName {
                    file: file.clone(),
                    element: "joint",
                    name: j.name.clone(),
                });
            }
        }

        // Tree structure: parent joint of every link, child joints of every link.
        let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
        let mut child_joints: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
        for (ji, j) in joints.iter().enumerate() {
            let find = |name: &str, role| {
                link_index
                    .get(name)
                    .copied()
                    .ok_or_else(|| ModelError::MissingLink {
                        file: file.clone(),
                        joint: j.name.clone(),
                        role,
                        link: name.to_string(),
                    })
            };
            let p = find(&j.parent.link, "parent")?;
            let c = find(&j.child.link, "child")?;
            if let Some(first) = parent_joint[c] {
                return Err(ModelError::TwoParents {
                    file: file.clone(),
                    link: links[c].name.clone(),
                    first: joints[first].name.clone(),
                    second: j.name.clone(),
                });
            }
            parent_joint[c] = Some(ji);
            child_joints[p].push(ji);
            self.validate_joint(j)?;
        }
        for l in links {
            self.validate_link(l)?;
        }
        let roots: Vec<usize> = (0..links.len())
            .filter(|&i| parent_joint[i].is_none())
            .collect();
        let root_link = match roots.as_slice() {
            [r] => *r,
            [] if links.is_empty() => {
                return Err(ModelError::NotOneRoot {
                    file: file.clone(),
                    count: 0,
                    names: "there are no links".into(),
                })
            }
            [] => {
                return Err(ModelError::Loop {
                    file: file.clone(),
                    link: loop_link(&parent_joint, joints, &link_index, 0),
                });
            }
            many => {
                return Err(ModelError::NotOneRoot {
                    file: file.clone(),
                    count: many.len(),
                    names: many
                        .iter()
                        .map(|&i| format!("'{}'", links[i].name))
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            }
        };

        // Depth-first traversal: every link gets a body (None = world) and a
        // placement in that body's frame.
        let mut bodies: Vec<Body> = Vec::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut attached: Vec<Option<(Option<usize>, Transform)>> = vec![None; links.len()];
        let root_body = if root == RootJoint::Free {
            bodies.push(Body {
                name: links[root_link].name.clone(),
                joint_name: "root_joint".into(),
                parent: None,
                joint: Joint::Free,
                tree_placement: Transform::identity(),
                inertia: self.link_inertia(&links[root_link]),
                q_index: 0,
                v_index: 0,
                limits: JointLimits::default(),
            });
            Some(0)
        } else {
            None
        };
        attached[root_link] = Some((root_body, Transform::identity()));
        frames.push(Frame {
            name: links[root_link].name.clone(),
            kind: FrameKind::Link,
            body: root_body,
            placement: Transform::identity(),
        });
        let mut stack: Vec<usize> = child_joints[root_link].iter().rev().copied().collect();
        while let Some(ji) = stack.pop() {
            let j = &joints[ji];
            let p = link_index[j.parent.link.as_str()];
            let c = link_index[j.child.link.as_str()];
            let (p_body, p_place) = attached[p].expect("parent visited before child");
            let origin = p_place.compose(&pose_transform(&j.origin));
            let (c_body, c_place) = match self.joint_model(j) {
                None => {
                    if let Some(b) = p_body {
                        bodies[b].inertia += self.link_inertia(&links[c]).transformed(&origin);
                    }
                    (p_body, origin)
                }
                Some(joint) => {
                    bodies.push(Body {
                        name: links[c].name.clone(),
                        joint_name: j.name.clone(),
                        parent: p_body,
                        joint,
                        tree_placement: origin,
                        inertia: self.link_inertia(&links[c]),
                        q_index: 0,
                        v_index: 0,
                        limits: joint_limits(j),
                    });
                    (Some(bodies.len() - 1), Transform::identity())
                }
            };
            attached[c] = Some((c_body, c_place));
            frames.push(Frame {
                name: links[c].name.clone(),
                kind: FrameKind::Link,
                body: c_body,
                placement: c_place,
            });
            frames.push(Frame {
                name: j.name.clone(),
                kind: FrameKind::Joint,
                body: c_body,
                placement: c_place,
            });
            stack.extend(child_joints[c].iter().rev());
        }
        if let Some(unreached) = attached.iter().position(|a| a.is_none()) {
            return Err(ModelError::Loop {
                file: file.clone(),
                link: loop_link(&parent_joint, joints, &link_index, unreached),
            });
        }
        if bodies.is_empty() {
            return Err(ModelError::NoMovingBody { file: file.clone() });
        }
        let warnings = check_body_inertias(&mut bodies, &frames, file, options.strict)?;
        let mut model = Model::new(self.robot.name.clone(), bodies, frames);
        model.warnings = warnings;
        Ok(model)
    }

    /// The joint model of a URDF joint, `None` for a fixed joint.
    fn joint_model(&self, j: &urdf_rs::Joint) -> Option<Joint> {
        // Scaled first so that huge finite components do not overflow the norm.
        let axis = Vec3::from(j.axis.xyz.0);
        let axis = (axis / axis.amax()).normalize();
        match j.joint_type {
            urdf_rs::JointType::Revolute | urdf_rs::JointType::Continuous => {
                Some(Joint::Revolute { axis })
            }
            urdf_rs::JointType::Prismatic => Some(Joint::Prismatic { axis }),
            _ => None,
        }
    }

    fn validate_joint(&self, j: &urdf_rs::Joint) -> Result<(), ModelError> {
        let file = &self.file;
        let error = ElementError {
            file,
            element: "joint",
            name: &j.name,
        };
        use urdf_rs::JointType as T;
        match j.joint_type {
            T::Revolute | T::Continuous | T::Prismatic | T::Fixed => {}
            ref other => {
                return Err(ModelError::UnsupportedJoint {
                    file: file.clone(),
                    joint: j.name.clone(),
                    kind: format!("{other:?}").to_lowercase(),
                })
            }
        }
        if !finite(&j.origin.xyz.0) {
            return Err(error.non_finite("origin xyz"));
        }
        if !finite(&j.origin.rpy.0) {
            return Err(error.non_finite("origin rpy"));
        }
        if !within(&j.origin.xyz.0, MAX_URDF_OFFSET) {
            return Err(error.out_of_range("origin xyz", MAX_URDF_OFFSET));
        }
        let l = &j.limit;
        // Infinite limits mean "none" (URDF 1.2); NaN is never meaningful.
        if [l.lower, l.upper, l.effort, l.velocity]
            .iter()
            .any(|x| x.is_nan())
        {
            return Err(error.non_finite("limit"));
        }
        // A continuous joint's position limits are ignored (joint_limits).
        if matches!(j.joint_type, T::Revolute | T::Prismatic) && l.lower > l.upper {
            return Err(ModelError::InvertedLimits {
                file: file.clone(),
                joint: j.name.clone(),
                lower: l.lower,
                upper: l.upper,
            });
        }
        if j.joint_type != T::Fixed {
            if !finite(&j.axis.xyz.0) {
                return Err(error.non_finite("axis xyz"));
            }
            if Vec3::from(j.axis.xyz.0).norm() < 1e-12 {
                return Err(ModelError::ZeroAxis {
                    file: file.clone(),
                    joint: j.name.clone(),
                });
            }
        }
        Ok(())
    }

    fn validate_link(&self, l: &urdf_rs::Link) -> Result<(), ModelError> {
        let file = &self.file;
        let error = ElementError {
            file,
            element: "link",
            name: &l.name,
        };
        let inr = &l.inertial;
        if !finite(&inr.origin.xyz.0) {
            return Err(error.non_finite("inertial origin xyz"));
        }
        if !finite(&inr.origin.rpy.0) {
            return Err(error.non_finite("inertial origin rpy"));
        }
        if !inr.mass.value.is_finite() {
            return Err(error.non_finite("mass"));
        }
        let i = &inr.inertia;
        let inertia = [i.ixx, i.ixy, i.ixz, i.iyy, i.iyz, i.izz];
        if !finite(&inertia) {
            return Err(error.non_finite("inertia"));
        }
        if !within(&inr.origin.xyz.0, MAX_URDF_OFFSET) {
            return Err(error.out_of_range("inertial origin xyz", MAX_URDF_OFFSET));
        }
        if !within(&[inr.mass.value], MAX_URDF_MAGNITUDE) {
            return Err(error.out_of_range("mass", MAX_URDF_MAGNITUDE));
        }
        if !within(&inertia, MAX_URDF_MAGNITUDE) {
            return Err(error.out_of_range("inertia", MAX_URDF_MAGNITUDE));
        }
        if inr.mass.value < 0.0 {
            return Err(ModelError::NegativeMass {
                file: file.clone(),
                link: l.name.clone(),
                mass: inr.mass.value,
            });
        }
        // Inertia tensors are checked per body, once merged (inertia_check).
        Ok(())
    }

    /// Link inertia in the link frame.
    fn link_inertia(&self, l: &urdf_rs::Link) -> RigidInertia {
        let inr = &l.inertial;
        let r = rpy_to_matrix(inr.origin.rpy.0);
        RigidInertia::from_com(
            inr.mass.value,
            Vec3::from(inr.origin.xyz.0),
            r * inertia_matrix(&inr.inertia) * r.transpose(),
        )
    }
}

/// The errors about one URDF element's numbers, naming the file, the
/// element and the value.
struct ElementError<'a> {
    file: &'a PathBuf,
    element: &'static str,
    name: &'a str,
}

impl ElementError<'_> {
    fn non_finite(&self, field: &'static str) -> ModelError {
        ModelError::NonFinite {
            file: self.file.clone(),
            element: self.element,
            name: self.name.to_string(),
            field,
        }
    }

    fn out_of_range(&self, field: &'static str, limit: f64) -> ModelError {
        ModelError::OutOfRange {
            file: self.file.clone(),
            element: self.element,
            name: self.name.to_string(),
            field,
            limit,
        }
    }
}

/// A link on the loop above link `start`, which the root does not reach:
/// following parent joints up from it must end in a cycle.
fn loop_link(
    parent_joint: &[Option<usize>],
    joints: &[urdf_rs::Joint],
    link_index: &HashMap<&str, usize>,
    start: usize,
) -> String {
    let mut seen = vec![false; parent_joint.len()];
    let mut i = start;
    while !seen[i] {
        seen[i] = true;
        match parent_joint[i] {
            Some(j) => i = link_index[joints[j].parent.link.as_str()],
            None => break,
        }
    }
    // `i` is on the cycle; its parent joint names it as the child.
    parent_joint[i].map_or_else(String::new, |j| joints[j].child.link.clone())
}

/// The limits of a URDF joint: a `<limit>` element left out (all zeros in
/// urdf-rs) means none, and a continuous joint has no position limits.
fn joint_limits(j: &urdf_rs::Joint) -> JointLimits {
    let l = &j.limit;
    let none = JointLimits::default();
    if l.lower == 0.0 && l.upper == 0.0 && l.effort == 0.0 && l.velocity == 0.0 {
        return none;
    }
    let continuous = j.joint_type == urdf_rs::JointType::Continuous;
    JointLimits {
        lower: if continuous { none.lower } else { l.lower },
        upper: if continuous { none.upper } else { l.upper },
        effort: l.effort,
        velocity: l.velocity,
    }
}

fn inertia_matrix(i: &urdf_rs::Inertia) -> Mat3 {
    Mat3::new(
        i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz,
    )
}
