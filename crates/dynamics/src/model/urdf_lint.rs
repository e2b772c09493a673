//! What urdf-rs lets pass in a URDF's text: it ignores elements and
//! attributes it does not know, so a misspelt `<inertial>` makes a massless
//! link and a misspelt `xyz` a zero offset, both without a word; and it
//! keeps the words of a vector that parse as numbers, so
//! `xyz="0 -0.12 abc 0.4"` became a 3-vector. This scan names both, with
//! the line, before urdf-rs reads the text.

use crate::input::xml_scan::StartTags;

/// The children of the URDF elements the loader reads.
const CHILDREN: [(&str, &[&str]); 4] = [
    (
        "robot",
        &["link", "joint", "material", "transmission", "gazebo"],
    ),
    ("link", &["inertial", "visual", "collision"]),
    ("inertial", &["origin", "mass", "inertia"]),
    (
        "joint",
        &[
            "origin",
            "parent",
            "child",
            "axis",
            "limit",
            "dynamics",
            "mimic",
            "safety_controller",
            "calibration",
        ],
    ),
];

/// The attributes of the elements the loader reads, and how many numbers
/// each holds (0: a name).
const ATTRIBUTES: [(&str, &[(&str, usize)]); 10] = [
    ("link", &[("name", 0)]),
    ("joint", &[("name", 0), ("type", 0)]),
    ("origin", &[("xyz", 3), ("rpy", 3)]),
    ("axis", &[("xyz", 3)]),
    ("mass", &[("value", 1)]),
    (
        "inertia",
        &[
            ("ixx", 1),
            ("ixy", 1),
            ("ixz", 1),
            ("iyy", 1),
            ("iyz", 1),
            ("izz", 1),
        ],
    ),
    (
        "limit",
        &[("lower", 1), ("upper", 1), ("effort", 1), ("velocity", 1)],
    ),
    ("mimic", &[("joint", 0), ("multiplier", 1), ("offset", 1)]),
    ("parent", &[("link", 0)]),
    ("child", &[("link", 0)]),
];

/// A finding: the line (from 1) and what is wrong there.
#[derive(Clone, Debug, PartialEq)]
pub struct UrdfFinding {
    pub line: usize,
    pub message: String,
}

