//! The page: opens the browser's GPU, runs the cases and renders them into `index.html`'s
//! placeholders (`#adapter`, `#cases`, `#status`).
//!
//! What the headless check (`check.py`) reads: `#status`'s `data-status` (`running`, then
//! `ok` or `failed`), `document.title` (`gpu-xor: ok` or `gpu-xor: FAILED ...`), and for each
//! case an element with `data-case` (its id) and `data-passed`, and the GPU's output in its
//! `tr.gpu` row (`td.shape`, `td.values`).
//! Every failure, a panic included, ends on the page as `failed` with its message.

use gpu_xor::Context;
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Document, Element};

use crate::{Case, adapter_rows, run};

/// Runs when the module is instantiated (`init()` in `index.html`).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&message.as_str().into());
        finish(false, "FAILED: panic", &format!("panic: {message}"));
    }));
    wasm_bindgen_futures::spawn_local(async {
        if let Err(e) = main().await {
            let message = e
                .as_string()
                .unwrap_or_else(|| format!("JavaScript error: {e:?}"));
            finish(false, "FAILED", &message);
        }
    });
}

async fn main() -> Result<(), JsValue> {
    let doc = document()?;
    set_status(&doc, "running", "opening the browser's GPU…");

    let ctx = match Context::from_env_async().await {
        Ok(ctx) => ctx,
        Err(e) => {
            let hint = if has_webgpu() {
                "\nThe browser has WebGPU but gave no adapter: it may be disabled for this GPU \
                 (chrome://gpu tells; on Linux, Chromium needs --enable-unsafe-webgpu)."
            } else {
                "\nThis browser has no WebGPU (navigator.gpu): use a recent Chrome, Edge, \
                 Firefox or Safari with WebGPU enabled."
            };
            return Err(format!("no GPU context ({}): {e}{hint}", e.rule()).into());
        }
    };

    let adapter = by_id(&doc, "adapter")?;
    let table = add(&doc, &adapter, "table", "")?;
    let mut rows = adapter_rows(&ctx);
    rows.extend(browser_adapter_info().await);
    for (what, value) in rows {
        let tr = add(&doc, &table, "tr", "")?;
        add_text(&doc, &tr, "th", "", what)?;
        add_text(&doc, &tr, "td", "", &value)?;
    }

    set_status(&doc, "running", "running the operators…");
    let cases = run(&ctx).await;
    let list = by_id(&doc, "cases")?;
    for case in &cases {
        render(&doc, &list, case)?;
    }

    let failed: Vec<&str> = cases.iter().filter(|c| !c.passed).map(|c| c.id).collect();
    if failed.is_empty() {
        finish(
            true,
            "ok",
            &format!(
                "ok: all {} outputs equal the CPU's, bit for bit",
                cases.len()
            ),
        );
    } else {
        finish(
            false,
            &format!("FAILED {}", failed.join(", ")),
            &format!(
                "FAILED: {} of {} outputs differ from the CPU's or did not come back: {}",
                failed.len(),
                cases.len(),
                failed.join(", ")
            ),
        );
    }
    Ok(())
}

