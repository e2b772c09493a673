//! A small JSON reader for the reference fixtures, so that the dynamics
//! crate's tests need no JSON dependency: objects, arrays, strings (with
//! escapes) and numbers (parsed by `str::parse::<f64>`, correctly rounded,
//! so Python's round-trip `repr` floats come back exactly); the fixtures
//! have no booleans or nulls. Malformed input panics with the byte offset:
//! the fixtures are ours.

use std::ops::Index;

/// A parsed JSON value.
#[derive(Debug)]
pub enum Json {
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses a whole document.
    pub fn parse(text: &str) -> Json {
        let mut p = Parser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = p.value();
        p.skip_space();
        assert_eq!(p.at, p.bytes.len(), "JSON: trailing text at {}", p.at);
        value
    }

    pub fn number(&self) -> f64 {
        match self {
            Json::Number(x) => *x,
            other => panic!("JSON: expected a number, found {other:?}"),
        }
    }

    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("JSON: expected a string, found {other:?}"),
        }
    }

    pub fn array(&self) -> &[Json] {
        match self {
            Json::Array(a) => a,
            other => panic!("JSON: expected an array, found {other:?}"),
        }
    }

    /// An array of numbers.
    pub fn numbers(&self) -> Vec<f64> {
        self.array().iter().map(Json::number).collect()
    }

    /// An array of rows of numbers.
    pub fn matrix(&self) -> Vec<Vec<f64>> {
        self.array().iter().map(Json::numbers).collect()
    }
}

impl Index<&str> for Json {
    type Output = Json;

    fn index(&self, key: &str) -> &Json {
        match self {
            Json::Object(fields) => fields
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("JSON: no field '{key}'")),
            other => panic!("JSON: expected an object, found {other:?}"),
        }
    }
}

struct Parser<'t> {
    bytes: &'t [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> u8 {
        self.skip_space();
        *self
            .bytes
            .get(self.at)
            .unwrap_or_else(|| panic!("JSON: unexpected end"))
    }

    fn expect(&mut self, b: u8) {
        assert_eq!(
            self.peek(),
            b,
            "JSON: expected '{}' at {}",
            b as char,
            self.at
        );
        self.at += 1;
    }

    fn value(&mut self) -> Json {
        match self.peek() {
            b'{' => {
                self.at += 1;
                let mut fields = Vec::new();
                if self.peek() == b'}' {
                    self.at += 1;
                    return Json::Object(fields);
                }
                loop {
                    let key = self.string();
                    self.expect(b':');
                    fields.push((key, self.value()));
                    match self.peek() {
                        b',' => self.at += 1,
                        _ => break,
                    }
                }
                self.expect(b'}');
                Json::Object(fields)
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.peek() == b']' {
                    self.at += 1;
                    return Json::Array(items);
                }
                loop {
                    items.push(self.value());
                    match self.peek() {
                        b',' => self.at += 1,
                        _ => break,
                    }
                }
                self.expect(b']');
                Json::Array(items)
            }
            b'"' => Json::Str(self.string()),
            _ => {
                let start = self.at;
                while self.at < self.bytes.len()
                    && matches!(
                        self.bytes[self.at],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.at += 1;
                }
                let token = std::str::from_utf8(&self.bytes[start..self.at]).unwrap();
                Json::Number(
                    token
                        .parse()
                        .unwrap_or_else(|_| panic!("JSON: bad number '{token}' at {start}")),
                )
            }
        }
    }

    fn string(&mut self) -> String {
        self.expect(b'"');
        let mut out = String::new();
        loop {
            let start = self.at;
            while !matches!(self.bytes[self.at], b'"' | b'\\') {
                self.at += 1;
            }
            out.push_str(std::str::from_utf8(&self.bytes[start..self.at]).unwrap());
            let b = self.bytes[self.at];
            self.at += 1;
            if b == b'"' {
                return out;
            }
            let escape = self.bytes[self.at];
            self.at += 1;
            match escape {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'u' => {
                    let hex = std::str::from_utf8(&self.bytes[self.at..self.at + 4]).unwrap();
                    self.at += 4;
                    let code = u32::from_str_radix(hex, 16).unwrap();
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                other => out.push(other as char),
            }
        }
    }
}
