//! `wait` (IVB PRM Vol4 Part3): a thread with no notification stops at the `wait`, to be
//! resumed there once the message gateway has notified it; each notification lets one
//! `wait` through.

use gtsim_eu::exec::{ExecError, Program, Thread};
use gtsim_eu::harness::Recorder;
use gtsim_isa::asm::{Compaction, assemble};

const KERNEL: &str =
    "mov(8)          g2<1>UD         0x00000001UD                    { align1 1Q };
wait(1)         n0<1>.xUD                                       { align16 WE_all 1N };
add(8)          g2<1>UD         g2<8,8,1>UD     0x00000010UD    { align1 1Q };
wait(1)         n0<1>.xUD                                       { align16 WE_all 1N };
add(8)          g2<1>UD         g2<8,8,1>UD     0x00000100UD    { align1 1Q };
send(8)         null<1>UW       g2<8,8,1>UD     0x02000000
                            null MsgDesc: { align1 1Q EOT };";

fn g2(t: &Thread) -> u32 {
    u32::from_le_bytes(t.grf_bytes()[64..68].try_into().unwrap())
}

#[test]
fn a_thread_stops_at_wait_until_notified_and_resumes_there() {
    let prog = Program::new(
        gtsim_isa::Encoding::IvyBridge,
        &assemble(KERNEL, Compaction::Never).unwrap(),
    );
    let mut t = Thread::new(8);
    let mut sf = Recorder::default();
    let ip = match t.run_program(&prog, &mut sf, 100) {
        Err(ExecError::Waiting { ip, executed }) => {
            // The mov ran and the wait was issued (it runs again when resumed).
            assert_eq!(executed, 2);
            ip
        }
        other => panic!("{other:?}"),
    };
    // Stopped at the first wait (the second instruction), the first add not done.
    assert_eq!(ip, 16);
    assert_eq!(t.ip, 16);
    assert_eq!(g2(&t), 1);
    // Resumed without a notification: still waiting, at the same place.
    assert!(matches!(
        t.resume_program(&prog, &mut sf, 100),
        Err(ExecError::Waiting {
            ip: 16,
            executed: 1
        })
    ));
    // Two notifications pass both waits.
    t.notifications = 2;
    assert_eq!(t.resume_program(&prog, &mut sf, 100).unwrap(), 5);
    assert_eq!(g2(&t), 0x111);
    assert_eq!(t.notifications, 0);
    assert_eq!(sf.messages.len(), 1);
    // A new thread starts with no notification (the reset clears n0).
    t.notifications = 3;
    t.reset_for(8, &prog);
    assert_eq!(t.notifications, 0);
}
