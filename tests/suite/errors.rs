//! Every rule of the operators' specifications has a test that gets its typed error, and no
//! byte of any buffer changes when a call is refused: the description rules, the type tables
//! of every operator of the table at every feature level, the binding rules (a one-input
//! call's included), and random descriptions of every operator, which end in `Ok` or a typed
//! error, never a panic.

use gpu_xor::{
    Bindings, BitXorDesc, Context, DataType, DmlBinary, DmlBinaryDesc, DmlBinaryOp, DmlUnary,
    DmlUnaryDesc, DmlUnaryOp, Error, FeatureLevel, Input, LogicalXorDesc, Operator, OvBinaryDesc,
    OvBinaryOp, OvUnaryDesc, OvUnaryOp, TensorBinding, TensorDesc, TensorFlags, TensorName,
};

use crate::common::{Check, DmlCase, buffer, ctx, place, random_bytes};

fn refused(desc: &BitXorDesc) -> Error {
    let e = desc
        .validate(FeatureLevel::Fl4_1)
        .expect_err("should be refused");
    // Creating the operator refuses it the same way, before any device work.
    let e2 = DmlBinary::new(ctx(), desc).expect_err("should be refused");
    assert_eq!(e, e2);
    e
}

fn case_with(a: TensorDesc, b: TensorDesc, out: TensorDesc) -> DmlCase {
    // Buffers sized for the packed shape, so that description errors are reached first.
    let mut c = DmlCase::packed(Operator::BitXor, DataType::U8, &[16], 1);
    c.a = a;
    c.b = b;
    c.out = out;
    for buf in &mut c.buffers {
        buf.resize(256, 0x3c);
    }
    c
}

fn u8s(sizes: &[u32]) -> TensorDesc {
    TensorDesc::new(DataType::U8, sizes)
}

#[test]
fn rank_zero_and_nine_are_out_of_range() {
    let e = refused(&BitXorDesc::packed(DataType::U8, &[]));
    assert_eq!(e.rule(), "rank_out_of_range");
    let nine = [2, 1, 1, 1, 1, 1, 1, 1, 2];
    let e = refused(&BitXorDesc::packed(DataType::U8, &nine));
    assert!(
        matches!(
            e,
            Error::RankOutOfRange {
                rank: 9,
                max: 8,
                ..
            }
        ),
        "{e}"
    );
    case_with(u8s(&nine), u8s(&nine), u8s(&nine)).check_error("rank_out_of_range");
}

#[test]
fn ranks_and_sizes_must_match_exactly() {
    let e = refused(&BitXorDesc::new(u8s(&[6]), u8s(&[2, 3]), u8s(&[6])));
    assert_eq!(
        e,
        Error::RankMismatch {
            operator: Operator::BitXor,
            tensor: TensorName::B,
            rank: 2,
            expected: 1
        }
    );
    let e = refused(&BitXorDesc::new(u8s(&[2, 3]), u8s(&[2, 3]), u8s(&[2, 4])));
    assert_eq!(
        e.to_string(),
        "ELEMENT_WISE_BIT_XOR: OutputTensor Sizes {2,4} differ from ATensor Sizes {2,3}"
    );
    // No implicit broadcast.
    let e = refused(&BitXorDesc::new(u8s(&[2, 3]), u8s(&[1, 3]), u8s(&[2, 3])));
    assert_eq!(e.rule(), "shape_mismatch");
    case_with(u8s(&[2, 3]), u8s(&[1, 3]), u8s(&[2, 3])).check_error("shape_mismatch");
}

#[test]
fn zero_sizes_and_too_many_elements_are_refused() {
    let e = refused(&BitXorDesc::packed(DataType::U8, &[3, 0]));
    assert_eq!(
        e,
        Error::ZeroSize {
            tensor: TensorName::A,
            sizes: vec![3, 0]
        }
    );
    let e = refused(&BitXorDesc::packed(DataType::U8, &[65536, 65536]));
    assert_eq!(
        e,
        Error::TooManyElements {
            tensor: TensorName::A,
            elements: 1 << 32
        }
    );
    // 2^32 - 1 elements is allowed by the description.
    assert!(
        BitXorDesc::packed(DataType::U8, &[65535, 65537])
            .validate(FeatureLevel::Fl4_1)
            .is_ok()
    );
}

