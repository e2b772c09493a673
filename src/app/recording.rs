//! Animated GIF recordings of the window for slides (issue 15 sec. 5): the
//! record button, and `gui SCENARIO --record out.gif --seconds N`, which
//! records N seconds once the window has rendered 30 frames, and exits. About ten frames a second
//! are captured (fewer if the window renders slower), halved in size when
//! the window is wider than 960 pixels, and encoded on a background thread
//! by the `gif` crate (NeuQuant palette per frame, LZW); each frame is shown
//! for the wall-clock time until the next one, so the GIF plays at the
//! speed the window did. The file is written whole once the recording
//! stops (or not at all): when every frame asked for has arrived, or
//! [`LATE_FRAME_WAIT`] after the stop for frames that never come (a
//! minimised or hidden window renders nothing), which the report names.

use super::session::Notices;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Seconds between captured frames (10 frames per second).
const FRAME_INTERVAL: f64 = 0.1;

/// Longest recording, seconds.
pub const MAX_SECONDS: f64 = 600.0;

/// How long the encoder waits, once the recording has stopped, for frames
/// asked for but not yet captured (a screenshot takes a few rendered
/// frames; one that takes longer is not coming).
const LATE_FRAME_WAIT: Duration = Duration::from_secs(2);

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

/// What reaches the encoder: a frame, a screenshot that could not be read,
/// or the end of the recording with the number of frames asked for.
enum Delivery {
    Frame(CapturedFrame),
    Unreadable,
    End { requested: usize },
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
    /// Frames asked for that never arrived or could not be read.
    pub missing: usize,
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
        let missing = match self.missing {
            0 => String::new(),
            n => format!(" ({n} more asked for never arrived: was the window hidden?)"),
        };
        format!(
            "wrote {}: {} frames of {}x{} over {:.1} s ({:.1} frames/s), {:.0} kB{missing}",
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
    /// Screenshots asked for so far.
    requested: usize,
    frames: Sender<Delivery>,
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
        let encoder = std::thread::spawn(move || encode(&path, received, LATE_FRAME_WAIT));
        self.active = Some(Recording {
            started: Instant::now(),
            next_capture: 0.0,
            requested: 0,
            frames,
            encoder,
            limit: Some(limit.unwrap_or(MAX_SECONDS).min(MAX_SECONDS)),
        });
    }

    /// Stops the recording; the file is written once the frames still
    /// being captured have arrived (or [`LATE_FRAME_WAIT`] has passed).
    pub fn stop(&mut self) {
        if let Some(r) = self.active.take() {
            // The encoder is gone only if it failed; that is reported.
            let _ = r.frames.send(Delivery::End {
                requested: r.requested,
            });
            self.finishing.push(r.encoder);
        }
    }
}

/// Encodes the frames as they arrive and writes the file whole once the
/// recording has ended and every frame asked for has been delivered, or
/// `late_wait` after the end (or when every sender is gone).
fn encode(
    path: &Path,
    deliveries: Receiver<Delivery>,
    late_wait: Duration,
) -> Result<RecordingReport, String> {
    let fail = |e: &dyn std::fmt::Display| format!("recording {}: {e}", path.display());
    let mut encoder: Option<gif::Encoder<Vec<u8>>> = None;
    let (mut width, mut height) = (0, 0);
    let mut pending: Option<CapturedFrame> = None;
    let (mut first, mut last, mut count) = (None, 0.0, 0);
    // Deliveries so far, and (once ended) how many were asked for and when
    // to stop waiting for the rest.
    let mut delivered = 0;
    let mut end: Option<(usize, Instant)> = None;
    let write = |encoder: &mut gif::Encoder<Vec<u8>>, f: CapturedFrame, delay: f64, w, h| {
        let mut rgba = fit(&f, w, h);
        let mut frame = gif::Frame::from_rgba_speed(w as u16, h as u16, &mut rgba, 10);
        frame.delay = (100.0 * delay).round().clamp(2.0, 65535.0) as u16;
        encoder.write_frame(&frame).map_err(|e| fail(&e))
    };
    loop {
        if let Some((requested, _)) = end {
            if delivered >= requested {
                break;
            }
        }
        let delivery = match end {
            None => deliveries.recv().ok(),
            Some((_, deadline)) => deliveries
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .ok(),
        };
        let f = match delivery {
            None => break,
            Some(Delivery::End { requested }) => {
                end = Some((requested, Instant::now() + late_wait));
                continue;
            }
            Some(Delivery::Unreadable) => {
                delivered += 1;
                continue;
            }
            Some(Delivery::Frame(f)) => {
                delivered += 1;
                f
            }
        };
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
        missing: end.map_or(0, |(requested, _)| requested.saturating_sub(count)),
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
    r.requested += 1;
    let sender = r.frames.clone();
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>| {
            let Ok(image) = captured.image.clone().try_into_dynamic() else {
                let _ = sender.send(Delivery::Unreadable);
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
            let _ = sender.send(Delivery::Frame(CapturedFrame {
                t,
                width,
                height,
                rgba,
            }));
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
                    // For the script that asked for it; a closed
                    // standard output must not panic the app.
                    if let Err(e) = writeln!(std::io::stdout(), "{}", report.describe()) {
                        warn!("the recording's report not printed: {e}");
                    }
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
        let (dir, path) = scratch_gif("passivity-gif");
        let (send, receive) = channel();
        for (k, t) in [0.0, 0.1, 0.35].into_iter().enumerate() {
            send.send(frame(t, 80 * k as u8)).unwrap();
        }
        drop(send);
        let report = encode(&path, receive, LATE_FRAME_WAIT).unwrap();
        assert_eq!((report.frames, report.missing), (3, 0));
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

    /// A fresh folder for one test and the GIF path in it.
    fn scratch_gif(name: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.gif");
        (dir, path)
    }

    fn frame(t: f64, shade: u8) -> Delivery {
        Delivery::Frame(CapturedFrame {
            t,
            width: 4,
            height: 3,
            rgba: [shade, 0, 255 - shade, 255].repeat(12),
        })
    }

    #[test]
    fn a_frame_still_in_flight_at_the_stop_is_kept() {
        let (dir, path) = scratch_gif("passivity-gif-late");
        let (send, receive) = channel();
        let encoder = std::thread::spawn(move || encode(&path, receive, Duration::from_secs(60)));
        send.send(frame(0.0, 0)).unwrap();
        send.send(Delivery::End { requested: 2 }).unwrap();
        send.send(frame(0.1, 200)).unwrap();
        // The sender stays alive (as an observer's would): the encoder must
        // finish on the second frame, not on a disconnect or the 60 s wait.
        let report = encoder.join().unwrap().unwrap();
        assert_eq!((report.frames, report.missing), (2, 0));
        drop(send);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn frames_that_never_arrive_do_not_hold_the_file_back() {
        let (dir, path) = scratch_gif("passivity-gif-lost");
        let (send, receive) = channel();
        send.send(frame(0.0, 0)).unwrap();
        send.send(Delivery::Unreadable).unwrap();
        send.send(frame(0.2, 100)).unwrap();
        send.send(Delivery::End { requested: 5 }).unwrap();
        // Two screenshots never come back, and their senders never drop.
        let started = Instant::now();
        let report = encode(&path, receive, Duration::from_millis(200)).unwrap();
        assert!(started.elapsed() >= Duration::from_millis(200));
        assert_eq!((report.frames, report.missing), (2, 3));
        assert!(report.describe().contains("3 more asked for never arrived"));
        assert_eq!(std::fs::read(&path).unwrap().len() as u64, report.bytes);
        drop(send);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
