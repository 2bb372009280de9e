//! What every case with data runs: the operands laid out in sentinel-filled buffers, the
//! inputs written, the call recorded and submitted, every buffer read back whole and checked.

use super::*;

/// Runs a valid case that the operator accepted: literal data, generated data, or none
/// (validation only, already done by the caller).
pub(super) async fn run_valid(
    ctx: &Context,
    case: &Case,
    compiled: &Maker<'_>,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
) -> Result<(), String> {
    let [a, b, out] = operands;
    if let Some(generator) = &case.generator {
        let (ga, gb) = generated_inputs(generator, operands)?;
        for (t, data, operand, want) in [
            ("a", Some(&ga), a, &case.a_sha256),
            ("b", gb.as_ref(), b, &case.b_sha256),
        ] {
            let Some(data) = data else { continue };
            let want = want
                .as_deref()
                .ok_or_else(|| format!("missing `{t}_sha256`"))?;
            let got = sha256_hex(&le_bytes(data, operand.width));
            if !got.eq_ignore_ascii_case(want) {
                return Err(format!(
                    "generated {t} has SHA-256 {got}, the case says {want} (generator mismatch)"
                ));
            }
        }
        let expect = Generated {
            sha256: case
                .expected_sha256
                .as_deref()
                .ok_or("missing `expected_sha256`")?,
            count: case.expected_count.ok_or("missing `expected_count`")?,
            head: case.expected_head.as_deref(),
            tail: case.expected_tail.as_deref(),
        };
        return execute(
            ctx,
            compiled,
            seed,
            alias,
            operands,
            [Some(&ga), gb.as_ref()],
            Check::Generated(expect),
        )
        .await;
    }

    let two = case.op.inputs() == 2;
    match [&case.a, &case.b, &case.expected] {
        [None, None, None] => Ok(()), // validation_only: checked by the caller
        [Some(da), db, Some(expected)] if db.is_some() == two => {
            check_data(da, a)?;
            if let Some(db) = db {
                check_data(db, b)?;
            }
            let count = out.element_count();
            if expected.len() as u64 != count {
                return Err(format!(
                    "`expected` has {} values for {count} output elements",
                    expected.len()
                ));
            }
            let mask = width_mask(out.width);
            if let Some((i, v)) = expected.iter().enumerate().find(|&(_, &v)| v & !mask != 0) {
                return Err(format!(
                    "`expected`[{i}] = {v:#x} does not fit in {} bytes",
                    out.width
                ));
            }
            execute(
                ctx,
                compiled,
                seed,
                alias,
                operands,
                [Some(da), db.as_ref()],
                Check::Values(expected),
            )
            .await
        }
        _ if two => Err("a case with data needs all of `a`, `b` and `expected`".to_string()),
        _ => Err("a one-input case with data needs `a` and `expected`".to_string()),
    }
}

/// An error case whose operator was created: its refusal must come when it is recorded, with
/// the case's rule. Inputs are the case's data where it fits the operands; otherwise they
/// keep the sentinel (the data of an error case only matters if the operator wrongly runs).
pub(super) async fn run_error_case(
    ctx: &Context,
    case: &Case,
    compiled: &Maker<'_>,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
    kind: &str,
) -> Result<(), String> {
    let fits = |o: usize| {
        [&case.a, &case.b][o]
            .as_ref()
            .filter(|data| check_data(data, &operands[o]).is_ok())
    };
    let inputs = [fits(0), fits(1)];
    execute(
        ctx,
        compiled,
        seed,
        alias,
        operands,
        inputs,
        Check::Error(kind),
    )
    .await
}

