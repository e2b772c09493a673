//! Animated GIF recordings of the window for slides (issue 15 sec. 5): the
//! record button, and `gui SCENARIO --record out.gif --seconds N`, which
//! records N seconds once the window has rendered 30 frames, and exits. About ten frames a second
//! are captured (fewer if the window renders slower), halved in size when
//! the window is wider than 960 pixels, and encoded on a background thread
//! by the `gif` crate (NeuQuant palette per frame, LZW); each frame is shown
//! for the wall-clock time until the next one, so the GIF plays at the
//! speed the window did. The file is written whole once the recording
//! stops (or not at all).

use super::session::Notices;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Instant;

/// Seconds between captured frames (10 frames per second).
const FRAME_INTERVAL: f64 = 0.1;

/// Longest recording, seconds.
pub const MAX_SECONDS: f64 = 600.0;

/// Widest frame kept; wider windows are halved.
const MAX_WIDTH: u32 = 960;

/// Frames rendered before a scripted recording starts: pipelines compile
/// and meshes upload in the first frames, which a software renderer shows
/// black for seconds (as the scripted screenshot, which waits 30 frames).
const WARM_UP_FRAMES: u32 = 30;

/// One captured frame: when it was requested (seconds since the start) and
/// its RGBA pixels.
struct CapturedFrame {
    t: f64,
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

/// What a finished recording wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordingReport {
    pub path: PathBuf,
    pub frames: usize,
    /// From the first frame to the end of the last one, seconds.
    pub seconds: f64,
    pub bytes: u64,
    pub width: u32,
    pub height: u32,
}

impl RecordingReport {
    pub fn frame_rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.frames as f64 / self.seconds
        } else {
            0.0
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "wrote {}: {} frames of {}x{} over {:.1} s ({:.1} frames/s), {:.0} kB",
            self.path.display(),
            self.frames,
            self.width,
            self.height,
            self.seconds,
            self.frame_rate(),
            self.bytes as f64 / 1e3
        )
    }
}

/// A recording under way.
struct Recording {
    started: Instant,
    next_capture: f64,
    frames: Sender<CapturedFrame>,
    encoder: JoinHandle<Result<RecordingReport, String>>,
    /// Stop after this many seconds (scripted recordings).
    limit: Option<f64>,
}

/// The recorder: the recording under way, the ones being finished, and the
/// scripted recording's settings.
#[derive(Resource, Default)]
pub struct Recorder {
    active: Option<Recording>,
    finishing: Vec<JoinHandle<Result<RecordingReport, String>>>,
    /// `--record PATH --seconds N`: start after the warm-up, exit when written.
    pub scripted: Option<(PathBuf, f64)>,
    frame: u32,
}

impl Recorder {
    /// A recorder that records `scripted` = (path, seconds) from the start
    /// and then ends the app.
    pub fn scripted(scripted: Option<(PathBuf, f64)>) -> Self {
        Recorder {
            scripted,
            ..Default::default()
        }
    }

    /// Whether a recording is under way, and for how long (seconds).
    pub fn recording(&self) -> Option<f64> {
        self.active
            .as_ref()
            .map(|r| r.started.elapsed().as_secs_f64())
    }

    /// Starts recording to `path` (stopped by [`Self::stop`], or after
    /// `limit` seconds, at most [`MAX_SECONDS`]).
    pub fn start(&mut self, path: PathBuf, limit: Option<f64>) {
        self.stop();
        let (frames, received) = channel();
        let encoder = std::thread::spawn(move || encode(&path, received));
        self.active = Some(Recording {
            started: Instant::now(),
            next_capture: 0.0,
            frames,
            encoder,
            limit: Some(limit.unwrap_or(MAX_SECONDS).min(MAX_SECONDS)),
        });
    }

    /// Stops the recording; the file is written once the frames still
    /// being captured have arrived.
    pub fn stop(&mut self) {
        if let Some(r) = self.active.take() {
            self.finishing.push(r.encoder);
        }
    }
}

