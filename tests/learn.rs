//! The learned models (`attention_viz::learn`): gradients against finite differences, training
//! reversal to 100 % on unseen sequences, the committed weights equal to what training
//! produces, what the shipped heads attend to, the model JSON, and the forward pass against a
//! NumPy transcription of the formulas (tests/fixtures/learn-goldens.json, written by
//! tests/goldens/gen_learn_goldens.py).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_viz::learn::{gradients, loss, preset, Example, Model, Shape, Task, Trainer};
use attention_viz::math::Matrix;
use attention_viz::random::RandomState;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Instant;

/// A small random model, its weights doubled so that attention is far from uniform (the
/// softmax's gradient is then not close to a constant; much more and the loss's high
/// derivatives swamp the finite differences), and a batch of examples with some
/// positions unscored.
fn small(layers: usize, heads: usize, causal: bool, seed: u32) -> (Model, Vec<Example>) {
    let shape = Shape { vocab: 5, seq_len: 4, d_model: 4, layers, heads, causal };
    let mut rng = RandomState::new(seed);
    let mut model = Model::init(shape, &mut rng);
    for m in model.params.matrices_mut() {
        for i in 0..m.rows() {
            for x in m.row_mut(i) {
                *x *= 2.0;
            }
        }
    }
    let examples = (0..3)
        .map(|_| {
            let input: Vec<usize> = rng.randint(0, 5, 4).unwrap().into_iter().map(|x| x as usize).collect();
            let targets = rng.randint(-1, 5, 4).unwrap().into_iter().map(|t| usize::try_from(t).ok()).collect();
            Example { input, targets }
        })
        .collect();
    (model, examples)
}

/// The loss with one parameter (matrix `m` of `Params::matrices`, entry i, j) moved by `by`.
fn loss_moved(model: &Model, examples: &[Example], m: usize, i: usize, j: usize, by: f64) -> f64 {
    let mut moved = model.clone();
    let mut all = moved.params.matrices_mut();
    let x = all[m].get(i, j);
    all[m].set(i, j, x + by);
    loss(&moved, examples).unwrap()
}

/// Every parameter's gradient against a central difference, Richardson-extrapolated
/// ((8(f(h) − f(−h)) − (f(2h) − f(−2h))) / 12h, truncation O(h⁴)), h = 2e-4: the differences
/// are then good to about 1e-11. Relative error is |g − fd| / max(|g|, |fd|, 1e-5), so the few
/// gradients below 1e-5 (embeddings of rarely seen tokens) are held to 1e-11 absolutely.
#[test]
fn gradients_match_finite_differences() {
    let h = 2e-4;
    let (mut worst, mut checked, mut tiny): (f64, usize, usize) = (0.0, 0, 0);
    for (layers, heads, causal, seed) in
        [(1, 1, false, 1), (1, 1, true, 2), (1, 2, false, 3), (2, 1, true, 4), (2, 2, false, 5), (2, 2, true, 6)]
    {
        let (model, examples) = small(layers, heads, causal, seed);
        let grads = gradients(&model, &examples).unwrap();
        let names = model.params.names();
        for (m, g) in grads.matrices().iter().enumerate() {
            for i in 0..g.rows() {
                for j in 0..g.cols() {
                    let f = |k: f64| loss_moved(&model, &examples, m, i, j, k * h);
                    let fd = (8.0 * (f(1.0) - f(-1.0)) - (f(2.0) - f(-2.0))) / (12.0 * h);
                    let got = g.get(i, j);
                    let rel = (got - fd).abs() / got.abs().max(fd.abs()).max(1e-5);
                    worst = worst.max(rel);
                    checked += 1;
                    tiny += usize::from(got.abs().max(fd.abs()) < 1e-5);
                    assert!(
                        rel <= 1e-6,
                        "{layers} layers, {heads} heads, causal {causal}: ∂/∂{}[{i}][{j}] = {got} by hand, {fd} by differences",
                        names[m]
                    );
                }
            }
        }
    }
    println!("{checked} partial derivatives ({tiny} below 1e-5): worst relative error {worst:e}");
}

fn goldens() -> Value {
    serde_json::from_str(include_str!("fixtures/learn-goldens.json")).unwrap()
}

fn matrix(value: &Value) -> Matrix {
    let rows: Vec<Vec<f64>> = serde_json::from_value(value.clone()).unwrap();
    Matrix::from_rows(&rows).unwrap()
}