/// Data must hold one value per element position the strides reach (the physical buffer for
/// strided DirectML tensors, the logical elements otherwise), each within the element width.
pub(super) fn check_data(data: &[u64], operand: &Operand) -> Result<(), String> {
    let span = operand
        .span()
        .ok_or_else(|| format!("{}: span overflows", operand.name))?;
    if data.len() as u64 != span {
        return Err(format!(
            "`{}` has {} values; the tensor spans {span} elements",
            operand.name,
            data.len()
        ));
    }
    let mask = width_mask(operand.width);
    if let Some((i, v)) = data.iter().enumerate().find(|&(_, &v)| v & !mask != 0) {
        return Err(format!(
            "`{}`[{i}] = {v:#x} does not fit in {} bytes",
            operand.name, operand.width
        ));
    }
    Ok(())
}

/// The inputs of a `generator` case (B's only where the case has a stream for it).
pub(super) fn generated_inputs(
    generator: &Generator,
    operands: &[Operand; 3],
) -> Result<(Vec<u64>, Option<Vec<u64>>), String> {
    let mut out = Vec::new();
    for ((t, stream), operand) in [("a", Some(generator.a)), ("b", generator.b)]
        .into_iter()
        .zip(operands)
    {
        let Some(stream) = stream else {
            out.push(None);
            continue;
        };
        let span = operand
            .span()
            .ok_or_else(|| format!("{t}: span overflows"))?;
        if stream.count != span {
            return Err(format!(
                "generator {t}.count is {}; the tensor spans {span} elements",
                stream.count
            ));
        }
        out.push(Some(generate(
            stream.seed,
            stream.count,
            stream.mode,
            operand.width,
        )));
    }
    let b = out.pop().expect("b");
    let a = out.pop().expect("a").expect("A's stream");
    Ok((a, b))
}

/// The expectations of a generator case.
pub(super) struct Generated<'a> {
    pub(super) sha256: &'a str,
    pub(super) count: u64,
    pub(super) head: Option<&'a [u64]>,
    pub(super) tail: Option<&'a [u64]>,
}

