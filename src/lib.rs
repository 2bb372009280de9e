//! DirectML's `ELEMENT_WISE_BIT_XOR` and `ELEMENT_WISE_LOGICAL_XOR` and OpenVINO's
//! `BitwiseXor-13`, and the rest of their word-wide family (AND, OR and NOT, bitwise and
//! logical: [`DmlBinary`], [`DmlUnary`], [`OvBinary`], [`OvUnary`]), on any GPU that wgpu
//! reaches (Vulkan, Metal, DX12, GL, and WebGPU in the browser), exact to the bit.
//!
//! Every operator shares the same kernels, rules and guarantees; the element function
//! ([`ElementFunction`]) is a constant of the pipeline. A NOT binds its input as A
//! ([`XorBindings::unary`]):
//!
//! ```no_run
//! use gpu_xor::{Context, DataType, DmlUnary, DmlUnaryDesc, DmlUnaryOp, Tensor, XorBindings};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! let ctx = Context::from_env()?;
//! let x = Tensor::from_slice(&ctx, &[4], &[0u16, 1, 0xff00, 0xffff])?;
//! let not = DmlUnary::new(&ctx, &DmlUnaryDesc::packed(DmlUnaryOp::BitNot, DataType::U16, &[4]))?;
//! not.submit(&XorBindings::unary(x.binding(), x.binding()))?; // in place
//! assert_eq!(x.to_vec::<u16>()?, [0xffff, 0xfffe, 0x00ff, 0]);
//! // The LOGICAL_* operators take u8 and u32 only.
//! assert_eq!(ctx.logical_and(&x, &x).unwrap_err().rule(), "unsupported_dtype");
//! # Ok(())
//! # }
//! ```
//!
//! # Basics
//!
//! Describe the operator, compile it once on a [`Context`], and record it into your own
//! command encoder on your own buffers as often as you like:
//!
//! ```no_run
//! use gpu_xor::{BitXor, BitXorDesc, Context, DataType, TensorBinding, XorBindings};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! # let (device, queue): (wgpu::Device, wgpu::Queue) = unimplemented!();
//! # let (a, b, out): (wgpu::Buffer, wgpu::Buffer, wgpu::Buffer) = unimplemented!();
//! let ctx = Context::new(device.clone(), queue.clone());
//! let op = BitXor::new(&ctx, &BitXorDesc::packed(DataType::U16, &[64, 64]))?;
//! let mut encoder = device.create_command_encoder(&Default::default());
//! op.record(
//!     &mut encoder,
//!     &XorBindings::new(TensorBinding::new(&a), TensorBinding::new(&b), TensorBinding::new(&out)),
//! )?;
//! queue.submit([encoder.finish()]);
//! # Ok(())
//! # }
//! ```
//!
//! Or let the crate make the device and the buffers:
//!
//! ```no_run
//! use gpu_xor::{Context, Tensor};
//!
//! # fn main() -> Result<(), gpu_xor::Error> {
//! let ctx = Context::from_env()?;
//! let a = Tensor::from_slice(&ctx, &[4], &[1u32, 2, 3, 4])?;
//! let b = Tensor::from_slice(&ctx, &[4], &[0xffu32; 4])?;
//! assert_eq!(ctx.bit_xor(&a, &b)?.to_vec::<u32>()?, [0xfe, 0xfd, 0xfc, 0xfb]);
//! # Ok(())
//! # }
//! ```
//!
//! # Async, and the web
//!
//! Nothing that records or uploads ever waits: [`BitXor::record`], [`BitXor::submit`],
//! [`Batch::record`], [`Tensor::from_slice`] and the one-call forms ([`Context::bit_xor`])
//! return as soon as the work is recorded or submitted. What has to wait for the GPU is
//! `async`: [`Tensor::to_vec_async`] (and `to_bytes_async`, `to_bools_async`),
//! [`Context::read_buffer_async`], [`BitXor::run_async`], [`Context::wait_async`],
//! [`Context::check_async`] and [`Context::from_env_async`]. This is the only form in a
//! browser (`wasm32-unknown-unknown` on WebGPU), and the one to use inside an async runtime.
//! The blocking forms ([`Tensor::to_vec`], [`BitXor::run`], [`Context::wait`],
//! [`Context::from_env`]) are thin wrappers for native callers and are not compiled for
//! `wasm32`.
//!
//! ```
//! use gpu_xor::{AutoBroadcast, Context, Tensor};
//!
//! async fn xor_on_any_gpu() -> Result<Vec<i32>, gpu_xor::Error> {
//!     // In a browser: the page's WebGPU adapter. Natively: what the environment picks.
//!     let ctx = Context::from_env_async().await?;
//!     let a = Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
//!     let b = Tensor::from_slice(&ctx, &[3], &[-1i32, 0, 7])?;
//!     let out = ctx.bitwise_xor(&a, &b, AutoBroadcast::Numpy)?; // submitted, not waited for
//!     out.to_vec_async::<i32>().await
//! }
//!
//! // Any executor drives it; natively, even one that only polls.
//! # #[cfg(not(target_arch = "wasm32"))]
//! assert_eq!(pollster::block_on(xor_on_any_gpu())?, [-2, 2, 4, -5, 5, 1]);
//! # Ok::<(), gpu_xor::Error>(())
//! ```
//!
//! In a browser the device answers error scopes only asynchronously. Errors that native
//! backends return from the recording call itself (a kernel the driver refuses, an allocation
//! it cannot make, a submission of a destroyed buffer) are then returned, typed, by the next
//! asynchronous call on the context ([`Context::check_async`], which every read-back and
//! wait runs).
//!
//! # Failures
//!
//! Every rule of the operators' specifications is checked on the CPU, when the operator is
//! created (descriptions) or recorded (bindings), and a broken rule is an [`Error`] that names
//! it ([`Error::rule`]) with the values that broke it. A call that fails records nothing and
//! changes no byte. Nothing in this crate panics on user input.
//!
//! # What it promises beyond DirectML
//!
//! - Only the output's elements are written: padding between strided elements, bytes around
//!   the tensor, and the other lanes of a word that an 8- or 16-bit element shares keep their
//!   values.
//! - All eleven DirectML types on every adapter with no optional feature: the kernels see
//!   only `u32` words.
//! - Tensors larger than one storage binding, and than 65,535 workgroups per dimension.
//!
//! # Layers
//!
//! [`desc`] (descriptions and rules, which hand out validated [`Operands`]) → layout analysis
//! ([`Plan::new`]: broadcasts as zero strides, coalescing, the kernel family) → the WGSL
//! kernels (private; [`KernelKind`] names them) → execution ([`Context`], [`BitXor`],
//! [`Tensor`]) → [`mod@reference`] (the CPU oracle). Each layer reads only the ones above it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod desc;
mod error;
mod exec;
mod kernels;
mod layout;
pub mod reference;
mod scope;