/// The misspellings in a URDF's text (as warnings: what urdf-rs will
/// ignore), or the first malformed number (an error).
///
/// A name is taken for a misspelling of a known one when it is within two
/// edits of it (`inertal`, `xzy`, `lowr`); other unknown names are left
/// alone, since URDFs carry extensions (`<gazebo>` blocks, `<ros2_control>`,
/// vendor tags) the loader has no use for.
///
/// # Errors
/// The first attribute of [`ATTRIBUTES`] that should hold numbers and holds
/// a word that is not one, or another count of them.
pub fn lint_urdf(text: &[u8]) -> Result<Vec<UrdfFinding>, UrdfFinding> {
    let mut warnings = Vec::new();
    let mut open: Vec<&[u8]> = Vec::new();
    let mut line = 1;
    let mut counted = 0;
    let mut tags = StartTags::new(text).peekable();
    match tags.peek() {
        None => {
            return Err(UrdfFinding {
                line: 1,
                message: "no XML element: this is not a URDF (empty, or another format)".into(),
            })
        }
        Some(root) if root.name != b"robot" => {
            return Err(UrdfFinding {
                line: 1 + text[..root.offset].iter().filter(|&&b| b == b'\n').count(),
                message: format!(
                    "the root element is <{}>, not <robot>: this is not a URDF",
                    String::from_utf8_lossy(root.name)
                ),
            })
        }
        Some(_) => {}
    }
    for tag in tags {
        line += text[counted..tag.offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = tag.offset;
        open.truncate(tag.depth - 1);
        let name = String::from_utf8_lossy(tag.name);
        let parent = open.last().map(|p| String::from_utf8_lossy(p));
        open.push(tag.name);
        if let Some(parent) = &parent {
            if let Some((_, known)) = CHILDREN.iter().find(|(p, _)| *p == parent.as_ref()) {
                if let Some(meant) = misspelling_of(&name, known.iter().copied()) {
                    warnings.push(UrdfFinding {
                        line,
                        message: format!(
                            "<{parent}> has an element <{name}>, which URDF does not know (did you mean <{meant}>?): it is ignored"
                        ),
                    });
                }
            }
        }
        let Some((_, known)) = ATTRIBUTES.iter().find(|(e, _)| *e == name.as_ref()) else {
            continue;
        };
        let given = attributes(tag.attributes);
        if let Some(message) = missing_or_unknown_kind(&name, parent.as_deref(), &given) {
            return Err(UrdfFinding { line, message });
        }
        for (attribute, value) in given {
            match known.iter().find(|(a, _)| *a == attribute) {
                Some((_, 0)) => {}
                Some((_, count)) => check_numbers(&name, attribute, value, *count)
                    .map_err(|message| UrdfFinding { line, message })?,
                None => {
                    if let Some(meant) = misspelling_of(attribute, known.iter().map(|(a, _)| *a)) {
                        warnings.push(UrdfFinding {
                            line,
                            message: format!(
                                "<{name}> has an attribute {attribute}, which URDF does not know (did you mean {meant}?): it is ignored"
                            ),
                        });
                    }
                }
            }
        }
    }
    Ok(warnings)
}

/// The attributes an element must have where the loader reads it (its
/// parent's name first): urdf-rs refuses the text without them, naming
/// neither the element nor its line.
const REQUIRED: [(&str, &str, &[&str]); 7] = [
    ("robot", "link", &["name"]),
    ("robot", "joint", &["name", "type"]),
    ("joint", "parent", &["link"]),
    ("joint", "child", &["link"]),
    ("joint", "mimic", &["joint"]),
    ("inertial", "mass", &["value"]),
    (
        "inertial",
        "inertia",
        &["ixx", "ixy", "ixz", "iyy", "iyz", "izz"],
    ),
];

/// The joint types of URDF (urdf-rs reads `spherical` too).
const JOINT_TYPES: [&str; 7] = [
    "revolute",
    "continuous",
    "prismatic",
    "fixed",
    "floating",
    "planar",
    "spherical",
];

/// What is wrong with a tag's attributes before their values: one the
/// element needs is missing, or a joint's type is none of URDF's.
fn missing_or_unknown_kind(
    element: &str,
    parent: Option<&str>,
    given: &[(&str, &str)],
) -> Option<String> {
    let value = |a: &str| given.iter().find(|(n, _)| *n == a).map(|(_, v)| *v);
    let named = value("name").map_or(String::new(), |n| format!(" name=\"{n}\""));
    let (_, _, needed) = REQUIRED
        .iter()
        .find(|(p, e, _)| Some(*p) == parent && *e == element)?;
    if let Some(missing) = needed.iter().find(|a| value(a).is_none()) {
        return Some(format!("<{element}{named}> has no {missing} attribute"));
    }
    let kind = value("type").filter(|_| element == "joint")?;
    if JOINT_TYPES.contains(&kind) {
        return None;
    }
    let meant = misspelling_of(kind, JOINT_TYPES.iter().copied())
        .map_or(String::new(), |m| format!(" (did you mean {m}?)"));
    Some(format!(
        "<{element}{named}>: type '{kind}' is not a URDF joint type{meant}; the loader takes revolute, continuous, prismatic and fixed"
    ))
}

/// `value` must be `count` numbers separated by white space.
fn check_numbers(element: &str, attribute: &str, value: &str, count: usize) -> Result<(), String> {
    let words: Vec<&str> = value.split_whitespace().collect();
    if let Some(word) = words.iter().find(|w| w.parse::<f64>().is_err()) {
        return Err(format!(
            "<{element} {attribute}=\"{value}\">: '{word}' is not a number{}",
            if word.contains("${") || word.contains("$(") {
                " (a xacro expression: expand the file with xacro first)"
            } else {
                ""
            }
        ));
    }
    if words.len() != count {
        return Err(format!(
            "<{element} {attribute}=\"{value}\">: {count} number{} expected, {} given",
            if count == 1 { "" } else { "s" },
            words.len()
        ));
    }
    Ok(())
}

/// The `name="value"` pairs of a start tag's attribute text (single or
/// double quotes; entity references are left as written).
fn attributes(text: &[u8]) -> Vec<(&str, &str)> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim();
        let after = rest[eq + 1..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let Some(end) = after[1..].find(quote) else {
            break;
        };
        out.push((name, &after[1..1 + end]));
        rest = &after[end + 2..];
    }
    out
}