#[test]
fn strides_need_one_entry_per_dimension() {
    let t = u8s(&[2, 3]);
    let e = refused(&BitXorDesc::new(
        t.clone(),
        t.clone().with_strides(&[3]),
        t.clone(),
    ));
    assert_eq!(
        e,
        Error::StridesLengthMismatch {
            tensor: TensorName::B,
            strides: 1,
            rank: 2
        }
    );
    case_with(t.clone(), t.clone().with_strides(&[3]), t).check_error("strides_length_mismatch");
}

#[test]
fn total_size_below_dml_calc_buffer_tensor_size_is_refused() {
    let t = u8s(&[3]);
    let e = refused(&BitXorDesc::new(
        t.clone().with_total_size(3),
        t.clone(),
        t.clone(),
    ));
    assert_eq!(
        e,
        Error::TotalSizeTooSmall {
            tensor: TensorName::A,
            total: 3,
            minimum: 4
        }
    );
    let t = TensorDesc::new(DataType::U16, &[2, 3]).with_strides(&[5, 1]);
    let e = refused(&BitXorDesc::new(
        t.clone(),
        t.clone(),
        t.clone().with_total_size(14),
    ));
    assert_eq!(
        e,
        Error::TotalSizeTooSmall {
            tensor: TensorName::Output,
            total: 14,
            minimum: 16
        }
    );
}

#[test]
fn guaranteed_alignment_must_be_a_power_of_two_at_least_the_element_size() {
    let t = TensorDesc::new(DataType::U32, &[4]);
    for bad in [2, 3, 12, 24] {
        let e = refused(&BitXorDesc::new(
            t.clone(),
            t.clone(),
            t.clone().with_alignment(bad),
        ));
        assert_eq!(
            e,
            Error::InvalidAlignment {
                tensor: TensorName::Output,
                alignment: bad,
                element_size: 4
            }
        );
    }
    for good in [0, 4, 8, 16, 256] {
        assert!(
            BitXorDesc::new(t.clone().with_alignment(good), t.clone(), t.clone())
                .validate(FeatureLevel::Fl4_1)
                .is_ok()
        );
    }
}

#[test]
fn binding_offsets_must_be_multiples_of_16_and_the_alignment() {
    let mut c = DmlCase::packed(Operator::BitXor, DataType::U32, &[4], 2);
    c.places[1] = place(1, 8);
    let e = c.check_error("binding_offset_misaligned");
    assert_eq!(
        e,
        Error::BindingOffsetMisaligned {
            tensor: TensorName::B,
            offset: 8,
            required: 16
        }
    );

    let t = TensorDesc::new(DataType::U32, &[4]).with_alignment(64);
    let mut c = DmlCase::distinct(
        Operator::BitXor,
        TensorDesc::new(DataType::U32, &[4]),
        TensorDesc::new(DataType::U32, &[4]),
        t,
        3,
    );
    c.places[2] = place(2, 32);
    let e = c.check_error("binding_offset_misaligned");
    assert_eq!(
        e,
        Error::BindingOffsetMisaligned {
            tensor: TensorName::Output,
            offset: 32,
            required: 64
        }
    );
}

#[test]
fn data_types_must_be_identical_even_at_equal_width() {
    for (x, y) in [
        (DataType::U32, DataType::I32),
        (DataType::F32, DataType::U32),
        (DataType::U8, DataType::U16),
    ] {
        let e = refused(&BitXorDesc::new(
            TensorDesc::new(x, &[4]),
            TensorDesc::new(x, &[4]),
            TensorDesc::new(y, &[4]),
        ));
        assert_eq!(
            e,
            Error::DataTypeMismatch {
                operator: Operator::BitXor,
                tensor: TensorName::Output,
                found: y,
                expected: x
            }
        );
    }
}

#[test]
fn bool_is_not_a_directml_type() {
    let e = refused(&BitXorDesc::packed(DataType::Bool, &[4]));
    assert_eq!(
        e,
        Error::UnsupportedDataType {
            operator: Operator::BitXor,
            data_type: DataType::Bool,
            feature_level: FeatureLevel::Fl4_1,
            required: None
        }
    );
}

