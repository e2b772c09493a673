//! Mutations of input files: text-aware (numbers, lines, names, markup)
//! and blind (bytes, spans, splices), stacked one to four at a time.

use rand::rngs::SmallRng;
use rand::Rng;

/// Numbers that break things: extremes, signs, non-numbers, malformed.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1e200",
    "1e100",
    "1e-308",
    "5e-324",
    "1e9",
    "1e-9",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1e999",
    "99999999999999999999",
    "-99999999999999999999",
    "4294967296",
    "18446744073709551616",
    "1e",
    "0x10",
    ".",
    "-",
    "+",
    "",
    "1.5.2",
    "3e-",
    "0.0001",
];

/// Fragments of markup and syntax of the three formats.
const TOKENS: &[&str] = &[
    "<",
    ">",
    "/>",
    "</",
    "\"",
    "'",
    "&",
    "&amp;",
    "&#0;",
    "&#x110000;",
    "&unknown;",
    "\0",
    "\u{feff}",
    "\u{fffd}",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<?xml version=\"1.0\"?>",
    "<!DOCTYPE r [<!ENTITY a \"aaaaaaaaaa\">]>",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    ":",
    "\n",
    "#",
    "[[variants]]\nname = \"x\"\n",
    "[simulation]\n",
    "[[environment.spheres]]\ncenter = [0.5, 0.0, 0.3]\nradius = 0.2\n",
    "[[environment.boxes]]\ncenter = [0.0, 0.0, 0.0]\nsize = [1.0, 1.0, 1.0]\n",
    "<link name=\"x\"/>",
    "<joint name=\"j\" type=\"revolute\"><parent link=\"x\"/><child link=\"x\"/></joint>",
    "<mimic joint=\"a\"/>",
    "type=\"floating\"",
    "type=\"planar\"",
    "\"samples\": [],",
    "null",
    "true",
    "[]",
    "{}",
    "\"\"",
];

/// One to four stacked mutations of `input`; `others` are the other seeds
/// of the same kind, for splicing.
pub fn mutate(rng: &mut SmallRng, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        match rng.random_range(0..12) {
            0..=2 => replace_number(rng, &mut data),
            3 => delete_span(rng, &mut data),
            4 => duplicate_lines(rng, &mut data),
            5 => insert_token(rng, &mut data),
            6 => swap_lines(rng, &mut data),
            7 => {
                let at = rng.random_range(0..=data.len());
                data.truncate(at);
            }
            8 => splice(rng, &mut data, others),
            9 => {
                if let Some(b) = pick_index(rng, data.len()) {
                    data[b] = rng.random();
                }
            }
            10 => nest(rng, &mut data),
            _ => replace_name(rng, &mut data),
        }
    }
    data
}

fn pick_index(rng: &mut SmallRng, len: usize) -> Option<usize> {
    (len > 0).then(|| rng.random_range(0..len))
}

/// Byte ranges of number-like tokens.
fn numbers(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let starts = data[i].is_ascii_digit()
            || (matches!(data[i], b'-' | b'+' | b'.')
                && data.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_word = i > 0 && (data[i - 1].is_ascii_alphanumeric() || data[i - 1] == b'_');
        if starts && !after_word {
            let mut j = i + 1;
            while j < data.len()
                && (data[j].is_ascii_digit() || matches!(data[j], b'.' | b'e' | b'E' | b'-' | b'+'))
            {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Replaces a number by an interesting one or a scaled copy of itself.
fn replace_number(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let spans = numbers(data);
    let Some(k) = pick_index(rng, spans.len()) else {
        return;
    };
    let (a, b) = spans[k];
    let new = if rng.random_bool(0.7) {
        NUMBERS[rng.random_range(0..NUMBERS.len())].to_string()
    } else {
        let old: f64 = std::str::from_utf8(&data[a..b])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1.0);
        format!("{:e}", old * 10f64.powi(rng.random_range(-30..=30)))
    };
    data.splice(a..b, new.into_bytes());
}

fn delete_span(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let Some(a) = pick_index(rng, data.len()) else {
        return;
    };
    let len = if rng.random_bool(0.5) {
        rng.random_range(1..=8)
    } else {
        rng.random_range(1..=256)
    };
    data.drain(a..(a + len).min(data.len()));
}

/// Start offsets of lines (and the end).
fn line_starts(data: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        data.iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1),
    );
    if *starts.last().unwrap() != data.len() {
        starts.push(data.len());
    }
    starts
}

/// Copies a block of lines right after itself, once or many times.
fn duplicate_lines(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let starts = line_starts(data);
    if starts.len() < 2 {
        return;
    }
    let first = rng.random_range(0..starts.len() - 1);
    let last = (first + rng.random_range(1..=20)).min(starts.len() - 1);
    let block = data[starts[first]..starts[last]].to_vec();
    let times = match rng.random_range(0..4) {
        0 => rng.random_range(100..=3000),
        _ => rng.random_range(1..=3),
    };
    // Keep inputs under ~8 MB: the size limits are tested by the tests.
    let times = times.min(8_000_000 / block.len().max(1));
    let copies: Vec<u8> = block.repeat(times);
    data.splice(starts[last]..starts[last], copies);
}

fn insert_token(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let at = rng.random_range(0..=data.len());
    let token = TOKENS[rng.random_range(0..TOKENS.len())];
    data.splice(at..at, token.bytes());
}

fn swap_lines(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let starts = line_starts(data);
    if starts.len() < 3 {
        return;
    }
    let mut lines: Vec<Vec<u8>> = starts
        .windows(2)
        .map(|w| data[w[0]..w[1]].to_vec())
        .collect();
    let (i, j) = (
        rng.random_range(0..lines.len()),
        rng.random_range(0..lines.len()),
    );
    lines.swap(i, j);
    *data = lines.concat();
}

/// Inserts a chunk of another seed.
fn splice(rng: &mut SmallRng, data: &mut Vec<u8>, others: &[Vec<u8>]) {
    let Some(k) = pick_index(rng, others.len()) else {
        return;
    };
    let other = &others[k];
    let Some(a) = pick_index(rng, other.len()) else {
        return;
    };
    let b = (a + rng.random_range(1..=512)).min(other.len());
    let at = rng.random_range(0..=data.len());
    data.splice(at..at, other[a..b].iter().copied());
}

/// Deep nesting of elements, arrays or tables.
fn nest(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let depth = [10, 100, 300, 3000, 20000][rng.random_range(0..5)];
    let (open, close) = match rng.random_range(0..3) {
        0 => ("<a>", "</a>"),
        1 => ("[", "]"),
        _ => ("{\"a\":", "}"),
    };
    let at = rng.random_range(0..=data.len());
    let text = open.repeat(depth) + &close.repeat(depth);
    data.splice(at..at, text.into_bytes());
}

/// Replaces one quoted word by another of the same file: names that
/// collide, joints whose parent is their child, unknown keys.
fn replace_name(rng: &mut SmallRng, data: &mut Vec<u8>) {
    let quoted: Vec<(usize, usize)> = data
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'"')
        .map(|(i, _)| i)
        .collect::<Vec<_>>()
        .chunks_exact(2)
        .map(|w| (w[0] + 1, w[1]))
        .filter(|(a, b)| b > a && b - a < 64)
        .collect();
    if quoted.len() < 2 {
        return;
    }
    let (a, b) = quoted[rng.random_range(0..quoted.len())];
    let (c, d) = quoted[rng.random_range(0..quoted.len())];
    let word = data[c..d].to_vec();
    data.splice(a..b, word);
}