/// The known name `name` misspells: within two edits of it, and not a known
/// name itself.
fn misspelling_of<'k>(name: &str, known: impl Iterator<Item = &'k str> + Clone) -> Option<&'k str> {
    if known.clone().any(|k| k == name) {
        return None;
    }
    known
        .map(|k| (edits(name, k), k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The Levenshtein distance between `a` and `b` (names of a few letters).
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARM: &str = r#"<robot name="arm">
  <link name="base"/>
  <link name="upper">
    <inertial>
      <origin xyz="0 0 0.1" rpy="0 0 0"/>
      <mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
    </inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/>
    <child link="upper"/>
    <origin xyz="0 0 0.3"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/>
  </joint>
  <gazebo reference="upper"><material>Gazebo/Grey</material></gazebo>
</robot>"#;

    #[test]
    fn a_good_urdf_has_no_finding() {
        assert_eq!(lint_urdf(ARM.as_bytes()), Ok(vec![]));
    }

    #[test]
    fn misspelt_elements_and_attributes_are_named_with_their_line() {
        let text = ARM
            .replace("<inertial>", "<inertal>")
            .replace("</inertial>", "</inertal>")
            .replace("<origin xyz=\"0 0 0.3\"/>", "<origin xzy=\"0 0 0.3\"/>")
            .replace("lower=", "lowr=");
        let found = lint_urdf(text.as_bytes()).unwrap();
        let said: Vec<(usize, &str)> = found.iter().map(|f| (f.line, f.message.as_str())).collect();
        assert_eq!(
            said,
            [
                (4, "<link> has an element <inertal>, which URDF does not know (did you mean <inertial>?): it is ignored"),
                (13, "<origin> has an attribute xzy, which URDF does not know (did you mean xyz?): it is ignored"),
                (15, "<limit> has an attribute lowr, which URDF does not know (did you mean lower?): it is ignored"),
            ]
        );
    }

    #[test]
    fn extensions_far_from_any_urdf_name_are_left_alone() {
        let text = ARM.replace(
            "<gazebo reference",
            "<ros2_control name=\"x\"/><self_collide/><gazebo reference",
        );
        assert_eq!(lint_urdf(text.as_bytes()), Ok(vec![]));
    }

    /// The arm with its first `from` replaced by `to` is refused at `line`
    /// with `said`.
    fn assert_arm_edit_refused(from: &str, to: &str, line: usize, said: &str) {
        let text = ARM.replacen(from, to, 1);
        assert_eq!(
            lint_urdf(text.as_bytes()),
            Err(UrdfFinding {
                line,
                message: said.into()
            }),
            "{to}"
        );
    }

    #[test]
    fn words_that_are_not_numbers_are_refused() {
        for (from, to, said) in [
            ("xyz=\"0 0 0.3\"", "xyz=\"0 0 abc 0.3\"", "<origin xyz=\"0 0 abc 0.3\">: 'abc' is not a number"),
            ("xyz=\"0 0 0.3\"", "xyz=\"0 0,3\"", "<origin xyz=\"0 0,3\">: '0,3' is not a number"),
            ("xyz=\"0 0 0.3\"", "xyz=\"0 0\"", "<origin xyz=\"0 0\">: 3 numbers expected, 2 given"),
            ("value=\"2\"", "value=\"2kg\"", "<mass value=\"2kg\">: '2kg' is not a number"),
            (
                "xyz=\"0 0 0.3\"",
                "xyz=\"0 0 ${height}\"",
                "<origin xyz=\"0 0 ${height}\">: '${height}' is not a number (a xacro expression: expand the file with xacro first)",
            ),
        ] {
            let line = if from.starts_with("value") { 6 } else { 13 };
            assert_arm_edit_refused(from, to, line, said);
        }
    }

    #[test]
    fn missing_attributes_and_unknown_joint_types_are_refused() {
        for (from, to, line, said) in [
            ("<joint name=\"shoulder\" type=\"revolute\">", "<joint name=\"shoulder\" type=\"revolut\">", 10,
             "<joint name=\"shoulder\">: type 'revolut' is not a URDF joint type (did you mean revolute?); the loader takes revolute, continuous, prismatic and fixed"),
            ("<joint name=\"shoulder\" type=\"revolute\">", "<joint name=\"shoulder\">", 10,
             "<joint name=\"shoulder\"> has no type attribute"),
            ("<child link=\"upper\"/>", "<child/>", 12, "<child> has no link attribute"),
            (" ixz=\"0\"", "", 7, "<inertia> has no ixz attribute"),
        ] {
            assert_arm_edit_refused(from, to, line, said);
        }
        // A transmission's <joint> names a joint: it has no type.
        let text = ARM.replace(
            "<gazebo reference",
            "<transmission name=\"t\"><joint name=\"shoulder\"/></transmission><gazebo reference",
        );
        assert_eq!(lint_urdf(text.as_bytes()), Ok(vec![]));
    }

    #[test]
    fn text_that_is_no_urdf_is_named_so() {
        for (text, said) in [
            (
                "",
                "no XML element: this is not a URDF (empty, or another format)",
            ),
            (
                "name = \"x\"\n[robot]\n",
                "no XML element: this is not a URDF (empty, or another format)",
            ),
            (
                "<?xml version=\"1.0\"?>\n<sdf version=\"1.6\"><model/></sdf>",
                "the root element is <sdf>, not <robot>: this is not a URDF",
            ),
        ] {
            let found = lint_urdf(text.as_bytes()).unwrap_err();
            assert_eq!(found.message, said, "{text}");
        }
    }

    #[test]
    fn edits_count_insertions_deletions_and_substitutions() {
        assert_eq!(edits("inertal", "inertial"), 1);
        assert_eq!(edits("xzy", "xyz"), 2);
        assert_eq!(edits("", "abc"), 3);
        assert_eq!(edits("mass", "mass"), 0);
    }
}
