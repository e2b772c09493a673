//! Scenario and variant names become file and folder names (the output
//! folder `results/<scenario>`, `<variant>.csv`): they are checked before
//! anything runs, on every file system the results may be copied to.

/// Longest name, in characters: far below the 255-byte file-name limit
/// with its extension, and short enough for tables and plot legends.
pub const MAX_NAME_LENGTH: usize = 64;

/// Names of the files a run writes besides the variants' CSVs (case does
/// not matter): a variant may not take them.
pub const RESERVED_NAMES: [&str; 14] = [
    "summary",
    "scenario.resolved",
    "manifest",
    "edits",
    "sweep",
    "lyapunov",
    "errors",
    "trajectories",
    "parameters",
    "trajectory_3d",
    "task",
    "task_path_3d",
    "torque_spectrum",
    "passivity",
];

/// What is wrong with `name` as a file or folder name, if anything: it
/// must be 1 to [`MAX_NAME_LENGTH`] characters from `A-Z a-z 0-9 _ . -`,
/// and not start with a dot (hidden files, `.` and `..`).
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    let length = name.chars().count();
    if length > MAX_NAME_LENGTH {
        return Some(format!(
            "it has {length} characters, more than {MAX_NAME_LENGTH}"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Some(format!(
            "it contains {c:?}; use letters A-Z a-z, digits, '_', '.' and '-' only"
        ));
    }
    if name.starts_with('.') {
        return Some("it starts with '.' (a hidden file, or . or ..)".into());
    }
    None
}

/// [`name_problem`], and for a variant also a name the outputs use
/// themselves ([`RESERVED_NAMES`]).
pub fn variant_name_problem(name: &str) -> Option<String> {
    name_problem(name).or_else(|| {
        RESERVED_NAMES
            .iter()
            .any(|r| r.eq_ignore_ascii_case(name))
            .then(|| {
                format!(
                    "it is the name of an output file ({})",
                    RESERVED_NAMES.join(", ")
                )
            })
    })
}

/// `name` quoted for a message (control characters escaped), its head
/// only when it is long.
pub fn shown_name(name: &str) -> String {
    let length = name.chars().count();
    if length > MAX_NAME_LENGTH + 16 {
        let head: String = name.chars().take(MAX_NAME_LENGTH).collect();
        format!("{head:?}... ({length} characters)")
    } else {
        format!("{name:?}")
    }
}

/// A name from arbitrary text (a URDF file's stem): characters outside
/// the allowed set become '_', a leading dot too, cut to the length limit.
pub fn sanitized_name(text: &str) -> String {
    let name: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME_LENGTH)
        .collect();
    if name.is_empty() {
        "robot".into()
    } else {
        name
    }
}
