//! The page's cases natively, on the default adapter (the one `Context::from_env` picks), with
//! the same `async` code the browser runs, driven by `pollster`.

#![allow(
    clippy::disallowed_methods,
    reason = "tests wait for the device; the lint keeps blocking calls out of the library"
)]
#![cfg(not(target_arch = "wasm32"))]

use gpu_xor::Context;
use gpu_xor_web_example::{adapter_rows, run};

#[test]
fn every_case_matches_the_cpu() {
    let cases = pollster::block_on(async {
        let ctx = Context::from_env_async().await.expect("a GPU context");
        assert!(
            adapter_rows(&ctx)
                .iter()
                .any(|(what, _)| *what == "backend")
        );
        run(&ctx).await
    });
    assert_eq!(cases.len(), 7);
    for case in &cases {
        assert!(case.passed, "{case:#?}");
    }
    let u8_case = &cases[0];
    assert_eq!(u8_case.id, "bit_xor-u8");
    assert_eq!(u8_case.gpu.as_ref().unwrap().text, "[[255, 127], [213, 0]]");
    let broadcast = cases.last().unwrap();
    assert_eq!(broadcast.gpu.as_ref().unwrap().shape, [2, 2, 3]);
}
