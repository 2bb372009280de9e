//! The page: lines in the runner's output, and what the browser says about its adapter.

/// Prints `line` where the test runner shows it.
///
/// In a browser, `wasm-bindgen-test-runner` prints the text of the page's `#output` element
/// as it grows (the `test ... ok` lines are written there), and keeps the console output of a
/// test that passes to itself unless `--nocapture` is given: so the line is appended to
/// `#output`, and goes to the console where the page has none. Natively it is printed.
pub fn say(line: &str) {
    #[cfg(target_arch = "wasm32")]
    {
        let pre = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("output"));
        match pre {
            Some(pre) => {
                let mut text = pre.text_content().unwrap_or_default();
                text.push_str(line);
                text.push('\n');
                pre.set_text_content(Some(&text));
            }
            None => web_sys::console::log_1(&line.into()),
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    println!("{line}");
}

/// What the browser itself reports about its WebGPU adapter (`navigator.gpu.requestAdapter()`:
/// `info.vendor`, `architecture`, `device`, `description`, whether it is a fallback adapter,
/// and its features), which wgpu's `AdapterInfo` leaves out. An error names what is missing.
#[cfg(target_arch = "wasm32")]
pub async fn browser_adapter_report() -> Result<String, String> {
    use js_sys::{Array, Function, Promise, Reflect};
    use wasm_bindgen::{JsCast, JsValue};

    let get = |target: &JsValue, key: &str| -> Result<JsValue, String> {
        Reflect::get(target, &JsValue::from_str(key)).map_err(|e| format!("{key}: {e:?}"))
    };
    let window = web_sys::window().ok_or("no window")?;
    let gpu = get(&window.navigator().into(), "gpu")?;
    if gpu.is_undefined() {
        return Err("navigator.gpu is undefined: this page has no WebGPU".into());
    }
    let request: Function = get(&gpu, "requestAdapter")?
        .dyn_into()
        .map_err(|_| "navigator.gpu.requestAdapter is not a function")?;
    let promise: Promise = request
        .call0(&gpu)
        .map_err(|e| format!("requestAdapter: {e:?}"))?
        .dyn_into()
        .map_err(|_| "requestAdapter did not return a promise")?;
    let adapter = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|e| format!("requestAdapter: {e:?}"))?;
    if adapter.is_null() || adapter.is_undefined() {
        return Err("navigator.gpu.requestAdapter() gave no adapter".into());
    }
    let info = get(&adapter, "info")?;
    let mut fields = Vec::new();
    for key in ["vendor", "architecture", "device", "description"] {
        let value = get(&info, key)?.as_string().unwrap_or_default();
        fields.push(format!("{key} {value:?}"));
    }
    let fallback = get(&info, "isFallbackAdapter")?;
    let fallback = if fallback.is_undefined() {
        get(&adapter, "isFallbackAdapter")?
    } else {
        fallback
    };
    fields.push(format!("fallback {}", fallback.as_bool().unwrap_or(false)));
    let features = Array::from(&get(&adapter, "features")?);
    let mut names: Vec<String> = features.iter().filter_map(|f| f.as_string()).collect();
    names.sort();
    fields.push(format!("features [{}]", names.join(", ")));
    Ok(fields.join(", "))
}

/// Natively there is no browser adapter to ask.
#[cfg(not(target_arch = "wasm32"))]
pub async fn browser_adapter_report() -> Result<String, String> {
    Err("not in a browser".into())
}
