// steps.js - the eight steps of the path (docs/problem-catalogue.md: the Triton
// study plan taught in CUDA). Problems carry only their step's number; the titles live here.
export const STEPS = [
  { n: 1, title: "Program IDs and blocks", goal: "Turn a block and a thread index into an element index." },
  { n: 2, title: "Masks", goal: "Guard the tail: sizes that are not a multiple of the block." },
  { n: 3, title: "Elementwise", goal: "Memory-bound kernels at the speed of a copy." },
  { n: 4, title: "Reductions and softmax", goal: "Threads cooperating on one sum, one maximum, one row." },
  { n: 5, title: "Tiled matmul", goal: "Reuse through shared memory and registers." },
  { n: 6, title: "Fusion", goal: "One pass over memory for several operations." },
  { n: 7, title: "Autotuning and performance patterns", goal: "@tune, grouped order, split-K, vector access." },
  { n: 8, title: "Attention", goal: "Softmax, matmuls and online rescaling in one kernel." },
];

export function stepTitle(n) {
  const s = STEPS.find((x) => x.n === n);
  return s ? s.title : `Step ${n}`;
}
