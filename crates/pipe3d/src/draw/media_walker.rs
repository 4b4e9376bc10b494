//! MEDIA_OBJECT_WALKER's thread positions: the hardware walker's loops (Gen8+; neither
//! seed has the command or its algorithm).
//!
//! The loops, outermost first: global outer (Global Loop Exec Count + 1 times at most,
//! its start stepping by Global Outer Loop Stride), global inner (whole blocks, stepping
//! by Global Inner Loop Unit while the block overlaps [0, Global Resolution)), local
//! outer (Local Loop Exec Count + 1 times at most, from Local Start stepping by Local
//! Outer Loop Stride), local middle (Middle Loop Extra Steps + 1 times, stepping by the
//! Mid-Loop Units), local inner (stepping by Local Inner Loop Unit while inside the
//! block, which is clipped to the global area), and the colour loop (Color Count Minus
//! One + 1 colours) innermost. An outer loop's start that lands outside the bounds is
//! first moved by its inner unit until it is back inside, when the unit points that
//! way. Each thread's position is the block's origin (clipped at 0) plus its local
//! position.
//!
//! Sources (public facts): Intel media-driver's software model of these loops,
//! `HalCm_ThreadsNumberPerGroup_MW` in `media_driver/agnostic/common/cm/cm_hal.cpp`
//! (exec counts compared with `<=`, the in-bounds tests and the skip rule; its position
//! `x = localInnerX + globalInnerX`), the raster pattern the driver programs
//! (`vphal_render_composite.cpp` `RenderBufferMediaWalker`: Local Loop Exec Count =
//! blocks − 1) and the loop order of the Group ID Loop Select field's description
//! ("Outer global, Inner global, Outer local, Mid local and Inner local loop ... Each
//! complete iteration of the Inner local loop and Color loop defines a group",
//! `mhw_render_hwcmd_g11_X.h`). Where the colour loop sits is this model's reading of
//! that sentence.
//!
//! A walker whose inner units are both zero never leaves its block: the model refuses
//! it as invalid state rather than dispatch forever.

use super::DrawError;

/// A walker's loop fields (signed where the command's are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WalkerLoops {
    /// Color Count Minus One.
    pub color_count_minus_one: u32,
    /// Middle Loop Extra Steps.
    pub middle_loop_extra_steps: u32,
    /// Mid-Loop Unit X, Local Mid-Loop Unit Y.
    pub mid_loop_unit: (i64, i64),
    /// Global Loop Exec Count.
    pub global_loop_exec_count: u32,
    /// Local Loop Exec Count.
    pub local_loop_exec_count: u32,
    /// Block Resolution X, Y.
    pub block_resolution: (i64, i64),
    /// Local Start X, Y.
    pub local_start: (i64, i64),
    /// Local Outer Loop Stride X, Y.
    pub local_outer_loop_stride: (i64, i64),
    /// Local Inner Loop Unit X, Y.
    pub local_inner_loop_unit: (i64, i64),
    /// Global Resolution X, Y.
    pub global_resolution: (i64, i64),
    /// Global Start X, Y.
    pub global_start: (i64, i64),
    /// Global Outer Loop Stride X, Y.
    pub global_outer_loop_stride: (i64, i64),
    /// Global Inner Loop Unit X, Y.
    pub global_inner_loop_unit: (i64, i64),
}

/// One thread the walker dispatches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkerThread {
    /// Its X and Y.
    pub position: (u32, u32),
    /// Its colour.
    pub color: u32,
}

/// Moves `p` by `unit` while it lies outside the bounds on the side `unit` leads back
/// from: below `low` with a positive unit, or at or past `limit` with a negative one
/// (media-driver's tests: `x + BlockResolution < 0` globally, `x < 0` locally).
fn skip_in(mut p: (i64, i64), unit: (i64, i64), low: (i64, i64), limit: (i64, i64)) -> (i64, i64) {
    let out = |p: (i64, i64)| {
        (p.0 >= limit.0 && unit.0 < 0)
            || (p.0 < low.0 && unit.0 > 0)
            || (p.1 >= limit.1 && unit.1 < 0)
            || (p.1 < low.1 && unit.1 > 0)
    };
    // Each step moves towards the bounds on an axis that is out; bounded by the
    // distance, which the fields' widths bound.
    let mut steps = 0;
    while out(p) && steps < 1 << 16 {
        p = (p.0 + unit.0, p.1 + unit.1);
        steps += 1;
    }
    p
}

