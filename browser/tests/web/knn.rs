//! k nearest in Hamming space in the browser: the one-call form at k = 10 and k = 300, and a
//! prepared search with an allow-list recorded into an encoder, every distance and index
//! against the exhaustive search of the reference.

use gpu_xor::reference::k_nearest;
use gpu_xor::{DataType, Knn, KnnBindings, KnnDesc, Tensor, TensorBinding, TensorDesc};
use gpu_xor_browser::{assert_accepted, ctx, random_bytes, watched};
use gpu_xor_testkit::engine;
use wasm_bindgen_test::wasm_bindgen_test;

/// 32-bit words of a code: 256 bits.
const WORDS: usize = 8;

/// `rows` random codes whose bytes keep the bits of 0x33 only, so that distances tie often.
fn codes(seed: u64, rows: usize) -> Vec<u8> {
    random_bytes(seed, rows * WORDS * 4)
        .into_iter()
        .map(|b| b & 0x33)
        .collect()
}

/// The results found (distances, indices as their 64 bits) equal the reference's.
fn compare(what: &str, want: &[Vec<(u32, u64)>], distances: &[u32], indices: &[u64]) {
    let k = want[0].len();
    assert_eq!(
        (distances.len(), indices.len()),
        (want.len() * k, want.len() * k)
    );
    for (m, want) in want.iter().enumerate() {
        for (j, &w) in want.iter().enumerate() {
            let got = (distances[m * k + j], indices[m * k + j]);
            assert_eq!(got, w, "{what}: query {m}, result {j}");
        }
    }
}

#[wasm_bindgen_test]
async fn k_nearest_against_the_reference() {
    let ctx = ctx().await;
    let (m, n) = (8, 3000);
    let (qb, cb) = (codes(1, m), codes(2, n));
    let qr: Vec<&[u8]> = qb.chunks(WORDS * 4).collect();
    let cr: Vec<&[u8]> = cb.chunks(WORDS * 4).collect();

    let queries = Tensor::from_bytes(&ctx, DataType::U32, &[m, WORDS], &qb).unwrap();
    let codes = Tensor::from_bytes(&ctx, DataType::U32, &[n, WORDS], &cb).unwrap();
    for k in [10, 300] {
        let (d, i) = ctx.k_nearest(&queries, &codes, k).unwrap();
        let d = d.to_vec_async::<u32>().await.unwrap();
        let i = i.to_vec_async::<i64>().await.unwrap();
        let i: Vec<u64> = i.into_iter().map(|x| x as u64).collect();
        compare(
            &format!("k = {k}"),
            &k_nearest(&qr, &cr, k as usize, |_| true),
            &d,
            &i,
        );
    }

    // An allow-list of random bits, about one code in 16 (fewer than k: the results past the
    // allowed codes are the sentinel), prepared on buffers and recorded into an encoder.
    let words = n.div_ceil(32);
    let allow: Vec<u8> = (0..4)
        .map(|s| random_bytes(10 + s, 4 * words))
        .reduce(|a, b| a.iter().zip(&b).map(|(x, y)| x & y).collect())
        .unwrap();
    let allowed = |c: usize| (allow[c / 8] >> (c % 8)) & 1 == 1;
    let k = 300;
    assert!((0..n).filter(|&c| allowed(c)).count() < k);
    let desc = KnnDesc::new(
        TensorDesc::new(DataType::U32, &[m as u32, WORDS as u32]),
        TensorDesc::new(DataType::U32, &[n as u32, WORDS as u32]),
        k as u32,
        DataType::I64,
    )
    .with_allow_list(TensorDesc::new(DataType::U32, &[words as u32]));
    let search = Knn::new(&ctx, &desc).unwrap();
    let q = engine::storage_buffer(&ctx, "queries", &qb);
    let c = engine::storage_buffer(&ctx, "codes", &cb);
    let a = engine::storage_buffer(&ctx, "allow", &allow);
    let d = engine::storage_buffer(&ctx, "distances", &vec![0xa5; 4 * m * k]);
    let i = engine::storage_buffer(&ctx, "indices", &vec![0xa5; 8 * m * k]);
    let call = search
        .prepare(
            &KnnBindings::new(
                TensorBinding::new(&q),
                TensorBinding::new(&c),
                TensorBinding::new(&d),
                TensorBinding::new(&i),
            )
            .with_allow_list(TensorBinding::new(&a)),
        )
        .unwrap();
    let ((), answer) = watched(&ctx, || {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        call.record(&mut encoder).unwrap();
        ctx.queue().submit([encoder.finish()]);
    });
    let back = engine::read_back(&ctx, &[d, i]).await.unwrap();
    assert_accepted(answer, &call).await;
    let d: Vec<u32> = back[0]
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    let i: Vec<u64> = back[1]
        .chunks(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .collect();
    compare("allow-list", &k_nearest(&qr, &cr, k, allowed), &d, &i);
    assert_eq!(
        d.last(),
        Some(&u32::MAX),
        "the sentinel past the allowed codes"
    );
}
