//! Fuzzing the inspector with what users feed it (docs/FUZZING.md): the triangle
//! capture with random bytes of its memory writes and of the file changed, inspected
//! under small hangcheck limits, must end in a report (with hang pages where the replay
//! hung) and never panic; the report server must answer random requests with a status
//! line or close, and never leave the folder. `GTSIM_FUZZ_CASES=N` runs N cases.

use gtsim_fuzzkit::Rng;
use gtsim_gpu::aub::{Event, parse};
use gtsim_gpu::device::DeviceLimits;
use gtsim_pipe3d::draw::WorkLimits;
use std::io::{Read, Write};

const TRACE: &[u8] = include_bytes!("../../cli/data/triangle.aub");

const LIMITS: DeviceLimits = DeviceLimits {
    max_commands: 20_000,
    work: WorkLimits {
        eu_instructions: 2_000_000,
        vertices: 20_000,
        pixels: 200_000,
    },
};

fn mutate(rng: &mut Rng, data: &mut [u8]) {
    gtsim_fuzzkit::mutate_dwords(rng, data, &[0, 1, 0xffff_ffff, 0x8000_0000, 0x0000_ffff]);
}

#[test]
fn mutated_captures_end_in_reports() {
    let base = parse(TRACE);
    let writes: Vec<usize> = base
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Write { data, .. } if data.len() >= 4))
        .map(|(i, _)| i)
        .collect();
    let dir = std::env::temp_dir().join(format!("gtsim-fuzz-inspect-{}", std::process::id()));
    let (mut hangs, n) = (0, gtsim_fuzzkit::cases(12));
    for case in 0..n {
        let mut rng = Rng(gtsim_fuzzkit::seed(0x2545_f491_4f6c_dd1d) ^ (case + 1));
        let t = if rng.below(4) == 0 {
            let mut bytes = TRACE.to_vec();
            mutate(&mut rng, &mut bytes);
            parse(&bytes)
        } else {
            let mut t = base.clone();
            for _ in 0..1 + rng.below(3) {
                if let Event::Write { data, .. } = &mut t.events[writes[rng.below(writes.len())]] {
                    mutate(&mut rng, data);
                }
            }
            t
        };
        let _ = std::fs::remove_dir_all(&dir);
        let s = gtsim_inspect::inspect_limited(&t, "fuzz", &dir, LIMITS, |_, _| {})
            .expect("the report is written");
        assert!(dir.join("index.html").is_file());
        for i in 0..s.hangs {
            assert!(dir.join(format!("hang-{i}.html")).is_file());
        }
        hangs += s.hangs;
    }
    eprintln!("{n} mutated captures inspected, {hangs} hang pages");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_server_answers_random_requests() {
    let dir = std::env::temp_dir().join(format!("gtsim-fuzz-serve-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("img")).unwrap();
    std::fs::write(dir.join("index.html"), "index").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let root = dir.clone();
    std::thread::spawn(move || gtsim_inspect::serve::serve(&root, listener));
    let pieces: [&[u8]; 10] = [
        b"GET ",
        b"HEAD ",
        b"POST ",
        b"/",
        b"../",
        b"index.html",
        b"%2e%2e/",
        b"\r\n",
        b" HTTP/1.1",
        b"\0\xff",
    ];
    for case in 0..gtsim_fuzzkit::cases(200) {
        let mut rng = Rng(0x9e37_79b9 ^ (case + 1));
        let mut req = vec![];
        for _ in 0..rng.below(12) {
            if rng.below(4) == 0 {
                req.push(rng.next_u64() as u8);
            } else {
                req.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
        }
        req.extend_from_slice(b"\r\n\r\n");
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let _ = s.write_all(&req);
        let mut out = vec![];
        let _ = s.read_to_end(&mut out);
        if !out.is_empty() {
            assert!(
                out.starts_with(b"HTTP/1.1 "),
                "{:?}",
                String::from_utf8_lossy(&out)
            );
        }
        // Only the folder's files come back (HEAD: the headers alone).
        if out.starts_with(b"HTTP/1.1 200") {
            assert!(
                out.ends_with(b"\r\n\r\nindex")
                    || out.ends_with(b"Content-Length: 5\r\nConnection: close\r\n\r\n"),
                "{:?}",
                String::from_utf8_lossy(&out)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
