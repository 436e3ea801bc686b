// fake-worker.mjs - a test double of a GPU worker for the browser tests: it
// speaks the real worker API (docs/api.md, "Worker API") to the real server,
// claims the job the test names and posts the progress events and the result
// the test asks for, in the shape of judge_result_json() (judge/worker/judge.c).
// There is no GPU on the CPU test machine; what is tested here is the server
// and the web app showing a GPU worker's results, not the judge (tests/gpu/
// covers the judge on the H200).

export const FAKE_GPU = {
  name: "Fake H200 (test double)",
  uuid: "GPU-00000000-0000-0000-0000-000000000000",
  cc: "9.0",
  driver: "test",
  arch: "sm_90a",
  sm_count: 132,
  memory_bytes: 150000000000,
  l2_bytes: 62914560,
  max_clock_mhz: 1980,
  copy_gbps: 4200.0,
  fp32_tflops: 60.0,
  fp16_tflops: 800.0,
  bf16_tflops: 800.0,
  calibrated: true,
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class FakeWorker {
  constructor(base, token) {
    this.base = base;
    this.token = token;
  }

  async call(method, path, body) {
    const r = await fetch(this.base + path, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }

  /* languages: what the worker says it compiles (the server's default, CUDA only, when absent). */
  async register(languages) {
    const r = await this.call("POST", "/api/judge/register", {
      hostname: "browser-test",
      version: "fake",
      can_execute: true,
      gpu: FAKE_GPU,
      ...(languages ? { languages } : {}),
    });
    if (r.status !== 200) throw new Error(`register: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /* Claims until it gets submission `id` (within `seconds`). */
  async claim(id, seconds = 30) {
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const r = await this.call("POST", "/api/judge/claim", { wait: 1 });
      if (r.status === 200) {
        if (r.body.submission !== id) throw new Error(`claimed submission ${r.body.submission}, expected ${id}`);
        return r.body;
      }
      if (r.status !== 204) throw new Error(`claim: ${r.status} ${JSON.stringify(r.body)}`);
    }
    throw new Error(`submission ${id} was never offered`);
  }

  async progress(lease, events) {
    const r = await this.call("POST", `/api/judge/leases/${lease}/progress`, { events });
    if (r.status !== 200) throw new Error(`progress: ${r.status} ${JSON.stringify(r.body)}`);
  }

  async result(lease, result) {
    const r = await this.call("POST", `/api/judge/leases/${lease}/result`, { result });
    if (r.status !== 200) throw new Error(`result: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /*
   * Judges job `id` as `outcome` ("AC", "WA" or "RE"), with the problem's
   * test names and benchmark names, posting the events a few at a time so
   * the page sees them arrive. A Profile's result carries `profile` (the
   * judge's "profile" object: docs/profile.md); `beforeResult`, when given,
   * is awaited between the last event and the result (the page's state
   * while the worker profiles). Returns the result posted.
   */
  async judge(id, outcome, { tests, benches, kernel = "vector_add", failAt = 10, profile, beforeResult }) {
    const job = await this.claim(id);
    const submit = job.mode === "submit";
    if (profile !== undefined && job.mode !== "profile") throw new Error(`job ${id} is a ${job.mode}, not a Profile`);
    const kernels = [
      { name: kernel, registers: 16, barriers: 0, smem_bytes: 0, stack_bytes: 0, spill_store_bytes: 0, spill_load_bytes: 0 },
    ];
    await this.progress(job.lease, [{ event: "compiling" }]);
    await sleep(100);
    await this.progress(job.lease, [{ event: "compiled", ok: true, ms: 95.5, kernels }]);
    const out = [];
    let verdict = "AC",
      message = null;
    for (let i = 0; i < tests.length; i++) {
      let t = { name: tests[i], verdict: "AC", ms: 0.05 + i * 0.01 };
      if (outcome !== "AC" && i === failAt) {
        t = failure(outcome, tests[i]);
        verdict = outcome;
        message = t.message;
      }
      out.push(t);
      await this.progress(job.lease, [{ event: "test", index: i, of: tests.length, name: t.name, verdict: t.verdict, ms: t.ms }]);
      if (i % 8 === 0) await sleep(40);
      if (t.verdict !== "AC") break;
    }
    for (let i = out.length; i < tests.length; i++) out.push({ name: tests[i], verdict: "NJ", ms: 0 });
    const bs = [];
    if (submit && verdict === "AC") {
      benches.forEach((b, i) => {
        const median = 0.8 + 0.25 * i;
        bs.push({
          name: b.name,
          samples: 120,
          median_ms: median,
          min_ms: median * 0.98,
          max_ms: median * 1.05,
          p10_ms: median * 0.99,
          p90_ms: median * 1.02,
          rse: 0.002,
          gbps: 3500 - 300 * i,
          tflops: 0.29,
          sol_pct: (100 * (3500 - 300 * i)) / FAKE_GPU.copy_gbps,
          clock_mhz: 1980,
          stop: "rse",
          screened: i === 0 ? 2 : 0, /* configurations a screening left out (judge/worker/bench.c) */
          pytorch_ms: median * 1.5, /* PyTorch's time beside it (judge/worker/baseline.h) */
          pytorch_speedup: 1.5,
        });
      });
      for (let i = 0; i < bs.length; i++) {
        const b = bs[i];
        await sleep(150);
        await this.progress(job.lease, [
          { event: "bench", index: i, of: bs.length, name: b.name, median_ms: b.median_ms, gbps: b.gbps, tflops: b.tflops, sol_pct: b.sol_pct },
        ]);
      }
    }
    const score = bs.length ? Math.exp(bs.reduce((a, b) => a + Math.log(b.sol_pct), 0) / bs.length) : 0;
    const result = {
      verdict,
      verdict_name: { AC: "Accepted", WA: "Wrong Answer", RE: "Runtime Error", MV: "Memory Violation" }[verdict],
      message: message || (submit ? `all ${tests.length} tests passed; timed ${bs.length} shapes` : `all ${tests.length} tests passed`),
      executed: true,
      diagnostics: [],
      compile_log: "",
      kernels,
      tests: out,
      benches: bs,
      score,
      pytorch: bs.length
        ? { measured: true, torch: "2.11.0+fake", measured_at: 1767225600, speedup: 1.5, reason: null, method: "PyTorch's time: the problem's baseline.py, timed the judge's way." }
        : null,
      gpu: FAKE_GPU,
      compile_ms: 95.5,
      total_ms: 900,
      timing: { compile_ms: 95.5, runners_ms: 120, tests_ms: 300, bench_ms: bs.length ? 400 : 0, total_ms: 900 },
      seed: "00000000000000ff",
      mode: job.mode,
      ...(profile !== undefined ? { profile } : {}),
    };
    if (beforeResult) await beforeResult();
    await this.result(job.lease, result);
    return result;
  }
}

/* Posts a result recorded from a real judge (tests/gpu/web.sh) for job `id`,
 * with the events the judge would have sent before it. */
FakeWorker.prototype.replay = async function (id, result) {
  const job = await this.claim(id);
  await this.progress(job.lease, [{ event: "compiling" }]);
  await this.progress(job.lease, [{ event: "compiled", ok: true, ms: result.compile_ms || 0, kernels: result.kernels || [] }]);
  const tests = result.tests || [];
  for (let i = 0; i < tests.length; i++) {
    const t = tests[i];
    if (!t.verdict || t.verdict === "NJ") break;
    await this.progress(job.lease, [{ event: "test", index: i, of: tests.length, name: t.name, verdict: t.verdict, ms: t.ms }]);
  }
  const benches = result.benches || [];
  for (let i = 0; i < benches.length; i++) {
    const b = benches[i];
    await sleep(100);
    await this.progress(job.lease, [{ event: "bench", index: i, of: benches.length, name: b.name, median_ms: b.median_ms, gbps: b.gbps, tflops: b.tflops, sol_pct: b.sol_pct }]);
  }
  await this.result(job.lease, result);
};

function failure(kind, name) {
  if (kind === "WA")
    return {
      name,
      verdict: "WA",
      ms: 0.1,
      message: "3 elements of C differ from the reference",
      detail: {
        kind: "mismatch",
        outputs: [
          {
            name: "C",
            dtype: "fp32",
            count: 127,
            checked: 127,
            mismatches: 3,
            tolerance: { exact: true },
            max_abs_err: 1712.5,
            max_rel_err: 1.0,
            max_abs_at: { index: [126], flat: 126 },
            max_rel_at: { index: [126], flat: 126 },
            first: [
              { index: [124], flat: 124, expected: 12.5, got: "nan", abs_err: "inf", rel_err: "inf", reason: "not written (still the NaN poison)", rounded: 12.5 },
              { index: [125], flat: 125, expected: -401.25, got: "nan", abs_err: "inf", rel_err: "inf", reason: "not written (still the NaN poison)", rounded: -401.25 },
              { index: [126], flat: 126, expected: 1712.5, got: 0, abs_err: 1712.5, rel_err: 1.0, reason: "differs", rounded: 1712.5 },
            ],
          },
        ],
      },
    };
  if (kind === "MV")
    return {
      name,
      verdict: "MV",
      ms: 0.1,
      message: "wrote past the end of C (byte 4 after the start of it)",
      detail: { kind: "guard", buffer: "C", where: "after", offset: 4, hint: "an index past the end of a buffer: check the tail (if (i < n)) of every access" },
    };
  return {
    name,
    verdict: "RE",
    ms: 0.1,
    message: "CUDA_ERROR_ILLEGAL_ADDRESS in kernel vector_add",
    detail: { kind: "cuda_error", error: "CUDA_ERROR_ILLEGAL_ADDRESS", message: "an illegal memory access was encountered", launch: 0, kernel: "vector_add" },
  };
}