impl WalkerLoops {
    /// Calls `dispatch` for each thread, in the walker's order, until it returns an
    /// error (the watchdog's, or the thread's).
    pub fn walk(
        &self,
        command: &'static str,
        mut dispatch: impl FnMut(WalkerThread) -> Result<(), DrawError>,
    ) -> Result<(), DrawError> {
        if self.local_inner_loop_unit == (0, 0) || self.global_inner_loop_unit == (0, 0) {
            return Err(DrawError::State {
                command,
                why: format!(
                    "Local Inner Loop Unit {:?} and Global Inner Loop Unit {:?}: a zero inner \
                     unit never leaves its block, the walker would not end",
                    self.local_inner_loop_unit, self.global_inner_loop_unit
                ),
            });
        }
        let (res, blk) = (self.global_resolution, self.block_resolution);
        let global_in =
            |p: (i64, i64)| p.0 < res.0 && p.1 < res.1 && p.0 + blk.0 > 0 && p.1 + blk.1 > 0;
        let low = (-blk.0, -blk.1);
        let mut g = skip_in(self.global_start, self.global_inner_loop_unit, low, res);
        let mut g_outer = 0;
        while global_in(g) && g_outer <= self.global_loop_exec_count {
            let mut i = g;
            while global_in(i) {
                // The block, clipped to the global area.
                let b = (
                    if i.0 < 0 {
                        blk.0 + i.0
                    } else {
                        blk.0.min(res.0 - i.0)
                    },
                    if i.1 < 0 {
                        blk.1 + i.1
                    } else {
                        blk.1.min(res.1 - i.1)
                    },
                );
                let origin = (i.0.max(0), i.1.max(0));
                self.local(b, origin, &mut dispatch)?;
                i = (
                    i.0 + self.global_inner_loop_unit.0,
                    i.1 + self.global_inner_loop_unit.1,
                );
            }
            g_outer += 1;
            let next = (
                g.0 + self.global_outer_loop_stride.0,
                g.1 + self.global_outer_loop_stride.1,
            );
            g = skip_in(next, self.global_inner_loop_unit, low, res);
        }
        Ok(())
    }

