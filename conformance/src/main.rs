//! The conformance runner: runs every case of the given files (the format of
//! `conformance/README.md`) on the adapter that `Context::from_env` picks.
//!
//! `cargo run --release -p gpu-xor-conformance -- [FILE...]`
//!
//! With no file it runs the repository's `tests/data/xor.json`,
//! `tests/data/and_or_not.json`, `tests/data/shifts_and_count.json` and `tests/data/onnx_nodes.json`. It prints
//! the adapter,
//! one line per failed or skipped case, the counts per operator, and last
//! `N passed, N failed, N skipped`. The exit status is 1 when a case failed or a file could
//! not be read or parsed, 2 when no adapter could be opened.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::path::PathBuf;
    use std::process::ExitCode;

    use gpu_xor::Context;
    use gpu_xor_conformance::{REPO_CASE_FILES, Report, run_file};

    let mut files: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        files.extend(REPO_CASE_FILES.iter().map(PathBuf::from));
    }

    let ctx = match Context::from_env() {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("error: no GPU context: {e}");
            return ExitCode::from(2);
        }
    };
    let info = ctx.adapter_info();
    let driver = format!("{} {}", info.driver, info.driver_info);
    println!(
        "adapter: {} (backend {:?}, {:?}, driver {})",
        info.name,
        info.backend,
        info.device_type,
        driver.trim()
    );

    let mut report = Report::default();
    let mut file_errors = 0;
    for file in &files {
        match run_file(&ctx, file) {
            Ok(r) => report.extend(r),
            Err(e) => {
                eprintln!("error: {e}");
                file_errors += 1;
            }
        }
    }
    print!("{}", report.render());
    if file_errors > 0 {
        eprintln!("{file_errors} file(s) could not be read or parsed");
    }
    if report.counts().failed > 0 || file_errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// In a browser the cases run through `gpu_xor_conformance::run_cases_async`.
#[cfg(target_arch = "wasm32")]
fn main() {}