#[test]
fn feature_levels_reproduce_directml_tables() {
    let at = |dt, fl| BitXorDesc::packed(dt, &[4]).validate(fl);
    // BIT_XOR arrives at 3.0 with u8, u16, u32; everything else at 4.1.
    for fl in FeatureLevel::ALL {
        for dt in DataType::ALL {
            let ok = match dt {
                DataType::Bool => false,
                DataType::U8 | DataType::U16 | DataType::U32 => fl >= FeatureLevel::Fl3_0,
                _ => fl >= FeatureLevel::Fl4_1,
            };
            assert_eq!(at(dt, fl).is_ok(), ok, "BIT_XOR {dt} at {fl}");
        }
    }
    assert_eq!(
        at(DataType::F16, FeatureLevel::Fl3_0),
        Err(Error::UnsupportedDataType {
            operator: Operator::BitXor,
            data_type: DataType::F16,
            feature_level: FeatureLevel::Fl3_0,
            required: Some(FeatureLevel::Fl4_1)
        })
    );
    // LOGICAL_XOR: u32 from 1.0, u8 from 2.0, 4-D only below 3.0, nothing else ever.
    for fl in FeatureLevel::ALL {
        for dt in DataType::ALL {
            for rank in [1usize, 3, 4, 5, 8] {
                let sizes = vec![2u32; rank];
                let ok = match dt {
                    DataType::U32 => true,
                    DataType::U8 => fl >= FeatureLevel::Fl2_0,
                    _ => false,
                } && (rank == 4 || fl >= FeatureLevel::Fl3_0);
                assert_eq!(
                    LogicalXorDesc::packed(dt, &sizes).validate(fl).is_ok(),
                    ok,
                    "LOGICAL_XOR {dt} rank {rank} at {fl}"
                );
            }
        }
    }
}

