//! Contact points of a convex hull with the ground plane (issue 37): the
//! hull's vertices within reach of the plane, found without scanning the
//! hull.
//!
//! The height of a hull vertex p above the plane is linear in p,
//! d(p) = (R^T n) . p + (n . t - h) for the hull at (R, t) and the plane
//! n . x = h. A linear function has no local minimum on the vertex graph
//! (vertices joined by the hull's edges) of a convex polytope other than
//! the global one, and from every vertex a descending edge path leads to it
//! (the argument of the simplex method). So:
//! - the lowest vertex is found by descent along edges, started from the
//!   last step's lowest vertex (one or two moves while a foot rolls);
//! - the vertices within reach (d <= reach) form a connected part of the
//!   graph around it, collected by a walk that stops at the first vertex
//!   beyond reach on each path.
//!
//! Each point is a hull vertex, so its vertex index identifies it from step
//! to step (the warm start's key). parry's half-space manifold instead scans
//! every face for the one facing the plane and keeps up to four of that
//! face's vertices.

use parry3d_f64::shape::ConvexPolyhedron;
use passivity_dynamics::spatial::Vec3;

/// A convex hull's vertices and the edges between them (adjacency lists).
#[derive(Clone, Debug)]
pub(crate) struct HullGraph {
    points: Vec<Vec3>,
    /// Vertex k's neighbours are `neighbours[first[k]..first[k + 1]]`.
    first: Vec<u32>,
    neighbours: Vec<u32>,
}

/// Scratch of [`HullGraph::within_reach`]: the walk's stack and the visit
/// marks (a stamp per vertex, so nothing is cleared between walks).
#[derive(Clone, Debug, Default)]
pub(crate) struct Walk {
    stamps: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
}

impl HullGraph {
    /// The vertex graph of `hull`.
    pub(crate) fn new(hull: &ConvexPolyhedron) -> HullGraph {
        let points: Vec<Vec3> = hull
            .points()
            .iter()
            .map(|p| Vec3::new(p.x, p.y, p.z))
            .collect();
        let mut degree = vec![0u32; points.len() + 1];
        for e in hull.edges() {
            degree[e.vertices[0] as usize + 1] += 1;
            degree[e.vertices[1] as usize + 1] += 1;
        }
        let mut first = degree;
        for k in 1..first.len() {
            first[k] += first[k - 1];
        }
        let mut fill = first.clone();
        let mut neighbours = vec![0u32; first[points.len()] as usize];
        for e in hull.edges() {
            let [a, b] = e.vertices;
            for (from, to) in [(a, b), (b, a)] {
                neighbours[fill[from as usize] as usize] = to;
                fill[from as usize] += 1;
            }
        }
        HullGraph {
            points,
            first,
            neighbours,
        }
    }

    /// Vertex `k` in the hull's frame.
    pub(crate) fn point(&self, k: usize) -> Vec3 {
        self.points[k]
    }

    fn adjacent(&self, k: usize) -> &[u32] {
        &self.neighbours[self.first[k] as usize..self.first[k + 1] as usize]
    }

    /// The vertex minimizing `dir . p`, by steepest descent along edges
    /// from `start`.
    fn lowest(&self, dir: &Vec3, start: usize) -> usize {
        let mut at = start.min(self.points.len() - 1);
        let mut height = dir.dot(&self.points[at]);
        loop {
            let mut next = at;
            for &k in self.adjacent(at) {
                let h = dir.dot(&self.points[k as usize]);
                if h < height {
                    (next, height) = (k as usize, h);
                }
            }
            if next == at {
                return at;
            }
            at = next;
        }
    }

    /// The vertices at height `dir . p + offset <= reach` above the plane,
    /// as (vertex, height) into `out` (cleared first). `lowest` holds a
    /// guess of the lowest vertex (the last step's) and receives it.
    pub(crate) fn within_reach(
        &self,
        (dir, offset): (&Vec3, f64),
        reach: f64,
        lowest: &mut usize,
        walk: &mut Walk,
        out: &mut Vec<(usize, f64)>,
    ) {
        out.clear();
        if self.points.is_empty() {
            return;
        }
        *lowest = self.lowest(dir, *lowest);
        if dir.dot(&self.points[*lowest]) + offset > reach {
            return;
        }
        if walk.stamps.len() < self.points.len() {
            walk.stamps.resize(self.points.len(), 0);
        }
        walk.stamp = walk.stamp.wrapping_add(1);
        if walk.stamp == 0 {
            walk.stamps.fill(0);
            walk.stamp = 1;
        }
        walk.stack.clear();
        walk.stack.push(*lowest as u32);
        walk.stamps[*lowest] = walk.stamp;
        while let Some(k) = walk.stack.pop() {
            let k = k as usize;
            out.push((k, dir.dot(&self.points[k]) + offset));
            for &j in self.adjacent(k) {
                let j = j as usize;
                if walk.stamps[j] != walk.stamp {
                    walk.stamps[j] = walk.stamp;
                    if dir.dot(&self.points[j]) + offset <= reach {
                        walk.stack.push(j as u32);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parry3d_f64::math::Vector;

    /// Points on a unit sphere (a random seed fixes them) and a box's corners.
    fn clouds() -> Vec<Vec<Vector>> {
        let mut state: u64 = 7;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let sphere = (0..300)
            .map(|_| Vector::new(next(), next(), next()).normalize())
            .collect();
        let mut corners = Vec::new();
        for k in 0..8 {
            let s = |b: usize| if k & (1 << b) == 0 { -0.5 } else { 0.5 };
            corners.push(Vector::new(0.1 * s(0), 0.2 * s(1), 0.03 * s(2)));
        }
        vec![sphere, corners]
    }

    /// Every direction and reach: the walk returns exactly the vertices a
    /// scan of all of them finds within reach, from any starting guess.
    #[test]
    fn the_walk_finds_what_a_scan_finds() {
        let mut walk = Walk::default();
        let mut out = Vec::new();
        for cloud in clouds() {
            let hull = ConvexPolyhedron::from_convex_hull(&cloud).unwrap();
            let graph = HullGraph::new(&hull);
            let n = graph.points.len();
            for (i, dir) in [
                Vec3::new(0.0, 0.0, 1.0),
                Vec3::new(0.3, -0.2, 0.9).normalize(),
                Vec3::new(-1.0, 0.0, 0.0),
                Vec3::new(0.5, 0.5, -0.7).normalize(),
            ]
            .iter()
            .enumerate()
            {
                let min = (0..n)
                    .map(|k| dir.dot(&graph.points[k]))
                    .fold(f64::MAX, f64::min);
                for (reach, offset) in [(0.0, -min), (0.05, -min), (0.3, -min), (0.01, 0.5)] {
                    let mut lowest = (i * 37) % n;
                    graph.within_reach((dir, offset), reach, &mut lowest, &mut walk, &mut out);
                    let mut found: Vec<usize> = out.iter().map(|&(k, _)| k).collect();
                    found.sort_unstable();
                    let scan: Vec<usize> = (0..n)
                        .filter(|&k| dir.dot(&graph.points[k]) + offset <= reach)
                        .collect();
                    assert_eq!(found, scan, "direction {dir:?}, reach {reach}");
                    assert!((dir.dot(&graph.points[lowest]) - min).abs() < 1e-15);
                    for &(k, d) in &out {
                        assert_eq!(d, dir.dot(&graph.points[k]) + offset);
                    }
                }
            }
        }
    }
}