/// One case as a card: the operator and type, what it shows, and a table of A, B, the GPU's
/// output and the CPU's.
fn render(doc: &Document, list: &Element, case: &Case) -> Result<(), JsValue> {
    let card = add(
        doc,
        list,
        "section",
        if case.passed {
            "case pass"
        } else {
            "case fail"
        },
    )?;
    card.set_attribute("data-case", case.id)?;
    card.set_attribute("data-passed", &case.passed.to_string())?;

    let title = add(doc, &card, "h2", "")?;
    add_text(
        doc,
        &title,
        "span",
        "mark",
        if case.passed { "✓" } else { "✗" },
    )?;
    add_text(doc, &title, "span", "op", case.op.name())?;
    add_text(doc, &title, "span", "dtype", &case.data_type.to_string())?;
    add_text(doc, &card, "p", "about", case.about)?;

    let table = add(doc, &card, "table", "tensors")?;
    // <tr class="a|b|gpu|cpu"><th>label</th><td class="shape"><td class="values">
    let row = |label: &str, class: &str, shape: &str, text: &str, values: &str| {
        let tr = add(doc, &table, "tr", class)?;
        add_text(doc, &tr, "th", "", label)?;
        add_text(doc, &tr, "td", "shape", shape)?;
        add_text(doc, &tr, "td", values, text).map(drop)
    };
    let shape = |s: &[usize]| format!("{s:?}");
    row("A", "a", &shape(&case.a.shape), &case.a.text, "values")?;
    row("B", "b", &shape(&case.b.shape), &case.b.text, "values")?;
    match &case.gpu {
        Ok(out) => row("GPU", "gpu", &shape(&out.shape), &out.text, "values")?,
        Err(e) => row(
            "GPU",
            "gpu",
            "",
            &format!("error ({}): {e}", e.rule()),
            "values error",
        )?,
    }
    row(
        "CPU",
        "cpu",
        &shape(&case.cpu.shape),
        &case.cpu.text,
        "values",
    )?;
    Ok(())
}

/// The verdict: `#status` (text and `data-status`) and the document's title.
fn finish(ok: bool, title: &str, message: &str) {
    if let Ok(doc) = document() {
        set_status(&doc, if ok { "ok" } else { "failed" }, message);
        doc.set_title(&format!("gpu-xor: {title}"));
    }
}

fn set_status(doc: &Document, status: &str, message: &str) {
    if let Some(el) = doc.get_element_by_id("status") {
        el.set_text_content(Some(message));
        let _ = el.set_attribute("data-status", status);
    }
}

/// What the browser's own `GPUAdapterInfo` says (wgpu passes on only its description): the
/// vendor and architecture, from a second `navigator.gpu.requestAdapter()`.
async fn browser_adapter_info() -> Vec<(&'static str, String)> {
    async fn read() -> Result<Vec<(&'static str, String)>, JsValue> {
        let gpu = Reflect::get(
            &web_sys::window().ok_or("no window")?.navigator(),
            &"gpu".into(),
        )?;
        let request: Function = Reflect::get(&gpu, &"requestAdapter".into())?.dyn_into()?;
        let adapter = JsFuture::from(request.call0(&gpu)?.dyn_into::<Promise>()?).await?;
        let info = Reflect::get(&adapter, &"info".into())?;
        let mut rows = Vec::new();
        for (what, key) in [
            ("vendor", "vendor"),
            ("architecture", "architecture"),
            ("device", "device"),
        ] {
            if let Some(value) = Reflect::get(&info, &key.into())?.as_string() {
                if !value.is_empty() {
                    rows.push((what, value));
                }
            }
        }
        Ok(rows)
    }
    read().await.unwrap_or_default()
}

fn has_webgpu() -> bool {
    web_sys::window()
        .and_then(|w| Reflect::get(&w.navigator(), &"gpu".into()).ok())
        .is_some_and(|gpu| !gpu.is_undefined() && !gpu.is_null())
}

fn document() -> Result<Document, JsValue> {
    web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| "no document".into())
}

fn by_id(doc: &Document, id: &str) -> Result<Element, JsValue> {
    doc.get_element_by_id(id)
        .ok_or_else(|| format!("index.html has no #{id}").into())
}

/// A new `<tag class=...>` appended to `parent`.
fn add(doc: &Document, parent: &Element, tag: &str, class: &str) -> Result<Element, JsValue> {
    let el = doc.create_element(tag)?;
    if !class.is_empty() {
        el.set_class_name(class);
    }
    parent.append_child(&el)?;
    Ok(el)
}

/// A new `<tag class=...>text</tag>` appended to `parent`.
fn add_text(
    doc: &Document,
    parent: &Element,
    tag: &str,
    class: &str,
    text: &str,
) -> Result<Element, JsValue> {
    let el = add(doc, parent, tag, class)?;
    el.set_text_content(Some(text));
    Ok(el)
}