/// Encodes the frames as they arrive; when every sender is gone, writes the
/// file whole.
fn encode(path: &Path, frames: Receiver<CapturedFrame>) -> Result<RecordingReport, String> {
    let fail = |e: &dyn std::fmt::Display| format!("recording {}: {e}", path.display());
    let mut encoder: Option<gif::Encoder<Vec<u8>>> = None;
    let (mut width, mut height) = (0, 0);
    let mut pending: Option<CapturedFrame> = None;
    let (mut first, mut last, mut count) = (None, 0.0, 0);
    let write = |encoder: &mut gif::Encoder<Vec<u8>>, f: CapturedFrame, delay: f64, w, h| {
        let mut rgba = fit(&f, w, h);
        let mut frame = gif::Frame::from_rgba_speed(w as u16, h as u16, &mut rgba, 10);
        frame.delay = (100.0 * delay).round().clamp(2.0, 65535.0) as u16;
        encoder.write_frame(&frame).map_err(|e| fail(&e))
    };
    for f in frames {
        let e = match &mut encoder {
            Some(e) => e,
            None => {
                (width, height) = (f.width.min(u16::MAX as u32), f.height.min(u16::MAX as u32));
                let mut e = gif::Encoder::new(Vec::new(), width as u16, height as u16, &[])
                    .map_err(|e| fail(&e))?;
                e.set_repeat(gif::Repeat::Infinite).map_err(|e| fail(&e))?;
                encoder.insert(e)
            }
        };
        first.get_or_insert(f.t);
        if let Some(previous) = pending.take() {
            let delay = f.t - previous.t;
            write(e, previous, delay, width, height)?;
            count += 1;
        }
        last = f.t;
        pending = Some(f);
    }
    let Some(mut e) = encoder else {
        return Err(fail(&"no frame was captured"));
    };
    if let Some(previous) = pending {
        write(&mut e, previous, FRAME_INTERVAL, width, height)?;
        count += 1;
    }
    let bytes = e.into_inner().map_err(|e| fail(&e))?;
    crate::io::write_atomically(path, &bytes).map_err(|e| fail(&e))?;
    Ok(RecordingReport {
        path: path.to_path_buf(),
        frames: count,
        seconds: last - first.unwrap_or(last) + FRAME_INTERVAL,
        bytes: bytes.len() as u64,
        width,
        height,
    })
}

/// The frame's pixels on a `w` x `h` canvas (cropped or padded with black
/// when the window was resized while recording).
fn fit(f: &CapturedFrame, w: u32, h: u32) -> Vec<u8> {
    if (f.width, f.height) == (w, h) {
        return f.rgba.clone();
    }
    let mut out = vec![0; (w * h * 4) as usize];
    let (cw, ch) = (f.width.min(w) as usize, f.height.min(h) as usize);
    for y in 0..ch {
        let src = y * f.width as usize * 4;
        let dst = y * w as usize * 4;
        out[dst..dst + 4 * cw].copy_from_slice(&f.rgba[src..src + 4 * cw]);
    }
    out
}

/// Halves an RGBA image (2 x 2 box filter) while it is wider than
/// [`MAX_WIDTH`].
fn shrink(mut width: u32, mut height: u32, mut rgba: Vec<u8>) -> (u32, u32, Vec<u8>) {
    while width > MAX_WIDTH && height >= 2 {
        let (w, h) = (width / 2, height / 2);
        let mut out = vec![0u8; (w * h * 4) as usize];
        for y in 0..h as usize {
            for x in 0..w as usize {
                for c in 0..4 {
                    let at = |dx: usize, dy: usize| {
                        u32::from(rgba[((2 * y + dy) * width as usize + 2 * x + dx) * 4 + c])
                    };
                    out[(y * w as usize + x) * 4 + c] =
                        ((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8;
                }
            }
        }
        (width, height, rgba) = (w, h, out);
    }
    (width, height, rgba)
}

pub struct RecordingPlugin;

impl Plugin for RecordingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Recorder>()
            .add_systems(Update, (capture_frames, finish_recordings).chain());
    }
}

