//! The embedded sample submission decoded end to end: a snapshot of the full text (reviewed
//! by hand against seeds 004/000 when blessed: `INSTA_UPDATE=always cargo test`), plus
//! checks of individual values against what the sample packed.

use gtsim_gpu::decode::{Item, RenderOptions, render};
use gtsim_gpu::trace::decode_trace;

fn items() -> Vec<Item> {
    let bytes = gtsim_gpu::sample::aub().expect("sample packs");
    decode_trace(
        &gtsim_spec::gen7::GENERATION,
        &gtsim_gpu::aub::parse(&bytes),
    )
}

#[test]
fn sample_decodes_without_problems() {
    let items = items();
    let problems: Vec<_> = items
        .iter()
        .filter(|i| matches!(i, Item::Diagnostic { .. }))
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    let commands: Vec<&str> = items
        .iter()
        .filter_map(|i| {
            if let Item::Command { def, .. } = i {
                Some(def.name)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(commands.first(), Some(&"MI_BATCH_BUFFER_START"));
    assert_eq!(commands.last(), Some(&"MI_BATCH_BUFFER_END"));
    assert!(commands.contains(&"3DPRIMITIVE"));
}

#[test]
fn indirect_state_is_found_where_the_sample_put_it() {
    use gtsim_gpu::sample::layout;
    let items = items();
    let state = |name: &str| {
        items.iter().find_map(|i| match i {
            Item::State {
                addr, def, lines, ..
            } if def.name == name => Some((*addr, lines.clone())),
            _ => None,
        })
    };
    // The render target's surface state, via the PS binding table.
    let (_, rss) = state("RENDER_SURFACE_STATE").expect("surface state decoded");
    let v = |lines: &[gtsim_spec::print::Line], n: &str| {
        lines
            .iter()
            .find(|l| l.name == n)
            .map(|l| l.value.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        v(&rss, "Surface Base Address"),
        format!("{:#010x}", layout::RENDER_TARGET)
    );
    assert_eq!(v(&rss, "Surface Format"), "192 (B8G8R8A8_UNORM)");
    // The sampler's border colour, one more pointer away.
    let (addr, border) = state("SAMPLER_BORDER_COLOR_STATE").expect("border colour decoded");
    assert_eq!(addr, layout::DYNAMIC + 0x200);
    assert_eq!(v(&border, "Border Color Float Red"), "1");
    // The pixel shader's kernel.
    let kernel = items.iter().find_map(|i| {
        if let Item::Kernel { addr, .. } = i {
            Some(*addr)
        } else {
            None
        }
    });
    assert_eq!(kernel, Some(layout::INSTRUCTION + 0x40));
}

#[test]
fn sample_snapshot() {
    let text = render(
        &items(),
        RenderOptions {
            color: false,
            raw: true,
        },
    );
    insta::assert_snapshot!(text);
}