#[allow(deprecated)]
pub use desc::ElementOp;
pub use desc::{
    AutoBroadcast, BitFunction, BitXorDesc, BitwiseXorDesc, DataType, DmlBinaryDesc, DmlBinaryOp,
    DmlUnaryDesc, DmlUnaryOp, ElementFunction, FeatureLevel, LogicalXorDesc, Operand, Operands,
    Operator, OvBinaryDesc, OvBinaryOp, OvUnaryDesc, OvUnaryOp, TensorDesc, TensorFlags,
    TensorName, infer_output_shape,
};
pub use error::{Error, ErrorKind, WgpuError};
pub use exec::{
    Batch, BitXor, BitwiseXor, Context, ContextOptions, DmlBinary, DmlUnary, Element, LimitsChoice,
    LogicalXor, OvBinary, OvUnary, OwnedInputs, Prepared, RecordSummary, RecordingObjects, Tensor,
    TensorBinding, XorBindings, XorOperator,
};
pub use kernels::KernelTuning;
pub use layout::{BindingPattern, KernelKind, Plan};

/// DESIGN §3: data flows one way. Descriptions know nothing below them, and layout analysis
/// reads the descriptions' output ([`desc::Operands`]), never the operator descriptions, and
/// nothing below it. Within and across layers, no file uses a file that uses it back: the
/// files and their uses form a graph with no circle. Checked on the source text, comments
/// left out.
#[cfg(test)]
mod layering {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    /// What `src/desc` may not name: the layers below it, by any path.
    const BELOW_DESC: &[&str] = &[
        "crate::layout",
        "crate::kernels",
        "crate::exec",
        "layout::",
        "kernels::",
        "exec::",
        "super::super",
        "wgpu",
    ];