/// Starts the scripted recording, stops recordings at their limit, and
/// asks for a screenshot every [`FRAME_INTERVAL`].
fn capture_frames(mut recorder: ResMut<Recorder>, mut commands: Commands) {
    recorder.frame += 1;
    if recorder.frame == WARM_UP_FRAMES {
        if let Some((path, seconds)) = recorder.scripted.clone() {
            recorder.start(path, Some(seconds));
        }
    }
    let Some(r) = &mut recorder.active else {
        return;
    };
    let t = r.started.elapsed().as_secs_f64();
    if r.limit.is_some_and(|limit| t >= limit) {
        recorder.stop();
        return;
    }
    if t < r.next_capture {
        return;
    }
    r.next_capture = (r.next_capture + FRAME_INTERVAL).max(t);
    let sender = r.frames.clone();
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>| {
            let Ok(image) = captured.image.clone().try_into_dynamic() else {
                return;
            };
            let rgba = image.to_rgba8();
            let (w, h) = (rgba.width(), rgba.height());
            let mut rgba = rgba.into_raw();
            // The alpha channel holds no opacity (Bevy's screenshots may
            // store brightness there); GIF would take it for transparency.
            for pixel in rgba.chunks_exact_mut(4) {
                pixel[3] = 255;
            }
            let (width, height, rgba) = shrink(w, h, rgba);
            // The encoder is gone only if it failed; that is reported.
            let _ = sender.send(CapturedFrame {
                t,
                width,
                height,
                rgba,
            });
        },
    );
}

/// Reports finished recordings; a scripted one then ends the app.
fn finish_recordings(
    mut recorder: ResMut<Recorder>,
    mut notices: ResMut<Notices>,
    mut exit: MessageWriter<AppExit>,
) {
    let (done, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut recorder.finishing)
        .into_iter()
        .partition(|h| h.is_finished());
    recorder.finishing = waiting;
    for handle in done {
        let outcome = handle
            .join()
            .unwrap_or_else(|_| Err("the GIF encoder panicked".into()));
        let scripted = recorder.scripted.is_some();
        match outcome {
            Ok(report) => {
                notices.info(report.describe());
                if scripted {
                    println!("{}", report.describe());
                    exit.write(AppExit::Success);
                }
            }
            Err(e) => {
                notices.error(e);
                if scripted {
                    exit.write(AppExit::error());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_averages_two_by_two_blocks() {
        // 2000 x 2: left half black, right half white, one grey pixel pair.
        let (w, h) = (2000u32, 2u32);
        let mut rgba = vec![0u8; (w * h * 4) as usize];
        for y in 0..h {
            for x in w / 2..w {
                let i = ((y * w + x) * 4) as usize;
                rgba[i..i + 4].copy_from_slice(&[255, 255, 255, 255]);
            }
        }
        let (sw, sh, out) = shrink(w, h, rgba);
        assert_eq!((sw, sh), (1000, 1));
        assert_eq!(&out[..4], &[0, 0, 0, 0]);
        assert_eq!(&out[out.len() - 4..], &[255, 255, 255, 255]);
        assert_eq!(out.len(), 1000 * 4);
    }

    #[test]
    fn a_recording_is_a_whole_gif_with_each_frames_delay() {
        let dir = std::env::temp_dir().join(format!("passivity-gif-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.gif");
        let (send, receive) = channel();
        for (k, t) in [0.0, 0.1, 0.35].into_iter().enumerate() {
            let shade = 80 * k as u8;
            send.send(CapturedFrame {
                t,
                width: 4,
                height: 3,
                rgba: [shade, 0, 255 - shade, 255].repeat(12),
            })
            .unwrap();
        }
        drop(send);
        let report = encode(&path, receive).unwrap();
        assert_eq!(report.frames, 3);
        assert!((report.seconds - 0.45).abs() < 1e-12);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(report.bytes, bytes.len() as u64);
        let mut decoder = gif::DecodeOptions::new()
            .read_info(std::io::Cursor::new(bytes))
            .unwrap();
        assert_eq!((decoder.width(), decoder.height()), (4, 3));
        let mut delays = Vec::new();
        while let Some(f) = decoder.read_next_frame().unwrap() {
            delays.push(f.delay);
        }
        assert_eq!(delays, vec![10, 25, 10]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
