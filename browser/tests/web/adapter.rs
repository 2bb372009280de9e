//! The adapter Chromium gives, printed once, and the limits the context runs under.

use gpu_xor_browser::{browser_adapter_report, ctx, say};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
async fn adapter_is_the_browsers_webgpu_and_its_limits_are_printed() {
    let ctx = ctx().await;
    let info = ctx.adapter_info();
    say(&format!("wgpu adapter info: {info:?}"));
    match browser_adapter_report().await {
        Ok(report) => say(&format!("navigator.gpu adapter: {report}")),
        Err(e) => panic!("the page's own WebGPU adapter: {e}"),
    }
    let l = ctx.device().limits();
    say(&format!(
        "device limits: max_storage_buffer_binding_size {}, max_buffer_size {}, \
         min_storage_buffer_offset_alignment {}, min_uniform_buffer_offset_alignment {}, \
         max_uniform_buffer_binding_size {}, max_compute_workgroups_per_dimension {}, \
         max_compute_invocations_per_workgroup {}, max_compute_workgroup_storage_size {}, \
         max_storage_buffers_per_shader_stage {}, max_bind_groups {}",
        l.max_storage_buffer_binding_size,
        l.max_buffer_size,
        l.min_storage_buffer_offset_alignment,
        l.min_uniform_buffer_offset_alignment,
        l.max_uniform_buffer_binding_size,
        l.max_compute_workgroups_per_dimension,
        l.max_compute_invocations_per_workgroup,
        l.max_compute_workgroup_storage_size,
        l.max_storage_buffers_per_shader_stage,
        l.max_bind_groups,
    ));
    say(&format!(
        "context: max window {} bytes, feature level {:?}",
        ctx.max_window_bytes(),
        ctx.feature_level()
    ));
    // The suite is about the browser's WebGPU, not a WebGL fallback.
    assert_eq!(info.backend, wgpu::Backend::BrowserWebGpu, "{info:?}");
    // The context asked for the adapter's limits, which are at least WebGPU's defaults.
    let defaults = wgpu::Limits::default();
    assert!(l.max_storage_buffer_binding_size >= defaults.max_storage_buffer_binding_size);
    assert!(l.min_storage_buffer_offset_alignment <= defaults.min_storage_buffer_offset_alignment);
    assert_eq!(
        ctx.max_window_bytes(),
        l.max_storage_buffer_binding_size
            .min(l.max_buffer_size)
            .min(1 << 31)
            / 16
            * 16
    );
}