/// The type tables, written out from the specifications, against every operator, type and
/// feature level: what validation accepts, and what it refuses with which rule.
#[test]
fn every_operator_takes_exactly_the_types_of_its_table() {
    use DataType::*;
    // DirectML BIT_*: FL 3.0 u8, u16, u32; FL 4.1 the eleven DirectML types.
    let bitwise = |dt: DataType, fl: FeatureLevel| match dt {
        U8 | U16 | U32 => fl >= FeatureLevel::Fl3_0,
        Bool => false,
        _ => fl >= FeatureLevel::Fl4_1,
    };
    // DirectML BIT_SHIFT_*: FL 2.1 u8, u16, u32; FL 4.1 u64; never another type.
    let shift = |dt: DataType, fl: FeatureLevel| match dt {
        U8 | U16 | U32 => fl >= FeatureLevel::Fl2_1,
        U64 => fl >= FeatureLevel::Fl4_1,
        _ => false,
    };
    let is_shift = |op: gpu_xor::Operator| op.spec().name.contains("SHIFT");
    // DirectML LOGICAL_*: FL 1.0 u32; FL 2.0 u8 too; never another type.
    let logical = |dt: DataType, fl: FeatureLevel| match dt {
        U32 => true,
        U8 => fl >= FeatureLevel::Fl2_0,
        _ => false,
    };
    for dt in DataType::ALL {
        for fl in FeatureLevel::ALL {
            // 4-D, which every level takes.
            let sizes = [2, 1, 3, 2];
            for op in DmlBinaryOp::ALL {
                let want = if op.function().logical {
                    logical(dt, fl)
                } else if is_shift(op.operator()) {
                    shift(dt, fl)
                } else {
                    bitwise(dt, fl)
                };
                let got = DmlBinaryDesc::packed(op, dt, &sizes).validate(fl);
                match got {
                    Ok(()) => assert!(want, "{op:?} {dt} {fl:?} accepted"),
                    Err(e) => {
                        assert!(!want, "{op:?} {dt} {fl:?}: {e}");
                        assert_eq!(e.rule(), "unsupported_dtype");
                    }
                }
            }
            for op in DmlUnaryOp::ALL {
                let want = if op.function().logical {
                    logical(dt, fl)
                } else {
                    bitwise(dt, fl)
                };
                if op == DmlUnaryOp::BitCount {
                    // BIT_COUNT's input takes BIT_NOT's types; its output UINT8 or UINT32
                    // only, whatever the input's.
                    for out in DataType::ALL {
                        let got = DmlUnaryDesc::packed(op, dt, &sizes)
                            .with_output_type(out)
                            .validate(fl);
                        let want = want && matches!(out, U8 | U32);
                        assert_eq!(got.is_ok(), want, "{op:?} {dt} -> {out} {fl:?}: {got:?}");
                        if let Err(e) = got {
                            assert_eq!(e.rule(), "unsupported_dtype", "{e}");
                        }
                    }
                    continue;
                }
                let got = DmlUnaryDesc::packed(op, dt, &sizes).validate(fl);
                assert_eq!(got.is_ok(), want, "{op:?} {dt} {fl:?}: {got:?}");
            }
        }
        // OpenVINO: Bitwise* integers and boolean; Bitwise*Shift integers; Logical* boolean.
        for op in OvBinaryOp::ALL {
            let want = if op.boolean_only() {
                dt == Bool
            } else if op.operator().spec().name.contains("Shift") {
                !dt.is_float() && dt != Bool
            } else {
                !dt.is_float()
            };
            let got = OvBinaryDesc::new(op, dt, &[2, 3], &[3]).validate();
            assert_eq!(got.is_ok(), want, "{op:?} {dt}: {got:?}");
            if let Err(e) = got {
                assert_eq!(e.rule(), "unsupported_dtype");
            }
        }
        for op in OvUnaryOp::ALL {
            let want = if op.boolean_only() {
                dt == Bool
            } else {
                !dt.is_float()
            };
            let got = OvUnaryDesc::new(op, dt, &[2, 3]).validate();
            assert_eq!(got.is_ok(), want, "{op:?} {dt}: {got:?}");
        }
    }
    // The DirectML logical and shift operators take 4-D only below FL 3.0.
    for op in [
        DmlBinaryOp::LogicalAnd,
        DmlBinaryOp::LogicalOr,
        DmlBinaryOp::BitShiftLeft,
        DmlBinaryOp::BitShiftRight,
    ] {
        let d = DmlBinaryDesc::packed(op, U32, &[2, 3]);
        assert_eq!(
            d.validate(FeatureLevel::Fl2_1).unwrap_err().rule(),
            "rank_out_of_range"
        );
        assert!(
            DmlBinaryDesc::packed(op, U32, &[2, 1, 3, 1])
                .validate(FeatureLevel::Fl2_1)
                .is_ok()
        );
        assert!(d.validate(FeatureLevel::Fl3_0).is_ok());
    }
    let d = DmlUnaryDesc::packed(DmlUnaryOp::LogicalNot, U8, &[5]);
    assert_eq!(
        d.validate(FeatureLevel::Fl2_0).unwrap_err().rule(),
        "rank_out_of_range"
    );
    // OpenVINO's message for a non-boolean Logical* operation.
    let e = OvBinaryDesc::new(OvBinaryOp::LogicalAnd, U8, &[2], &[2])
        .validate()
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("must have boolean element type but have element type u8"),
        "{e}"
    );
}

#[test]
fn feature_level_on_the_context_is_applied() {
    let fl2 = ctx().with_feature_level(FeatureLevel::Fl2_0);
    let e = DmlBinary::new(&fl2, &BitXorDesc::packed(DataType::U8, &[4])).unwrap_err();
    assert_eq!(e.rule(), "unsupported_dtype");
    assert!(e.to_string().contains("DML_FEATURE_LEVEL_3_0"), "{e}");
}

#[test]
fn output_that_overlaps_itself_is_refused() {
    let t = TensorDesc::new(DataType::U32, &[3, 3]);
    for s in [[1, 1], [0, 1], [3, 0], [2, 1]] {
        let e = refused(&BitXorDesc::new(
            t.clone(),
            t.clone(),
            t.clone().with_strides(&s),
        ));
        assert_eq!(e.rule(), "output_overlap", "{s:?}");
    }
    case_with(
        u8s(&[3, 3]),
        u8s(&[3, 3]),
        u8s(&[3, 3]).with_strides(&[1, 1]),
    )
    .check_error("output_overlap");
    // Inputs may overlap themselves.
    assert!(
        BitXorDesc::new(
            t.clone().with_strides(&[1, 1]),
            t.clone().with_strides(&[0, 0]),
            t.clone()
        )
        .validate(FeatureLevel::Fl4_1)
        .is_ok()
    );
}

#[test]
fn owned_by_dml_is_refused() {
    let mut d = BitXorDesc::packed(DataType::U8, &[4]);
    d.output.flags = TensorFlags::OwnedByDml;
    assert_eq!(refused(&d), Error::OwnedByDmlOnOutput);
}