fn ids(value: &Value) -> Vec<usize> {
    serde_json::from_value(value.clone()).unwrap()
}

/// |a − b| ≤ 1e-12 · max(1, |b|) for every entry.
fn assert_close(what: &str, got: &Matrix, want: &Matrix) {
    assert_eq!(got.shape(), want.shape(), "{what}");
    for (k, (a, b)) in got.data().iter().zip(want.data()).enumerate() {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{what} entry {k}: {a} here, {b} from NumPy");
    }
}

/// The forward pass of the committed models against the NumPy transcription's logits and
/// attention weights (1e-12), and the same predictions.
#[test]
fn shipped_models_match_the_numpy_transcription() {
    let g = goldens();
    for name in ["reversal", "induction"] {
        let model = preset(name).unwrap();
        for case in g[name].as_array().unwrap() {
            let input = ids(&case["input"]);
            let f = model.forward(&input).unwrap();
            assert_close(&format!("{name} {input:?} logits"), &f.logits, &matrix(&case["logits"]));
            assert_eq!(f.prediction, ids(&case["prediction"]), "{name} {input:?}");
            for (l, layer) in case["weights"].as_array().unwrap().iter().enumerate() {
                for (h, w) in layer.as_array().unwrap().iter().enumerate() {
                    assert_close(
                        &format!("{name} {input:?} layer {l} head {h}"),
                        &f.layers[l].heads[h].stages.weights,
                        &matrix(w),
                    );
                }
            }
        }
    }
}

/// `Model::init` draws what the documented NumPy expression draws, bit for bit.
#[test]
fn initial_weights_are_numpys_rand() {
    for case in goldens()["init"].as_array().unwrap() {
        let s = &case["shape"];
        let n = |k: &str| s[k].as_u64().unwrap() as usize;
        let shape = Shape {
            vocab: n("vocab"),
            seq_len: n("seq_len"),
            d_model: n("d_model"),
            layers: n("layers"),
            heads: 1,
            causal: false,
        };
        let model = Model::init(shape, &mut RandomState::new(case["seed"].as_u64().unwrap() as u32));
        assert_eq!(model.to_json()["params"], case["params"], "seed {}", case["seed"]);
    }
}

/// The fixture is what tests/goldens/gen_learn_goldens.py computes from the committed models now
/// (NumPy is required: `common::numpy_python`).
#[test]
fn goldens_are_up_to_date() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/goldens/gen_learn_goldens.py");
    let Some(mut python) = common::numpy_python() else { return };
    let out = python.args(["-W", "error", script, "--print"]).output().expect("python3 starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let now: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fixture = goldens();
    assert_eq!(now["init"], fixture["init"], "rand is exact: the init goldens cannot drift");
    for name in ["reversal", "induction"] {
        for (a, b) in now[name].as_array().unwrap().iter().zip(fixture[name].as_array().unwrap()) {
            assert_eq!(a["input"], b["input"]);
            assert_eq!(
                a["prediction"], b["prediction"],
                "{name}: regenerate with python3 tests/goldens/gen_learn_goldens.py"
            );
            assert_close(name, &matrix(&a["logits"]), &matrix(&b["logits"]));
        }
    }
}