    /// What `src/layout` may not name: the layers below it, and the operator descriptions.
    const BELOW_LAYOUT: &[&str] = &[
        "crate::kernels",
        "crate::exec",
        "kernels::",
        "exec::",
        "wgpu",
        "BitXorDesc",
        "LogicalXorDesc",
        "BitwiseXorDesc",
    ];

    /// Every `.rs` file under `src/<dir>`, nested folders included.
    fn sources(dir: &str) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut pending = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir)];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("a source folder") {
                let path = entry.expect("a folder entry").path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        assert!(!files.is_empty(), "no sources under src/{dir}");
        files
    }

    /// `(line number, forbidden text)` for each forbidden text in the code of `source`: every
    /// line up to its `//` (comments and doc comments left out).
    fn violations(source: &str, forbidden: &[&str]) -> Vec<(usize, String)> {
        let mut found = Vec::new();
        for (n, line) in source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for text in forbidden {
                if code.contains(text) {
                    found.push((n + 1, text.to_string()));
                }
            }
        }
        found
    }

    fn check(dir: &str, forbidden: &[&str]) {
        let mut found = Vec::new();
        for path in sources(dir) {
            let source = std::fs::read_to_string(&path).expect("a readable source");
            for (line, text) in violations(&source, forbidden) {
                found.push(format!("{}:{line}: {text}", path.display()));
            }
        }
        assert!(
            found.is_empty(),
            "src/{dir} names a layer below it: {found:#?}"
        );
    }

    /// Lowering and merging are pure: no wgpu type, nothing of the context or the encoder.
    #[test]
    fn lowering_and_merging_touch_no_device() {
        let forbidden = &[
            "wgpu",
            "super::context",
            "super::shared",
            "super::encode",
            "Context",
            "&Shared",
        ];
        let mut found = Vec::new();
        for file in ["exec/lower.rs", "exec/merge.rs"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file);
            let source = std::fs::read_to_string(&path).expect("a readable source");
            for (line, text) in violations(&source, forbidden) {
                found.push(format!("{file}:{line}: {text}"));
            }
        }
        assert!(
            found.is_empty(),
            "lowering or merging needs a device: {found:#?}"
        );
    }

    #[test]
    fn descriptions_name_nothing_below_them() {
        check("desc", BELOW_DESC);
    }

    #[test]
    fn layout_names_neither_the_layers_below_nor_the_operator_descriptions() {
        check("layout", BELOW_LAYOUT);
    }

    /// The crate's files and their uses of one another: for each file (its path under `src`),
    /// the other files whose items its code names.
    type Graph = BTreeMap<String, BTreeSet<String>>;

    /// `source` without its comments, and with the contents of its string and character
    /// literals left out, so that neither a path in a doc comment nor a brace in a string is
    /// read as code.
    fn code_only(source: &str) -> String {
        let chars: Vec<char> = source.chars().collect();
        let at = |i: usize| chars.get(i).copied();
        let after_word =
            |i: usize| i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let mut code = String::with_capacity(source.len());
        let mut i = 0;
        while let Some(c) = at(i) {
            if c == '/' && at(i + 1) == Some('/') {
                while at(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
            } else if c == '/' && at(i + 1) == Some('*') {
                // Block comments nest.
                let mut depth = 0;
                while let Some(c) = at(i) {
                    if c == '/' && at(i + 1) == Some('*') {
                        depth += 1;
                        i += 2;
                    } else if c == '*' && at(i + 1) == Some('/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                code.push(' ');
            } else if let (false, Some(len)) = (after_word(i), raw_string(&chars[i..])) {
                code.push_str("\"\"");
                i += len;
            } else if c == '"' {
                i += 1;
                while at(i).is_some_and(|c| c != '"') {
                    i += if at(i) == Some('\\') { 2 } else { 1 };
                }
                code.push_str("\"\"");
                i += 1;
            } else if c == '\'' && (at(i + 1) == Some('\\') || at(i + 2) == Some('\'')) {
                // A character literal ('x', '\'', '\u{7f}'); a lifetime ('a) has no closing
                // quote after one character.
                i += if at(i + 1) == Some('\\') { 3 } else { 2 };
                while at(i).is_some_and(|c| c != '\'') {
                    i += 1;
                }
                code.push_str("' '");
                i += 1;
            } else {
                code.push(c);
                i += 1;
            }
        }
        code
    }

    /// The length of the raw string literal (`r"..."`, `r#"..."#`, `br"..."`) that starts
    /// `chars`, if one does.
    fn raw_string(chars: &[char]) -> Option<usize> {
        let r = usize::from(chars.first() == Some(&'b'));
        if chars.get(r) != Some(&'r') {
            return None;
        }
        let hashes = chars[r + 1..].iter().take_while(|&&c| c == '#').count();
        let open = r + 1 + hashes;
        if chars.get(open) != Some(&'"') {
            return None;
        }
        let close: Vec<char> = std::iter::once('"')
            .chain(std::iter::repeat_n('#', hashes))
            .collect();
        let last = chars.len().checked_sub(close.len())?;
        let end = (open + 1..=last).find(|&k| chars[k..k + close.len()] == close[..])?;
        Some(end + close.len())
    }

    fn is_word(token: &str) -> bool {
        token
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
    }

    /// The tokens of `code`: words, `::`, and every other character but white space alone.
    fn tokens(code: &str) -> Vec<String> {
        let chars: Vec<char> = code.chars().collect();
        let mut found = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_alphanumeric() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                found.push(chars[start..i].iter().collect());
            } else if c == ':' && chars.get(i + 1) == Some(&':') {
                found.push("::".to_string());
                i += 2;
            } else {
                if !c.is_whitespace() {
                    found.push(c.to_string());
                }
                i += 1;
            }
        }
        found
    }

    /// One path of a `use` item.
    #[derive(Debug)]
    struct Import {
        /// The inline module (`mod tests { ... }`) it stands in, inside its file; empty at the
        /// top of the file.
        at: Vec<String>,
        /// Whether it is re-exported (`pub use`, `pub(crate) use`, ...).
        public: bool,
        /// The imported path, `self` left out (`use a::{self}` imports `a`).
        path: Vec<String>,
        /// The name it brings into scope; `None` for a glob.
        name: Option<String>,
    }

    /// What one file's code says about modules.
    #[derive(Debug, Default)]
    struct Parsed {
        /// The inline modules inside the file, by their path from the file's module.
        inline: Vec<Vec<String>>,
        /// Every path of every `use` item.
        imports: Vec<Import>,
        /// Every other path of two segments or more, with the inline module it stands in.
        paths: Vec<(Vec<String>, Vec<String>)>,
    }

    /// Reads the use tree at `t[*i]` (after `use`, or inside its braces) under `prefix`.
    fn use_tree(
        t: &[String],
        i: &mut usize,
        prefix: Vec<String>,
        found: &mut Vec<(Vec<String>, Option<String>)>,
    ) {
        let tok = |k: usize| t.get(k).map_or("", String::as_str);
        let mut path = prefix;
        loop {
            match tok(*i) {
                "::" => *i += 1,
                "*" => {
                    *i += 1;
                    found.push((path, None));
                    return;
                }
                "{" => {
                    *i += 1;
                    while !matches!(tok(*i), "}" | "") {
                        use_tree(t, i, path.clone(), found);
                        if tok(*i) == "," {
                            *i += 1;
                        }
                    }
                    *i += 1;
                    return;
                }
                segment if is_word(segment) => {
                    path.push(segment.to_string());
                    *i += 1;
                    if tok(*i) == "::" {
                        continue;
                    }
                    if segment == "self" && path.len() > 1 {
                        path.pop();
                    }
                    let mut name = path.last().cloned().unwrap_or_default();
                    if tok(*i) == "as" {
                        name = tok(*i + 1).to_string();
                        *i += 2;
                    }
                    found.push((path, Some(name)));
                    return;
                }
                _ => return,
            }
        }
    }

    /// The imports, paths and inline modules of one file's code (see [`code_only`]).
    fn parse(code: &str) -> Parsed {
        let t = tokens(code);
        let tok = |k: usize| t.get(k).map_or("", String::as_str);
        let mut parsed = Parsed::default();
        // One entry per open brace: the inline module it opens, if any.
        let mut braces: Vec<Option<String>> = Vec::new();
        let mut opening: Option<String> = None;
        let mut i = 0;
        while i < t.len() {
            let at: Vec<String> = braces.iter().flatten().cloned().collect();
            match tok(i) {
                "{" => {
                    braces.push(opening.take());
                    i += 1;
                }
                "}" => {
                    braces.pop();
                    i += 1;
                }
                "mod" if is_word(tok(i + 1)) => {
                    if tok(i + 2) == "{" {
                        opening = Some(tok(i + 1).to_string());
                        parsed
                            .inline
                            .push([at, vec![tok(i + 1).to_string()]].concat());
                    }
                    i += 2;
                }
                "use" => {
                    // `pub use`, or `pub(crate) use` and the like.
                    let mut j = i;
                    if j > 0 && tok(j - 1) == ")" {
                        while j > 0 && tok(j - 1) != "(" {
                            j -= 1;
                        }
                        j = j.saturating_sub(1);
                    }
                    let public = j > 0 && tok(j - 1) == "pub";
                    i += 1;
                    let mut found = Vec::new();
                    use_tree(&t, &mut i, Vec::new(), &mut found);
                    for (path, name) in found {
                        parsed.imports.push(Import {
                            at: at.clone(),
                            public,
                            path,
                            name,
                        });
                    }
                }
                word if is_word(word) && tok(i + 1) == "::" && (i == 0 || tok(i - 1) != "::") => {
                    let mut path = vec![word.to_string()];
                    i += 1;
                    while tok(i) == "::" && is_word(tok(i + 1)) {
                        path.push(tok(i + 1).to_string());
                        i += 2;
                    }
                    parsed.paths.push((at, path));
                }
                _ => i += 1,
            }
        }
        parsed
    }

    /// The module a file holds: `exec/batch.rs` is `["exec", "batch"]`, `exec/mod.rs` is
    /// `["exec"]`, `lib.rs` the crate root, `[]`.
    fn module_of(file: &str) -> Vec<String> {
        let mut module: Vec<String> = file
            .trim_end_matches(".rs")
            .split('/')
            .map(str::to_string)
            .collect();
        if module.last().is_some_and(|m| m == "mod") || module == ["lib"] {
            module.pop();
        }
        module
    }

    /// The crate's files, parsed, and its modules.
    struct Crate {
        /// Each file, by its path under `src`: its module and what its code says.
        files: BTreeMap<String, (Vec<String>, Parsed)>,
        /// Each module, inline ones included, and the file it stands in.
        modules: BTreeMap<Vec<String>, String>,
    }

    impl Crate {
        /// `sources` holds each file's path under `src` and its text.
        fn new(sources: &[(String, String)]) -> Crate {
            let mut files = BTreeMap::new();
            let mut modules = BTreeMap::new();
            for (file, text) in sources {
                let module = module_of(file);
                let parsed = parse(&code_only(text));
                for inline in &parsed.inline {
                    modules.insert([module.clone(), inline.clone()].concat(), file.clone());
                }
                modules.insert(module.clone(), file.clone());
                files.insert(file.clone(), (module, parsed));
            }
            Crate { files, modules }
        }

        /// The file that defines what `path` names from inside module `from`: a module's own
        /// file for a module, and for an item the file of the module it is named in, or,
        /// where that module imports it (a `mod.rs` re-exporting a child's item), the file
        /// the import leads to. `None` for a path outside the crate.
        fn resolve(&self, from: &[String], path: &[String]) -> Option<String> {
            let (mut module, mut rest) = match path.first()?.as_str() {
                "crate" => (Vec::new(), &path[1..]),
                "self" => (from.to_vec(), &path[1..]),
                "super" => {
                    let up = path.iter().take_while(|s| *s == "super").count();
                    (from[..from.len().checked_sub(up)?].to_vec(), &path[up..])
                }
                // Otherwise only a child module's name starts a path into the crate.
                head => {
                    let child = [from.to_vec(), vec![head.to_string()]].concat();
                    self.modules.get(&child)?;
                    (child, &path[1..])
                }
            };
            while let Some(first) = rest.first() {
                let child = [module.clone(), vec![first.clone()]].concat();
                if self.modules.contains_key(&child) {
                    module = child;
                    rest = &rest[1..];
                    continue;
                }
                let file = &self.modules[&module];
                let (file_module, parsed) = &self.files[file];
                let inline = &module[file_module.len()..];
                let import = parsed
                    .imports
                    .iter()
                    .find(|im| im.at == inline && im.name.as_deref() == Some(first.as_str()));
                return match import {
                    Some(im) => {
                        self.resolve(&module, &[im.path.clone(), rest[1..].to_vec()].concat())
                    }
                    None => Some(file.clone()),
                };
            }
            Some(self.modules[&module].clone())
        }

        /// Whether `import`, in the file that holds `module`, is a declaration rather than a
        /// use: a re-export of a child file's item (`pub use x::Name` in a `mod.rs`).
        fn declares(&self, module: &[String], file: &str, import: &Import) -> bool {
            let head = match import.path.first().map(String::as_str) {
                Some("self") => import.path.get(1),
                _ => import.path.first(),
            };
            import.public
                && import.at.is_empty()
                && head.is_some_and(|head| {
                    let child = [module.to_vec(), vec![head.clone()]].concat();
                    self.modules.get(&child).is_some_and(|f| f != file)
                })
        }

        /// Each file and the other files it uses.
        fn graph(&self) -> Graph {
            let mut graph = Graph::new();
            for (file, (module, parsed)) in &self.files {
                let mut uses = BTreeSet::new();
                for import in &parsed.imports {
                    if !self.declares(module, file, import) {
                        let from = [module.clone(), import.at.clone()].concat();
                        uses.extend(self.resolve(&from, &import.path));
                    }
                }
                for (at, path) in &parsed.paths {
                    uses.extend(self.resolve(&[module.clone(), at.clone()].concat(), path));
                }
                uses.remove(file);
                graph.insert(file.clone(), uses);
            }
            graph
        }
    }

    /// The circles a depth-first walk of `graph` closes, each as the files along it with the
    /// first again at the end; empty when and only when the graph has no circle.
    fn circles(graph: &Graph) -> Vec<Vec<String>> {
        fn walk<'g>(
            node: &'g str,
            graph: &'g Graph,
            open: &mut Vec<&'g str>,
            done: &mut BTreeSet<&'g str>,
            found: &mut Vec<Vec<String>>,
        ) {
            open.push(node);
            for next in graph.get(node).into_iter().flatten() {
                if let Some(start) = open.iter().position(|n| n == next) {
                    let mut circle: Vec<String> =
                        open[start..].iter().map(|n| n.to_string()).collect();
                    circle.push(next.clone());
                    found.push(circle);
                } else if !done.contains(next.as_str()) {
                    walk(next, graph, open, done, found);
                }
            }
            open.pop();
            done.insert(node);
        }
        let mut done = BTreeSet::new();
        let mut found = Vec::new();
        for node in graph.keys() {
            if !done.contains(node.as_str()) {
                walk(node, graph, &mut Vec::new(), &mut done, &mut found);
            }
        }
        found
    }

    fn graph_of(edges: &[(&str, &str)]) -> Graph {
        let mut graph = Graph::new();
        for (from, to) in edges {
            graph
                .entry(from.to_string())
                .or_default()
                .insert(to.to_string());
            graph.entry(to.to_string()).or_default();
        }
        graph
    }

    /// The graph of this crate's files (`src/**/*.rs`).
    fn crate_graph() -> Graph {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let sources: Vec<(String, String)> = sources("")
            .into_iter()
            .map(|path| {
                let name = path.strip_prefix(&src).expect("a file under src");
                let text = std::fs::read_to_string(&path).expect("a readable source");
                (name.to_string_lossy().replace('\\', "/"), text)
            })
            .collect();
        Crate::new(&sources).graph()
    }

    #[test]
    fn no_file_uses_a_file_that_uses_it_back() {
        let graph = crate_graph();
        // The graph sees the crate's uses: plain, through a folder's re-exports, by `super`.
        for (from, to) in [
            ("exec/encode.rs", "exec/merge.rs"),
            ("layout/plan.rs", "desc/operands.rs"),
            ("layout/coalesce.rs", "layout/mod.rs"),
            ("kernels/pipelines.rs", "scope.rs"),
        ] {
            assert!(
                graph[from].contains(to),
                "{from} uses {to}, but the graph has {:?}",
                graph[from]
            );
        }
        let found = circles(&graph);
        assert!(
            found.is_empty(),
            "files that use one another in a circle (each file uses the next):\n{}",
            found
                .iter()
                .map(|circle| circle.join(" -> "))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    /// The module docs of `exec/mod.rs` list its files lowest first (`//! 1. \`signal.rs\`: ...`);
    /// the list holds every file, and each file uses only files listed before it.
    #[test]
    fn the_execution_files_use_only_the_ones_listed_before_them() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/exec/mod.rs");
        let docs = std::fs::read_to_string(path).expect("a readable source");
        let order: Vec<String> = docs
            .lines()
            .filter_map(|line| {
                let (number, rest) = line.strip_prefix("//! ")?.split_once(". `")?;
                number.parse::<usize>().ok()?;
                Some(format!("exec/{}", rest.split('`').next()?))
            })
            .collect();
        let graph = crate_graph();
        let files: BTreeSet<&String> = graph
            .keys()
            .filter(|f| f.starts_with("exec/") && *f != "exec/mod.rs")
            .collect();
        assert_eq!(
            order.iter().collect::<BTreeSet<_>>(),
            files,
            "exec/mod.rs lists {order:?}"
        );
        assert_eq!(order.len(), files.len(), "a file listed twice: {order:?}");
        for (i, file) in order.iter().enumerate() {
            for used in graph[file].iter().filter(|f| f.starts_with("exec/")) {
                assert!(
                    order[..i].contains(used),
                    "{file} uses {used}, which exec/mod.rs does not list before it"
                );
            }
        }
    }

    #[test]
    fn the_circle_finder_finds_a_circle_and_only_a_circle() {
        let tree = graph_of(&[("a", "b"), ("a", "c"), ("b", "c"), ("c", "d")]);
        assert!(circles(&tree).is_empty(), "{:?}", circles(&tree));
        let circle = graph_of(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("e", "d")]);
        assert_eq!(circles(&circle), [["a", "b", "c", "a"]]);
        let itself = graph_of(&[("a", "b"), ("b", "b")]);
        assert_eq!(circles(&itself), [["b", "b"]]);
    }

    #[test]
    fn the_graph_follows_re_exports_and_skips_declarations_comments_and_strings() {
        let sources = |a_uses: &str| {
            [
                ("lib.rs", "mod a;\nmod b;\npub use a::Thing;\n"),
                (
                    "a/mod.rs",
                    "//! Built on crate::b::Far.\nmod x;\nmod y;\npub use x::Thing;\n\
                     pub(crate) use y::{Other as Renamed, self};\n",
                ),
                ("a/x.rs", a_uses),
                (
                    "a/y.rs",
                    "pub struct Other;\n\
                     fn f() -> crate::Thing { let _ = \"super::x::{\"; let _ = '{'; crate::a::Thing }\n\
                     const RAW: &str = r#\"a \" crate::b::Far {\"#;\n",
                ),
                ("b.rs", "pub struct Far;\nfn g(_: super::a::Renamed) {}\n"),
            ]
            .map(|(file, text)| (file.to_string(), text.to_string()))
        };
        let graph = Crate::new(&sources(
            "/// See [`super::y`].\npub struct Thing;\n\
             #[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::b::Far;\n}\n",
        ))
        .graph();
        // Declarations only in `lib.rs` and `a/mod.rs`.
        let mut expect = graph_of(&[("a/x.rs", "b.rs"), ("a/y.rs", "a/x.rs"), ("b.rs", "a/y.rs")]);
        expect.insert("lib.rs".to_string(), BTreeSet::new());
        expect.insert("a/mod.rs".to_string(), BTreeSet::new());
        assert_eq!(graph, expect);
        assert_eq!(circles(&graph), [["a/x.rs", "b.rs", "a/y.rs", "a/x.rs"]]);
        let graph = Crate::new(&sources("pub struct Thing;\n")).graph();
        assert!(circles(&graph).is_empty(), "{graph:?}");
    }

    #[test]
    fn the_check_sees_code_and_skips_comments() {
        let source = "//! Planned with crate::layout.\n\
                      /// [`crate::layout::Plan`]\n\
                      use crate::error::Error; // not crate::layout\n\
                      use crate::{desc::DataType, layout::Plan};\n\
                      fn f(_: &wgpu::Buffer) {}\n";
        assert_eq!(
            violations(source, BELOW_DESC),
            [(4, "layout::".to_string()), (5, "wgpu".to_string())]
        );
        assert_eq!(
            violations("let d: BitwiseXorDesc;", BELOW_LAYOUT),
            [(1, "BitwiseXorDesc".to_string())]
        );
    }
}

/// The README's code blocks, compiled as doc tests so that they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