fn storage_buffer(ctx: &Context, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage,
        mapped_at_creation: false,
    })
}

#[test]
fn bindings_are_checked_before_anything_is_recorded() {
    let ctx = ctx();
    let op = DmlBinary::new(ctx, &BitXorDesc::packed(DataType::U32, &[16])).unwrap();
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let good = storage_buffer(ctx, 64, usage);
    let small = storage_buffer(ctx, 48, usage);
    let no_storage = storage_buffer(ctx, 64, wgpu::BufferUsages::COPY_SRC);
    let ok = TensorBinding::new(&good);
    let cases: Vec<(Bindings, &str)> = vec![
        (
            Bindings::new(TensorBinding::new(&small), ok, ok),
            "binding_too_small",
        ),
        (
            Bindings::new(ok, ok, TensorBinding::range(&good, 16, 64)),
            "binding_out_of_bounds",
        ),
        (
            Bindings::new(ok, TensorBinding::at(&good, 128), ok),
            "binding_out_of_bounds",
        ),
        (
            Bindings::new(ok, TensorBinding::new(&no_storage), ok),
            "missing_usage",
        ),
    ];
    for (bindings, rule) in cases {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        let e = op.record(&mut encoder, &bindings).unwrap_err();
        assert_eq!(e.rule(), rule, "{e}");
        // Nothing was recorded: the encoder finishes empty and submits cleanly.
        ctx.queue().submit([encoder.finish()]);
    }
}