fn committed(name: &str) -> String {
    std::fs::read_to_string(format!("{}/models/{name}.json", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Training reversal from the committed seed: the weights are the committed ones bit for bit
/// (however the steps are split between calls), and every position of every held-out sequence
/// the training never saw comes out right.
#[test]
fn reversal_trains_to_the_committed_weights_and_100_percent() {
    let task = Task::Reversal;
    let start = Instant::now();
    let mut trainer = Trainer::new(task, 0);
    let (mut done, mut chunk) = (0, 1);
    while done < task.steps() {
        let n = chunk.min(task.steps() - done);
        trainer.step(n);
        done += n;
        chunk = chunk % 37 + 5;
    }
    let seconds = start.elapsed().as_secs_f64();
    let model = trainer.model();
    assert_eq!(trainer.progress().step, task.steps());
    assert_eq!(model.to_json_string(), committed("reversal"), "cargo run --release --example train -- reversal");

    // The sequences training drew: the same stream, replayed.
    let mut rng = RandomState::new(0);
    task.init(&mut rng);
    let seen: HashSet<Vec<usize>> =
        (0..task.steps()).flat_map(|_| task.batch(&mut rng, task.batch_size())).map(|e| e.input).collect();
    let held_out = task.held_out(2000);
    let unseen: Vec<Example> = held_out.iter().filter(|e| !seen.contains(&e.input)).cloned().collect();
    println!(
        "trained {} steps in {seconds:.1} s; {} of 2000 held-out sequences were also drawn in training",
        task.steps(),
        held_out.len() - unseen.len()
    );
    assert!(unseen.len() > 1500);
    assert_eq!(task.accuracy(model, &unseen).unwrap(), 1.0);
}

/// The shipped reversal model reverses sequences it never trained on by reading the mirrored
/// position: at least 0.8 mean weight on the anti-diagonal.
#[test]
fn shipped_reversal_head_is_the_anti_diagonal() {
    let model = preset("reversal").unwrap();
    let mut rng = RandomState::new(2024);
    let (mut sum, mut count) = (0.0, 0);
    for _ in 0..500 {
        let e = Task::Reversal.example(&mut rng);
        let f = model.forward(&e.input).unwrap();
        let expected: Vec<usize> = e.input.iter().rev().copied().collect();
        assert_eq!(f.prediction, expected);
        let w = &f.layers[0].heads[0].stages.weights;
        for i in 0..6 {
            sum += w.get(i, 5 - i);
            count += 1;
        }
    }
    let mean = sum / count as f64;
    println!("mean anti-diagonal weight {mean:.4}");
    assert!(mean >= 0.8, "{mean}");
    assert_eq!(model.forward(&[3, 1, 4, 1, 5, 9]).unwrap().prediction, [9, 5, 1, 4, 1, 3]);
}

/// The shipped induction model continues the repeated segment of held-out sequences; layer 1's
/// head looks at the token after the current token's earlier occurrence.
#[test]
fn shipped_induction_model_copies_the_repeat() {
    let task = Task::Induction;
    let model = preset("induction").unwrap();
    let held_out = task.held_out(500);
    let accuracy = task.accuracy(&model, &held_out).unwrap();
    let (mut induction, mut count) = (0.0, 0);
    for e in &held_out[..100] {
        let f = model.forward(&e.input).unwrap();
        for (i, target) in e.targets.iter().enumerate() {
            if target.is_some() {
                let earlier = e.input[..i].iter().position(|&x| x == e.input[i]).unwrap();
                induction += f.layers[1].heads[0].stages.weights.get(i, earlier + 1);
                count += 1;
            }
        }
    }
    let induction = induction / count as f64;
    println!("held-out accuracy {accuracy:.4}, layer 1 weight on the induction target {induction:.4}");
    assert!(accuracy >= 0.99, "{accuracy}");
    assert!(induction >= 0.8, "{induction}");
    assert_eq!(model.shape, task.shape());
}

/// Induction's committed weights are what training produces, bit for bit. About 15 s in a
/// release build, minutes in a debug one: `cargo test --release --test all learn:: -- --ignored`.
#[test]
#[ignore]
fn induction_trains_to_the_committed_weights() {
    let task = Task::Induction;
    let mut trainer = Trainer::new(task, 0);
    let p = trainer.step(task.steps());
    assert_eq!(
        trainer.model().to_json_string(),
        committed("induction"),
        "cargo run --release --example train -- induction"
    );
    assert!(task.accuracy(trainer.model(), &task.held_out(500)).unwrap() >= 0.99, "{p:?}");
}

#[test]
fn trainer_reports_progress() {
    let mut trainer = Trainer::new(Task::Reversal, 3);
    let before = trainer.step(0);
    assert_eq!(before.step, 0);
    assert!(before.loss > 2.0 && before.loss < 2.6, "about ln 10 before training: {}", before.loss);
    let p = trainer.step(300);
    assert_eq!(p.step, 300);
    assert!(p.loss < 0.5 && p.accuracy > 0.9, "{p:?}");
    assert_eq!(trainer.step(0), p, "step(0) only reports");
    assert_eq!(trainer.model().trained.unwrap().steps, 300);
    // Another seed, other weights.
    assert_ne!(Trainer::new(Task::Reversal, 4).model().params, Trainer::new(Task::Reversal, 3).model().params);
}

#[test]
fn forward_trace_is_consistent() {
    let model = preset("induction").unwrap();
    let input = [7, 3, 12, 0, 5, 9, 1, 14, 3, 12];
    let f = model.forward(&input).unwrap();
    assert_eq!(f.tokens, ["H", "D", "M", "A", "F", "J", "B", "O", "D", "M"]);
    assert_eq!((f.logits.shape(), f.probabilities.shape()), ((10, 16), (10, 16)));
    assert_eq!(f.layers.len(), 2);
    for layer in &f.layers {
        let h = &layer.heads[0];
        assert_eq!((h.q.shape(), h.stages.weights.shape()), ((10, 32), (10, 10)));
        for i in 0..10 {
            let sum: f64 = h.stages.weights.row(i).iter().sum();
            assert!((sum - 1.0).abs() < 1e-12);
            for j in i + 1..10 {
                assert_eq!(h.stages.weights.get(i, j), 0.0, "causal");
                assert_eq!(h.stages.scaled.get(i, j), f64::NEG_INFINITY);
            }
            assert_eq!(h.stages.scaled.get(i, 0), h.stages.scores.get(i, 0) / 32f64.sqrt());
        }
        assert_eq!(h.stages.context, h.stages.weights.matmul(&h.v));
    }
    for i in 0..10 {
        let row = f.probabilities.row(i);
        let best = (0..16).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap();
        assert_eq!(f.prediction[i], best);
    }
    // The residual stream each layer reads: the embeddings' sum, then that plus layer 0's heads through its W_O.
    let p = &model.params;
    for (t, &id) in input.iter().enumerate() {
        for j in 0..model.shape.d_model {
            assert_eq!(f.layers[0].residual.get(t, j), p.tok_emb.get(id, j) + p.pos_emb.get(t, j));
            let through: f64 = (0..model.shape.d_model)
                .map(|k| f.layers[0].heads[k / 32].stages.context.get(t, k % 32) * p.layers[0].w_o.get(k, j))
                .sum();
            assert!((f.layers[1].residual.get(t, j) - f.layers[0].residual.get(t, j) - through).abs() < 1e-9);
        }
    }
    let json = f.to_json();
    assert_eq!(json["prediction"], json!(f.prediction));
    assert_eq!(json["layers"][1]["residual"][0][0], json!(f.layers[1].residual.get(0, 0)));
    assert_eq!(json["layers"][1]["heads"][0]["scaled"][0][1], Value::Null, "−∞ has no JSON number");
    assert_eq!(json["tokens"][0], "H");
}

#[test]
fn model_json_round_trips() {
    for name in ["reversal", "induction"] {
        let model = preset(name).unwrap();
        assert_eq!(Model::from_json(&model.to_json()).unwrap(), model);
        assert_eq!(Model::from_json_str(&model.to_json_string()).unwrap(), model);
    }
    let (bare, _) = small(2, 2, true, 9);
    assert_eq!(Model::from_json(&bare.to_json()).unwrap(), bare, "no task, tokens or trained");
}

/// A bad model or input is a message that says where, never a panic.
#[test]
fn bad_models_and_inputs_say_what_is_wrong() {
    let good = preset("reversal").unwrap().to_json();
    let with = |path: &[&str], value: Value| {
        let mut m = good.clone();
        let mut at = &mut m;
        for (k, key) in path.iter().enumerate() {
            if k + 1 == path.len() {
                if value.is_null() && key.parse::<usize>().is_err() {
                    at.as_object_mut().unwrap().remove(*key);
                } else if let Ok(i) = key.parse::<usize>() {
                    at[i] = value.clone();
                } else {
                    at[*key] = value.clone();
                }
            } else {
                at = match key.parse::<usize>() {
                    Ok(i) => &mut at[i],
                    Err(_) => &mut at[*key],
                };
            }
        }
        Model::from_json(&m).unwrap_err()
    };
    let cases = [
        (with(&["vocab"], Value::Null), "vocab is missing"),
        (with(&["vocab"], json!(0)), "vocab must be a whole number from 1 to 1024, got 0"),
        (with(&["heads"], json!(3)), "heads must divide d_model: 8 is not a multiple of 3"),
        (with(&["causal"], json!("yes")), "causal must be true or false"),
        (with(&["colour"], json!(1)), "unknown model field \"colour\""),
        (with(&["tokens"], json!(["a"])), "tokens has 1 names, expected 10 (vocab)"),
        (with(&["params", "w_u"], json!([[1.0]])), "params.w_u has 1 rows, expected 8 (d_model)"),
        (
            with(&["params", "layers", "0", "w_q", "3"], json!([1.0])),
            "params.layers[0].w_q row 3 has 1 values, expected 8 (d_model)",
        ),
        (
            with(&["params", "layers", "0", "w_k", "2", "5"], json!("NaN")),
            "params.layers[0].w_k[2][5] must be a finite number",
        ),
        (with(&["params", "layers"], json!([])), "params.layers has 0 layers, expected 1"),
        (with(&["params", "pos_emb"], Value::Null), "params.pos_emb must be a 6 × 8 matrix"),
        (with(&["trained", "seed"], json!(-1)), "trained.seed must be a whole number"),
    ];
    for (got, want) in cases {
        assert!(got.contains(want), "{got:?} should say {want:?}");
    }
    assert!(Model::from_json(&json!([1])).unwrap_err().contains("a model must be an object"));
    assert!(Model::from_json_str("{").unwrap_err().contains("not valid JSON"));

    let model = preset("reversal").unwrap();
    assert!(model.forward(&[]).unwrap_err().contains("input has 0 tokens; this model reads 1 to 6"));
    assert!(model.forward(&[1; 7]).unwrap_err().contains("input has 7 tokens"));
    assert!(model.forward(&[1, 2, 10]).unwrap_err().contains("input[2] is 10; token ids go from 0 to 9"));
    assert_eq!(model.forward(&[5, 0, 5]).unwrap().prediction.len(), 3, "shorter inputs are fine");
    let mut edited = model.clone();
    edited.params.layers[0].w_q = Matrix::zeros(2, 2);
    assert!(edited.forward(&[1]).unwrap_err().contains("layers[0].w_q is 2 × 2, expected 8 × 8"));
    edited.params.layers[0].w_q = Matrix::zeros(8, 8);
    edited.params.layers[0].w_q.set(1, 1, f64::NAN);
    assert!(edited.forward(&[1]).unwrap_err().contains("layers[0].w_q[1][1] is NaN"));
    edited.shape.vocab = 0;
    assert!(edited.forward(&[1]).unwrap_err().contains("vocab must be a whole number from 1 to 1024, got 0"));
    let wrong_task = Task::Induction.accuracy(&model, &Task::Induction.held_out(3)).unwrap_err();
    assert!(wrong_task.contains("example 0: input has 16 tokens; this model reads 1 to 6"), "{wrong_task}");
    let bad = [Example { input: vec![1, 2], targets: vec![Some(10), None] }];
    assert!(loss(&model, &bad).unwrap_err().contains("target 10 is not a token id"));
}

#[test]
fn presets_by_name() {
    assert!(preset("sorting").is_none());
    for name in attention_viz::learn::PRESETS {
        let m = preset(name).unwrap();
        assert_eq!(m.task.as_deref(), Some(name));
        assert_eq!(m.trained.unwrap().seed, 0);
    }
}

/// compute()'s model config is read by the core: each wrong field gets its message, located, in the words compute()
/// throws (tests/e2e/learn.test.mjs checks that they reach the caller).
#[test]
fn a_model_config_is_read_and_checked_by_the_core() {
    use attention_viz::learn::{read_request, ModelRef};
    let ok = json!({"mechanism": "model", "model": "reversal", "input": [3, 1, 4, 1e15]});
    let r = read_request(&ok).unwrap();
    assert_eq!(r.model, ModelRef::Named("reversal"));
    assert_eq!(r.input, vec![3.0, 1.0, 4.0, 1e15]);
    let object = json!({"model": {"vocab": 3}, "input": [0]});
    assert!(matches!(read_request(&object).unwrap().model, ModelRef::Object(_)));
    let cases = [
        (
            json!({"model": "reversal", "input": [1], "tokens": ["a"]}),
            "unknown field \"tokens\" for mechanism \"model\"; its fields are mechanism, model, input",
        ),
        (
            json!({"input": [1]}),
            "model is missing: a shipped model's name (\"reversal\", \"induction\") or a model object",
        ),
        (json!({"model": 3, "input": [1]}), "model must be \"reversal\", \"induction\" or a model object, got 3"),
        (
            json!({"model": [1], "input": [1]}),
            "model must be \"reversal\", \"induction\" or a model object, got a list of 1 items",
        ),
        (json!({"model": "reversal"}), "input is missing: a list of token ids, e.g. [3, 1, 4, 1, 5, 9]"),
        (json!({"model": "reversal", "input": "314159"}), "input must be a list of token ids, got the text \"314159\""),
        (json!({"model": "reversal", "input": [1, 2.5]}), "input[1] must be a token id (a whole number ≥ 0), got 2.5"),
        (json!({"model": "reversal", "input": [-1]}), "input[0] must be a token id (a whole number ≥ 0), got -1"),
        (
            json!({"model": "reversal", "input": [0, "2"]}),
            "input[1] must be a token id (a whole number ≥ 0), got the text \"2\"",
        ),
        (json!({"model": "reversal", "input": [1e16]}), "input[0] must be a token id (a whole number ≥ 0), got 1e+16"),
        (json!([1]), "config must be an object, got a list of 1 items"),
    ];
    for (config, want) in cases {
        assert_eq!(read_request(&config).unwrap_err(), want, "{config}");
    }
}

/// Where an input repeats and what the heads do there (the trace's `repeats`, which the guided page's chapter 9
/// reports): the page's own letters FKCHDLANGJHDLANO (ids 5 10 2 7 3 11 0 13 6 9 7 3 11 0 13 14) repeat H D L A N at
/// positions 10 … 14, first seen at 3, 4, 5, 6, 7; each measure against the forward pass's weights read by hand.
#[test]
fn the_repeats_of_an_input_and_the_heads_weights_there() {
    let model = preset("induction").unwrap();
    let input = [5, 10, 2, 7, 3, 11, 0, 13, 6, 9, 7, 3, 11, 0, 13, 14];
    let f = model.forward(&input).unwrap();
    let r = f.repeats();
    let mut earlier = vec![None; 16];
    for (i, j) in [(10, 3), (11, 4), (12, 5), (13, 6), (14, 7)] {
        earlier[i] = Some(j);
    }
    assert_eq!(r.earlier, earlier);
    // The letter after each earlier occurrence: D L A N G (ids 3 11 0 13 6).
    let next: Vec<Option<usize>> = earlier.iter().map(|j| j.map(|j| input[j + 1])).collect();
    assert_eq!(next[10..15], [Some(3), Some(11), Some(0), Some(13), Some(6)]);
    assert_eq!(r.next, next);
    assert_eq!(r.scored, 5);
    let copies: Vec<Option<bool>> = next.iter().zip(&f.prediction).map(|(w, &p)| w.map(|w| w == p)).collect();
    assert_eq!(r.copies, copies);
    assert_eq!(r.copied, copies.iter().filter(|c| **c == Some(true)).count());
    assert!(r.copied >= 4, "the shipped model continues the repeat: {:?}", f.prediction);

    let w0 = &f.layers[0].heads[0].stages.weights;
    let w1 = &f.layers[1].heads[0].stages.weights;
    let previous = (1..16).map(|i| w0.get(i, i - 1)).fold(0.0, |a, b| a + b) / 15.0;
    let first_run = [3, 4, 5, 6, 7].iter().map(|&i| w0.get(i, i - 1)).fold(0.0, |a, b| a + b) / 5.0;
    let copy =
        [(10, 4), (11, 5), (12, 6), (13, 7), (14, 8)].iter().map(|&(i, j)| w1.get(i, j)).fold(0.0, |a, b| a + b) / 5.0;
    assert_eq!((r.previous[0][0], r.first_run[0][0], r.copy[1][0]), (Some(previous), Some(first_run), Some(copy)));
    assert!(copy > 0.8, "layer 1 copies: {copy}");
    assert_eq!((r.previous.len(), r.previous[1].len()), (2, 1));

    // One letter: no previous token, no repeat.
    let one = model.forward(&[5]).unwrap().repeats();
    assert_eq!((one.earlier, one.scored, one.previous[0][0], one.copy[1][0]), (vec![None], 0, None, None));
    let json = f.to_json();
    assert_eq!(json["repeats"]["scored"], json!(5));
    assert_eq!(json["repeats"]["earlier"][10], json!(3));
    assert_eq!(json["repeats"]["copies"][0], Value::Null);
}
