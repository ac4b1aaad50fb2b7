//! Trains one of the shipped models and writes its JSON:
//!
//! ```sh
//! cargo run --release --example train -- reversal            # writes models/reversal.json
//! cargo run --release --example train -- induction --seed 0 --steps 6000 --out /tmp/induction.json
//! ```
//!
//! With the defaults (seed 0, the task's own number of steps) it reproduces the committed
//! `models/<task>.json` bit for bit (tests/learn.rs checks it for reversal). It prints the
//! loss as it goes, the held-out accuracy, and what the heads learned.

use attention_viz::learn::{Forward, Model, Task, Trainer};
use std::time::Instant;

fn main() {
    if let Err(message) = run() {
        eprintln!("train: {message}");
        eprintln!(
            "usage: cargo run --release --example train -- <reversal|induction> [--seed S] [--steps N] [--out PATH]"
        );
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let name = args.next().ok_or("which task?")?;
    let task = Task::from_name(&name).ok_or_else(|| format!("unknown task {name:?}"))?;
    let (mut seed, mut steps, mut out) =
        (0u32, task.steps(), format!("{}/models/{}.json", env!("CARGO_MANIFEST_DIR"), task.name()));
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--seed" => seed = value.parse().map_err(|_| format!("--seed {value:?} is not a whole number"))?,
            "--steps" => steps = value.parse().map_err(|_| format!("--steps {value:?} is not a whole number"))?,
            "--out" => out = value,
            _ => return Err(format!("unknown option {flag:?}")),
        }
    }

    let held_out = task.held_out(1000);
    let start = Instant::now();
    let mut trainer = Trainer::new(task, seed);
    let every = (steps / 20).max(1);
    let mut done = 0;
    while done < steps {
        let n = every.min(steps - done);
        let p = trainer.step(n);
        done += n;
        let acc = task.accuracy(trainer.model(), &held_out)?;
        println!(
            "step {:>6}  loss {:.4}  batch accuracy {:>6.2} %  held-out {:>6.2} %  {:.2} s",
            p.step,
            p.loss,
            100.0 * p.accuracy,
            100.0 * acc,
            start.elapsed().as_secs_f64()
        );
    }
    let model = trainer.model();
    println!("{}: seed {seed}, {steps} steps, {} parameters", task.name(), model.shape.parameter_count());
    println!(
        "held-out accuracy: {:.2} % of 1000 sequences' scored positions",
        100.0 * task.accuracy(model, &held_out)?
    );
    describe_heads(task, model, &held_out.iter().map(|e| e.input.clone()).collect::<Vec<_>>());
    std::fs::write(&out, model.to_json_string()).map_err(|e| format!("cannot write {out}: {e}"))?;
    println!("wrote {out}");
    Ok(())
}

/// The patterns the heads are meant to learn, as mean weights over the held-out inputs.
fn describe_heads(task: Task, model: &Model, inputs: &[Vec<usize>]) {
    let traces: Vec<Forward> = inputs.iter().map(|i| model.forward(i).expect("a task's input")).collect();
    // Mean over inputs and rows i of weights[i][pick(i)], for rows where pick gives a key.
    let mean = |layer: usize, pick: &dyn Fn(usize, usize) -> Option<usize>| {
        let (mut sum, mut count) = (0.0, 0);
        for t in &traces {
            let w = &t.layers[layer].heads[0].stages.weights;
            for i in 0..w.rows() {
                if let Some(j) = pick(i, w.rows()) {
                    sum += w.get(i, j);
                    count += 1;
                }
            }
        }
        sum / count.max(1) as f64
    };
    match task {
        Task::Reversal => {
            println!(
                "mean weight on the anti-diagonal (position i reads 5 − i): {:.4}",
                mean(0, &|i, n| Some(n - 1 - i))
            );
        }
        Task::Induction => {
            println!("layer 0: mean weight on the previous token: {:.4}", mean(0, &|i, _| i.checked_sub(1)));
            // The induction target: the position after the current token's earlier occurrence.
            let mut sum = 0.0;
            let mut count = 0;
            for (t, input) in traces.iter().zip(inputs) {
                let w = &t.layers[1].heads[0].stages.weights;
                for i in 0..input.len() {
                    if let Some(j) = input[..i].iter().position(|&x| x == input[i]) {
                        sum += w.get(i, j + 1);
                        count += 1;
                    }
                }
            }
            println!(
                "layer 1: mean weight on the token after the current token's earlier occurrence: {:.4}",
                sum / count.max(1) as f64
            );
        }
    }
}