/// The binding rules of a one-input call, for every DirectML one-input operator of the
/// table, each refused with nothing written: B bound too, the input left unbound, and an
/// output that partly overlaps the input; in place is allowed, but for `BIT_COUNT`, which
/// refuses it (`in_place_not_supported`) with nothing written.
#[test]
fn one_input_calls_refuse_bad_bindings_and_write_nothing() {
    let ctx = ctx();
    for unary in DmlUnaryOp::ALL {
        let op = DmlUnary::new(ctx, &DmlUnaryDesc::packed(unary, DataType::U32, &[64])).unwrap();
        let bytes = random_bytes(71, 1024);
        let buf = buffer(ctx, &bytes);
        let at = |offset| TensorBinding::range(&buf, offset, 256);
        let cases: [(Bindings<'_>, &str); 5] = [
            (Bindings::new(at(0), at(256), at(512)), "extra_binding"),
            (
                Bindings {
                    b: Input::Owned,
                    ..Bindings::unary(at(0), at(512))
                },
                "extra_binding",
            ),
            (
                Bindings {
                    a: Input::Absent,
                    ..Bindings::unary(at(0), at(512))
                },
                "missing_binding",
            ),
            (Bindings::owned_input(at(512)), "owned_input_bound"),
            (Bindings::unary(at(0), at(128)), "partial_overlap"),
        ];
        for (bindings, want) in cases {
            let e = op.run(&bindings).unwrap_err();
            assert_eq!(e.rule(), want, "{unary:?}: {e}");
            assert_eq!(
                ctx.read_buffer(&buf, 0, 1024).unwrap(),
                bytes,
                "{unary:?} {want}"
            );
        }
        let e = op.run(&Bindings::new(at(0), at(256), at(512))).unwrap_err();
        assert_eq!(
            e,
            Error::ExtraBinding {
                operator: unary.operator(),
                tensor: gpu_xor::TensorName::B,
            }
        );
        // In place is the one overlap allowed, where the operator runs in place.
        if unary == DmlUnaryOp::BitCount {
            let e = op.run(&Bindings::unary(at(0), at(0))).unwrap_err();
            assert_eq!(e.rule(), "in_place_not_supported", "{e}");
            assert_eq!(ctx.read_buffer(&buf, 0, 1024).unwrap(), bytes);
            continue;
        }
        op.run(&Bindings::unary(at(0), at(0))).unwrap();
        let got = ctx.read_buffer(&buf, 0, 256).unwrap();
        let want: Vec<u8> = bytes[..256]
            .chunks(4)
            .flat_map(|w| {
                let x = u32::from_le_bytes(w.try_into().unwrap());
                (unary.function().apply(x.into(), 0, 4) as u32).to_le_bytes()
            })
            .collect();
        assert_eq!(got, want, "{unary:?} in place");
    }
}

#[test]
fn tensors_larger_than_the_device_allows_are_refused() {
    let ctx = ctx();
    let limit = ctx.device().limits().max_buffer_size;
    let elements = (limit / 8 + 1) as usize;
    let e = gpu_xor::Tensor::zeros(ctx, DataType::U64, &[elements]).unwrap_err();
    assert_eq!(e.rule(), "buffer_too_large", "{e}");
    let e = gpu_xor::Tensor::zeros(ctx, DataType::U64, &[usize::MAX, 2]).unwrap_err();
    assert_eq!(e.rule(), "size_overflow", "{e}");
    let e = gpu_xor::Tensor::from_slice(ctx, &[3], &[1u8, 2]).unwrap_err();
    assert_eq!(e.rule(), "data_length", "{e}");
}

#[test]
fn wgpu_errors_are_kept_as_sources() {
    let refused = wgpu::Error::Validation {
        source: Box::new(std::io::Error::other("buffer destroyed")),
        description: "Validation Error\n\nCaused by:\n  In Queue::submit\n    buffer destroyed\n"
            .to_string(),
    };
    let e = gpu_xor::Error::Wgpu {
        call: "Queue::submit",
        source: gpu_xor::WgpuError::new(refused),
    };
    assert_eq!(e.kind(), gpu_xor::ErrorKind::Wgpu);
    let gpu_xor::Error::Wgpu { source, .. } = &e else {
        unreachable!()
    };
    assert!(matches!(
        source.downcast_ref::<wgpu::Error>(),
        Some(wgpu::Error::Validation { description, .. }) if description.contains("destroyed")
    ));
    // The chain runs Error -> WgpuError -> wgpu::Error -> wgpu's own cause.
    let first = std::error::Error::source(&e).expect("a source");
    let second = first.source().expect("wgpu's error");
    assert!(second.downcast_ref::<wgpu::Error>().is_some());
    assert!(second.source().is_some());
    // One line, for logs.
    assert!(!e.to_string().contains('\n'), "{e}");
    // Clones share the error and compare equal.
    assert_eq!(e.clone(), e);
}

#[test]
fn refused_calls_name_the_category_of_their_rule() {
    // A description the operator refuses: the call is refused before anything is recorded.
    let nine = [2, 1, 1, 1, 1, 1, 1, 1, 2];
    let e = case_with(u8s(&nine), u8s(&nine), u8s(&nine)).check_error("rank_out_of_range");
    assert_eq!(e.category(), gpu_xor::ErrorCategory::Description, "{e}");
    assert_eq!(e.category(), e.kind().category());
    let description = e.category();

    // A binding the call refuses.
    let mut c = DmlCase::packed(Operator::BitXor, DataType::U32, &[4], 2);
    c.places[1] = place(1, 8);
    let e = c.check_error("binding_offset_misaligned");
    assert_eq!(e.category(), gpu_xor::ErrorCategory::Binding, "{e}");
    assert_eq!(e.category(), e.kind().category());
    assert_ne!(e.category(), description);

    // Host data that does not fit its shape.
    let e = gpu_xor::Tensor::from_slice(ctx(), &[3], &[1u8, 2]).unwrap_err();
    assert_eq!(e.category(), gpu_xor::ErrorCategory::HostData, "{e}");
    assert_eq!(e.category().to_string(), "host_data");
}

/// Random descriptions of every operator of the table, valid and not: validation and
/// planning end in `Ok` or a typed error, never a panic, and small valid OpenVINO ones run on
/// the CPU reference.
mod fuzz {
    use gpu_xor::inspect::Plan;
    use gpu_xor::{
        AutoBroadcast, DataType, DmlBinaryDesc, DmlBinaryOp, DmlUnaryDesc, DmlUnaryOp,
        FeatureLevel, OvBinaryDesc, OvBinaryOp, OvUnaryDesc, OvUnaryOp, TensorDesc, TensorFlags,
    };
    use proptest::prelude::*;

    use crate::common::random_bytes;

    fn any_type() -> impl Strategy<Value = DataType> {
        proptest::sample::select(DataType::ALL.to_vec())
    }

    fn dims() -> impl Strategy<Value = Vec<u32>> {
        proptest::collection::vec(
            prop_oneof![3 => 1u32..6, 1 => Just(0u32), 1 => Just(u32::MAX)],
            0..10,
        )
    }

    fn strides(rank: usize) -> impl Strategy<Value = Option<Vec<u32>>> {
        proptest::option::of(proptest::collection::vec(
            prop_oneof![3 => 0u32..8, 1 => Just(u32::MAX)],
            rank.saturating_sub(1)..=rank + 1,
        ))
    }

    fn tensor() -> impl Strategy<Value = TensorDesc> {
        (any_type(), dims())
            .prop_flat_map(|(dt, sizes)| {
                let rank = sizes.len();
                (Just(dt), Just(sizes), strides(rank), any::<bool>())
            })
            .prop_map(|(dt, sizes, strides, owned)| {
                let mut t = TensorDesc::new(dt, &sizes);
                if let Some(s) = strides {
                    t.strides = Some(s);
                }
                if owned {
                    t.flags = TensorFlags::OwnedByDml;
                }
                t
            })
    }

    fn level() -> impl Strategy<Value = FeatureLevel> {
        proptest::sample::select(vec![
            FeatureLevel::Fl1_0,
            FeatureLevel::Fl2_0,
            FeatureLevel::Fl3_0,
            FeatureLevel::Fl4_1,
        ])
    }

    fn shape() -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(
            prop_oneof![4 => 1usize..5, 1 => Just(0usize), 1 => Just(usize::MAX)],
            0..12,
        )
    }

    fn broadcast() -> impl Strategy<Value = AutoBroadcast> {
        prop_oneof![
            Just(AutoBroadcast::None),
            Just(AutoBroadcast::Numpy),
            (-3i64..12).prop_map(|axis| AutoBroadcast::Pdpd { axis }),
            Just(AutoBroadcast::Explicit),
        ]
    }

    proptest! {
        #![proptest_config(crate::common::property(3000))]

        #[test]
        fn dml_descriptions_never_panic(
            f in 0..DmlBinaryOp::ALL.len(),
            u in 0..DmlUnaryOp::ALL.len(),
            a in tensor(),
            b in tensor(),
            out in tensor(),
            same in any::<bool>(),
            fl in level(),
        ) {
            let (b, out) = if same { (a.clone(), a.clone()) } else { (b, out) };
            let binary = DmlBinaryDesc::new(DmlBinaryOp::ALL[f], a.clone(), b, out.clone());
            if let Ok(operands) = binary.operands(fl) {
                let _ = Plan::new(&operands);
            }
            let unary = DmlUnaryDesc::new(DmlUnaryOp::ALL[u], a, out);
            if let Ok(operands) = unary.operands(fl) {
                let plan = Plan::new(&operands);
                prop_assert_eq!(plan.function(), DmlUnaryOp::ALL[u].function());
            }
        }

        #[test]
        fn openvino_descriptions_never_panic(
            f in 0..OvBinaryOp::ALL.len(),
            u in 0..OvUnaryOp::ALL.len(),
            dt in any_type(),
            a in shape(),
            b in shape(),
            mode in broadcast(),
            seed in any::<u64>(),
        ) {
            let desc = OvBinaryDesc::new(OvBinaryOp::ALL[f], dt, &a, &b).with_broadcast(mode);
            if let Ok(operands) = desc.operands() {
                let _ = Plan::new(&operands);
                let small = |s: &[usize]| {
                    s.iter()
                        .try_fold(1usize, |n, &d| n.checked_mul(d))
                        .is_some_and(|n| n <= 4096)
                };
                let out_shape = desc.output_shape().unwrap();
                if small(&a) && small(&b) && small(&out_shape) {
                    let w = dt.size_in_bytes() as usize;
                    let bytes = |s: &[usize]| random_bytes(seed, s.iter().product::<usize>() * w);
                    let r = gpu_xor::reference::ov_binary(
                        OvBinaryOp::ALL[f], dt, &a, &bytes(&a), &b, &bytes(&b), mode,
                    );
                    prop_assert_eq!(r.map(|(shape, _)| shape), Ok(out_shape));
                }
            }
            let unary = OvUnaryDesc::new(OvUnaryOp::ALL[u], dt, &a);
            match unary.operands() {
                Ok(operands) => {
                    let _ = Plan::new(&operands);
                }
                Err(e) => prop_assert!(matches!(e.rule(), "unsupported_dtype" | "size_overflow"), "{e}"),
            }
        }
    }
}
