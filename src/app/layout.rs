//! The window's layout: the controls panel on the left and the plots,
//! docked below the 3-D view, docked on the right or floating in their own
//! window. Each panel collapses to a thin strip with a button to open it
//! again (or by its key, [`LayoutKey`]); the 3-D view takes the rest
//! ([`super::camera::PanelMargins`]).

use bevy::prelude::*;
use bevy_egui::egui;
use bevy_egui::input::EguiWantsInput;

/// Where the plots are shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PlotsDock {
    /// A panel below the 3-D view, the plots side by side.
    #[default]
    Below,
    /// A panel on the right of the 3-D view, the plots one above the other.
    Right,
    /// A window of their own over the 3-D view.
    Floating,
}

impl PlotsDock {
    /// The next place, in the order the dock key cycles through.
    pub fn next(self) -> PlotsDock {
        match self {
            PlotsDock::Below => PlotsDock::Right,
            PlotsDock::Right => PlotsDock::Floating,
            PlotsDock::Floating => PlotsDock::Below,
        }
    }
}

/// Which panels are open and where the plots are.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub controls_open: bool,
    pub plots_open: bool,
    pub plots_dock: PlotsDock,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            controls_open: true,
            plots_open: true,
            plots_dock: PlotsDock::default(),
        }
    }
}

/// The layout's keys.
pub struct LayoutKey;

impl LayoutKey {
    /// Hides or shows the controls panel.
    pub const CONTROLS: KeyCode = KeyCode::KeyC;
    /// Hides or shows the plots.
    pub const PLOTS: KeyCode = KeyCode::KeyP;
    /// Moves the plots: below the view, right of it, floating.
    pub const DOCK: KeyCode = KeyCode::KeyD;
}

pub struct LayoutPlugin;

impl Plugin for LayoutPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Layout>()
            .add_systems(Update, layout_keys);
    }
}

fn layout_keys(
    keys: Res<ButtonInput<KeyCode>>,
    egui: Option<Res<EguiWantsInput>>,
    mut layout: ResMut<Layout>,
) {
    if egui.is_some_and(|e| e.wants_keyboard_input()) {
        return;
    }
    if keys.just_pressed(LayoutKey::CONTROLS) {
        layout.controls_open = !layout.controls_open;
    }
    if keys.just_pressed(LayoutKey::PLOTS) {
        layout.plots_open = !layout.plots_open;
    }
    if keys.just_pressed(LayoutKey::DOCK) {
        layout.plots_dock = layout.plots_dock.next();
        layout.plots_open = true;
    }
}

/// The edge of the window a panel is docked to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    Left,
    Right,
    Bottom,
}

/// Size of a collapsed panel's strip (logical pixels).
const STRIP: f32 = 28.0;

impl Edge {
    fn panel(self, id: egui::Id) -> egui::Panel {
        match self {
            Edge::Left => egui::Panel::left(id),
            Edge::Right => egui::Panel::right(id),
            Edge::Bottom => egui::Panel::bottom(id),
        }
    }

    /// The buttons that open a collapsed panel (an arrow away from the
    /// edge) and collapse an open one (toward the edge).
    fn glyphs(self) -> (&'static str, &'static str) {
        match self {
            Edge::Left => ("\u{23F5}", "\u{23F4}"),
            Edge::Right => ("\u{23F4}", "\u{23F5}"),
            Edge::Bottom => ("\u{23F6}", "\u{23F7}"),
        }
    }
}

/// A panel along one edge of `area`, the part of the window it shares with
/// the 3-D view (logical pixels).
pub struct EdgePanel<'a> {
    pub edge: Edge,
    pub id: &'a str,
    /// Its size across the edge when first opened (logical pixels).
    pub default_size: f32,
    /// The hover text of its buttons (names the key).
    pub hint: &'a str,
    pub area: egui::Rect,
}

/// Shows the panel, resizable and scrolling, when `open`, otherwise a thin
/// strip with a button to open it; returns the size it takes from the 3-D
/// view across its edge (logical pixels).
pub fn show_edge_panel(
    ctx: &egui::Context,
    spec: EdgePanel,
    open: &mut bool,
    contents: impl FnOnce(&mut egui::Ui),
) -> f32 {
    let id = egui::Id::new(spec.id);
    let mut root = egui::Ui::new(
        ctx.clone(),
        id.with("root"),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(spec.area),
    );
    let (open_glyph, hide_glyph) = spec.edge.glyphs();
    let mut toggled = false;
    let response = egui::Panel::show_switched(
        &mut root,
        open,
        spec.edge.panel(id.with("strip")).exact_size(STRIP),
        spec.edge
            .panel(id)
            .resizable(true)
            .default_size(spec.default_size),
        |ui, expanded| {
            if expanded {
                toggled = ui
                    .small_button(hide_glyph)
                    .on_hover_text(spec.hint)
                    .clicked();
                egui::ScrollArea::vertical().show(ui, contents);
            } else {
                toggled = ui.button(open_glyph).on_hover_text(spec.hint).clicked();
            }
        },
    );
    if toggled {
        *open = !*open;
    }
    let rect = response.response.rect;
    match spec.edge {
        Edge::Left | Edge::Right => rect.width(),
        Edge::Bottom => rect.height(),
    }
}