    /// The local loops over the block of size `b` at `origin`.
    fn local(
        &self,
        b: (i64, i64),
        origin: (i64, i64),
        dispatch: &mut impl FnMut(WalkerThread) -> Result<(), DrawError>,
    ) -> Result<(), DrawError> {
        let inside = |p: (i64, i64)| p.0 >= 0 && p.1 >= 0 && p.0 < b.0 && p.1 < b.1;
        let unit = self.local_inner_loop_unit;
        // The local skip rule: the block's own bounds, from 0.
        let skip = |p: (i64, i64)| skip_in(p, unit, (0, 0), b);
        let mut o = skip(self.local_start);
        let mut outer = 0;
        while inside(o) && outer <= self.local_loop_exec_count {
            let mut m = o;
            let mut step = 0;
            while step <= self.middle_loop_extra_steps && inside(m) {
                let mut l = m;
                while inside(l) {
                    for color in 0..=self.color_count_minus_one {
                        dispatch(WalkerThread {
                            position: ((origin.0 + l.0) as u32, (origin.1 + l.1) as u32),
                            color,
                        })?;
                    }
                    l = (l.0 + unit.0, l.1 + unit.1);
                }
                step += 1;
                m = (m.0 + self.mid_loop_unit.0, m.1 + self.mid_loop_unit.1);
            }
            outer += 1;
            o = skip((
                o.0 + self.local_outer_loop_stride.0,
                o.1 + self.local_outer_loop_stride.1,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions(l: &WalkerLoops) -> Vec<(u32, u32)> {
        let mut v = vec![];
        l.walk("MEDIA_OBJECT_WALKER", |t| {
            v.push(t.position);
            Ok(())
        })
        .unwrap();
        v
    }

    /// iHD's composite raster walk of a 10x8-block frame (the fields it sent for
    /// scale_vaapi to 160x120, `gtsim decode`): Local Loop Exec Count 7 (8 rows), the
    /// inner unit (1, 0), outer stride (0, 1), one global block (Global Outer Loop Stride
    /// (10, 0) leaves the area after one): the 80 blocks in raster order, once each.
    #[test]
    fn ihds_raster_walk_covers_each_block_once_in_raster_order() {
        let l = WalkerLoops {
            global_loop_exec_count: 1,
            local_loop_exec_count: 7,
            block_resolution: (10, 8),
            local_outer_loop_stride: (0, 1),
            local_inner_loop_unit: (1, 0),
            global_resolution: (10, 8),
            global_outer_loop_stride: (10, 0),
            global_inner_loop_unit: (0, 8),
            ..Default::default()
        };
        let expected: Vec<(u32, u32)> = (0..8).flat_map(|y| (0..10).map(move |x| (x, y))).collect();
        assert_eq!(positions(&l), expected);
    }

    /// The vertical pattern (iHD's MediaWalkerVertical): stride (1, 0), unit (0, 1),
    /// Local Loop Exec Count = blocks across − 1: column after column.
    #[test]
    fn vertical_walk_goes_column_by_column() {
        let l = WalkerLoops {
            local_loop_exec_count: 2,
            block_resolution: (3, 2),
            local_outer_loop_stride: (1, 0),
            local_inner_loop_unit: (0, 1),
            global_resolution: (3, 2),
            global_outer_loop_stride: (3, 0),
            global_inner_loop_unit: (0, 2),
            ..Default::default()
        };
        assert_eq!(
            positions(&l),
            [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
        );
    }

    /// The 26-degree wavefront media-driver programs (outer stride (1, 0), inner unit
    /// (−2, 1), exec count W + 2(H − 1) − 1) on a 4x3 block: each outer step starts one
    /// column right on row 0 and walks down-left two columns a row, the starts past the
    /// right edge skipped back in by the inner unit. Worked by hand: every block once.
    #[test]
    fn wavefront_26_degrees_visits_every_block_once() {
        let l = WalkerLoops {
            local_loop_exec_count: 4 + 2 * 2 - 1,
            block_resolution: (4, 3),
            local_outer_loop_stride: (1, 0),
            local_inner_loop_unit: (-2, 1),
            global_resolution: (4, 3),
            global_outer_loop_stride: (4, 0),
            global_inner_loop_unit: (0, 3),
            ..Default::default()
        };
        let p = positions(&l);
        assert_eq!(
            p,
            [
                (0, 0),
                (1, 0),
                (2, 0),
                (0, 1),
                (3, 0),
                (1, 1),
                (2, 1),
                (0, 2),
                (3, 1),
                (1, 2),
                (2, 2),
                (3, 2)
            ]
        );
    }

    /// Colours: Color Count Minus One 1 dispatches each position twice, colour 0 then 1;
    /// a Global Start offset moves the blocks' origin.
    #[test]
    fn colours_repeat_each_position_and_global_start_offsets_it() {
        let l = WalkerLoops {
            color_count_minus_one: 1,
            block_resolution: (2, 1),
            local_inner_loop_unit: (1, 0),
            local_outer_loop_stride: (0, 1),
            global_resolution: (4, 3),
            global_start: (2, 2),
            global_outer_loop_stride: (4, 0),
            global_inner_loop_unit: (0, 3),
            ..Default::default()
        };
        let mut v = vec![];
        l.walk("MEDIA_OBJECT_WALKER", |t| {
            v.push((t.position, t.color));
            Ok(())
        })
        .unwrap();
        assert_eq!(v, [((2, 2), 0), ((2, 2), 1), ((3, 2), 0), ((3, 2), 1)]);
    }

    /// A zero inner unit is invalid state, not an endless walk.
    #[test]
    fn a_zero_inner_unit_is_refused() {
        let l = WalkerLoops {
            block_resolution: (2, 2),
            global_resolution: (2, 2),
            global_inner_loop_unit: (0, 2),
            ..Default::default()
        };
        let e = l.walk("MEDIA_OBJECT_WALKER", |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("never leaves its block"), "{e}");
    }
}