/// What a run must show.
pub(super) enum Check<'a> {
    /// The output's logical row-major values.
    Values(&'a [u64]),
    /// Digest, count, head and tail of the output.
    Generated(Generated<'a>),
    /// The call is refused with this rule.
    Error(&'a str),
}

/// One tensor as the runner lays it out in a buffer.
#[derive(Debug)]
pub(super) struct Operand {
    pub(super) name: &'static str,
    /// Element size in bytes.
    pub(super) width: u64,
    pub(super) sizes: Vec<u64>,
    /// Element strides (packed row-major when the case gives none).
    pub(super) strides: Vec<u64>,
    /// The case's `*_offset_bytes`.
    pub(super) offset: u64,
    /// The size of the bound range: TotalTensorSizeInBytes, or the bytes rounded up to 4.
    pub(super) bind_bytes: u64,
}

impl Operand {
    pub(super) fn element_count(&self) -> u64 {
        self.sizes.iter().product()
    }

    /// Elements from the first to the last position reached, inclusive (0 when empty).
    pub(super) fn span(&self) -> Option<u64> {
        if self.sizes.contains(&0) {
            return Some(0);
        }
        self.sizes
            .iter()
            .zip(&self.strides)
            .try_fold(1u64, |acc, (&n, &s)| {
                acc.checked_add((n - 1).checked_mul(s)?)
            })
    }
}

/// Where a case's operands sit: each one's buffer and byte offset, and each buffer's size and
/// name. A one-input operator's B is not bound: it has no buffer, and stands for A.
pub(super) struct Placement {
    /// Which operands the call binds (A, B, the output).
    present: [bool; 3],
    unary: bool,
    buffer_of: [usize; 3],
    offsets: [u64; 3],
    /// Each buffer's name (the operands it holds: `a=out`) and size.
    names: Vec<String>,
    sizes: Vec<u64>,
}

impl Placement {
    /// Each operand goes to the buffer (and offset) of the operand it aliases; a buffer ends
    /// [`TRAILING_BYTES`] after its last operand. Refused where a buffer would exceed what
    /// the runner allocates (the message says what `check` expected).
    fn new(
        ctx: &Context,
        unary: bool,
        alias: Alias,
        operands: &[Operand; 3],
        check: &Check<'_>,
    ) -> Result<Placement, String> {
        let present = [true, !unary, true];
        let targets = alias.targets();
        let mut buffer_of = [0usize; 3];
        let mut owners: Vec<usize> = Vec::new();
        for o in (0..3).filter(|&o| present[o]) {
            let t = targets[o];
            buffer_of[o] = match owners.iter().position(|&x| x == t) {
                Some(i) => i,
                None => {
                    owners.push(t);
                    owners.len() - 1
                }
            };
        }
        let mut offsets: [u64; 3] = std::array::from_fn(|o| operands[targets[o]].offset);
        if unary {
            buffer_of[1] = buffer_of[0];
            offsets[1] = offsets[0];
        }
        let mut names = vec![String::new(); owners.len()];
        let mut sizes = vec![0u64; owners.len()];
        for o in (0..3).filter(|&o| present[o]) {
            let end = offsets[o]
                .checked_add(operands[o].bind_bytes)
                .and_then(|e| e.checked_add(TRAILING_BYTES))
                .ok_or("buffer size overflows")?;
            let k = buffer_of[o];
            sizes[k] = sizes[k].max(end.div_ceil(4) * 4);
            if !names[k].is_empty() {
                names[k].push('=');
            }
            names[k].push_str(operands[o].name);
        }
        let max_buffer = ctx.device().limits().max_buffer_size.min(MAX_CASE_BUFFER);
        if let Some(&too_big) = sizes.iter().find(|&&s| s > max_buffer) {
            let expected = match check {
                Check::Error(kind) => {
                    format!("expected error {kind}, but the operator was created; ")
                }
                _ => String::new(),
            };
            return Err(format!(
                "{expected}running it needs a {too_big}-byte buffer, more than this runner \
                 allocates ({max_buffer})"
            ));
        }
        Ok(Placement {
            present,
            unary,
            buffer_of,
            offsets,
            names,
            sizes,
        })
    }

    /// Host images of the buffers: sentinel bytes from `seed`, then the inputs at the
    /// positions their strides give. Where A and B share a buffer they must agree on every
    /// byte they both write.
    fn images(
        &self,
        seed: u64,
        operands: &[Operand; 3],
        inputs: [Option<&Vec<u64>>; 2],
    ) -> Result<Vec<Vec<u8>>, String> {
        let mut images: Vec<Vec<u8>> = self
            .sizes
            .iter()
            .enumerate()
            .map(|(k, &size)| {
                random_bytes(
                    seed ^ (k as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407),
                    size as usize,
                )
            })
            .collect();
        let mut written: Vec<Vec<bool>> = self
            .sizes
            .iter()
            .enumerate()
            .map(|(k, &s)| {
                let shared = !self.unary && self.buffer_of[0] == k && self.buffer_of[1] == k;
                vec![false; if shared { s as usize } else { 0 }]
            })
            .collect();
        for (o, data) in inputs.iter().enumerate() {
            let Some(data) = data else { continue };
            let operand = &operands[o];
            let k = self.buffer_of[o];
            let width = operand.width as usize;
            let track = !written[k].is_empty();
            for p in positions(&operand.sizes, &operand.strides) {
                let at = (self.offsets[o] + p * operand.width) as usize;
                let bytes = &data[p as usize].to_le_bytes()[..width];
                if track {
                    let agreed =
                        (0..width).all(|j| !written[k][at + j] || images[k][at + j] == bytes[j]);
                    if !agreed {
                        return Err(format!(
                            "the `a` and `b` data disagree on the range they share (bytes \
                             {at}..{})",
                            at + width
                        ));
                    }
                    written[k][at..at + width].fill(true);
                }
                images[k][at..at + width].copy_from_slice(bytes);
            }
        }
        Ok(images)
    }

    /// Each operand's binding: (buffer, byte offset, bound bytes); a one-input operator's B
    /// is bound where A is.
    fn ranges(&self, operands: &[Operand; 3]) -> [(usize, u64, u64); 3] {
        std::array::from_fn(|o| {
            let from = if self.present[o] { o } else { 0 };
            (
                self.buffer_of[o],
                self.offsets[o],
                operands[from].bind_bytes,
            )
        })
    }

    /// Where operand `o`'s elements sit.
    fn layout_of(&self, operands: &[Operand; 3], o: usize) -> OutputLayout {
        let operand = &operands[o];
        OutputLayout {
            buffer: self.buffer_of[o],
            offset: self.offsets[o],
            width: operand.width,
            sizes: operand.sizes.clone(),
            strides: operand.strides.clone(),
        }
    }
}

/// Every buffer read back whole.
async fn read_all(ctx: &Context, buffers: &[wgpu::Buffer]) -> Result<Vec<Vec<u8>>, String> {
    engine::read_back(ctx, buffers)
        .await
        .map_err(|e| format!("reading the buffers back: [{}] {e}", e.rule()))
}

/// Lays the operands out in sentinel-filled buffers, writes the inputs, makes the operator
/// where it owns inputs, records and submits the call, reads every buffer back whole and
/// checks it.
pub(super) async fn execute(
    ctx: &Context,
    compiled: &Maker<'_>,
    seed: u64,
    alias: Alias,
    operands: &[Operand; 3],
    inputs: [Option<&Vec<u64>>; 2],
    check: Check<'_>,
) -> Result<(), String> {
    let place = Placement::new(ctx, compiled.inputs() == 1, alias, operands, &check)?;
    let mut images = place.images(seed, operands, inputs)?;
    let buffers = engine::upload(ctx, &place.names, &images);
    let ranges = place.ranges(operands);
    let made;
    let (compiled, owned) = match compiled {
        Maker::Ready(compiled) => (&**compiled, [false; 2]),
        &Maker::Owning { op, descs, owned } => {
            let all = engine::bindings(&buffers, ranges);
            let given = OwnedInputs {
                a: all.a.binding().filter(|_| owned[0]),
                b: all.b.binding().filter(|_| owned[1]),
            };
            match gpu_xor_testkit::dml::operator(op, ctx, descs.clone(), &given) {
                Ok(compiled) => {
                    made = compiled;
                    (&made, owned)
                }
                Err(e) => {
                    let Check::Error(kind) = check else {
                        return Err(format!(
                            "creating the operator with its owned inputs failed: [{}] {e}",
                            e.rule()
                        ));
                    };
                    same_rule(kind, &e, "creating the operator with its owned inputs")?;
                    let after = read_all(ctx, &buffers).await?;
                    return compare_buffers(&place.names, &after, &images, None)
                        .map_err(|e| format!("the refused operator changed a byte: {e}"));
                }
            }
        }
    };
    spoil_owned(ctx, &place, operands, &buffers, &mut images, owned);
    // Inputs the call leaves unbound: those the operator owns, and a one-input operator's B.
    let result = engine::submit(
        ctx,
        compiled,
        &engine::call_bindings(&buffers, ranges, owned, if place.unary { 1 } else { 2 }),
    );
    let after = read_all(ctx, &buffers).await?;
    let summary = match (result, &check) {
        (Err(e), Check::Error(kind)) => {
            same_rule(kind, &e, "recording the operator")?;
            return compare_buffers(&place.names, &after, &images, None)
                .map_err(|e| format!("the refused call changed a byte: {e}"));
        }
        (Ok(_), Check::Error(kind)) => {
            return Err(format!(
                "expected error {kind}, but the operator was created and the call succeeded"
            ));
        }
        (Err(e), _) => return Err(format!("the call failed: [{}] {e}", e.rule())),
        (Ok(summary), _) => summary,
    };
    // In place only where the output shares its range with an input the call binds.
    let bound_alias = match alias {
        Alias::OutA => !owned[0],
        Alias::OutB => !owned[1],
        Alias::All => !owned[0] || !owned[1],
        Alias::None | Alias::AB => false,
    };
    if bound_alias && !summary.in_place() {
        return Err(format!(
            "the output is bound to an input's range ({alias:?}) but the call was not in place: \
             {summary:?}"
        ));
    }
    let layout = place.layout_of(operands, 2);
    let values = match check {
        Check::Values(expected) => expected.to_vec(),
        Check::Generated(g) => {
            let values = layout.read_values(&after[layout.buffer]);
            check_generated(&g, &values, operands[2].width)?;
            values
        }
        Check::Error(_) => unreachable!("handled above"),
    };
    let mut want = images;
    layout.write_values(&mut want[layout.buffer], &values);
    compare_buffers(&place.names, &after, &want, Some(&layout))
}

/// The operator has its own copy of each owned input: other bytes go over the caller's
/// buffer of it ([`engine::spoil`]), so that a library that read the caller's buffer instead
/// fails the case. A buffer that an input bound with the call reads too is left as it is.
fn spoil_owned(
    ctx: &Context,
    place: &Placement,
    operands: &[Operand; 3],
    buffers: &[wgpu::Buffer],
    images: &mut [Vec<u8>],
    owned: [bool; 2],
) {
    for (k, buffer) in buffers.iter().enumerate() {
        let held: Vec<usize> = (0..2)
            .filter(|&i| place.present[i] && place.buffer_of[i] == k)
            .collect();
        if held.is_empty() || held.iter().any(|&i| !owned[i]) {
            continue;
        }
        let layouts: Vec<(OutputLayout, Spoil)> = held
            .into_iter()
            .map(|i| (place.layout_of(operands, i), Spoil::for_input(i, owned)))
            .collect();
        let inputs: Vec<(&OutputLayout, Spoil)> = layouts.iter().map(|(l, h)| (l, *h)).collect();
        images[k] = engine::spoil(&images[k], &inputs);
        ctx.queue().write_buffer(buffer, 0, &images[k]);
    }
}

pub(super) fn check_generated(g: &Generated<'_>, values: &[u64], width: u64) -> Result<(), String> {
    if values.len() as u64 != g.count {
        return Err(format!(
            "the output has {} elements, expected_count is {}",
            values.len(),
            g.count
        ));
    }
    let n = values.len();
    if let Some(head) = g.head {
        let got = &values[..n.min(HEAD_TAIL)];
        if let Some(i) = (0..head.len().max(got.len())).find(|&i| got.get(i) != head.get(i)) {
            return Err(format!(
                "output element {i}: got {:?}, expected_head says {:?}",
                got.get(i),
                head.get(i)
            ));
        }
    }
    if let Some(tail) = g.tail {
        let got = &values[n - n.min(HEAD_TAIL)..];
        if let Some(i) = (0..tail.len().max(got.len())).find(|&i| got.get(i) != tail.get(i)) {
            return Err(format!(
                "output element {}: got {:?}, expected_tail says {:?}",
                n - got.len() + i,
                got.get(i),
                tail.get(i)
            ));
        }
    }
    let digest = sha256_hex(&le_bytes(values, width));
    if !digest.eq_ignore_ascii_case(g.sha256) {
        return Err(format!(
            "output SHA-256 {digest}, expected_sha256 {} (head and tail match)",
            g.sha256
        ));
    }
    Ok(())
}

pub(super) fn same_rule(kind: &str, e: &Error, when: &str) -> Result<(), String> {
    if e.rule() == kind {
        Ok(())
    } else {
        Err(format!(
            "expected error {kind}, {when} failed with [{}] {e}",
            e.rule()
        ))
    }
}

pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
