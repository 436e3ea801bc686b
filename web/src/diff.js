// diff.js - a line diff of two sources (Myers' O(ND) algorithm) and its hunks
// with context, for comparing two submissions. Pure (test/unit/diff.test.mjs).

/* Past this many differing lines the middle is shown as all removed, then all
 * added: the trace of a longer search would cost too much memory. */
const MAX_EDITS = 4000;

/*
 * The edit script from `a` to `b` (arrays of lines): a list of
 * {op: "eq" | "del" | "add", a: line number in a (1-based) or null,
 * b: line number in b or null, text}.
 */
export function diffLines(a, b) {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  const out = [];
  for (let i = 0; i < pre; i++) out.push({ op: "eq", a: i + 1, b: i + 1, text: a[i] });
  const mid = middle(A, B);
  for (const m of mid) {
    out.push({
      op: m.op,
      a: m.a === null ? null : m.a + pre + 1,
      b: m.b === null ? null : m.b + pre + 1,
      text: m.text,
    });
  }
  for (let i = 0; i < suf; i++) {
    const ia = a.length - suf + i,
      ib = b.length - suf + i;
    out.push({ op: "eq", a: ia + 1, b: ib + 1, text: a[ia] });
  }
  return out;
}

function middle(A, B) {
  const N = A.length,
    M = B.length;
  if (N === 0 && M === 0) return [];
  const max = N + M;
  const off = max + 1;
  const V = new Int32Array(2 * max + 3);
  const trace = [];
  let found = -1;
  for (let d = 0; d <= Math.min(max, MAX_EDITS); d++) {
    trace.push(V.slice(off - d - 1, off + d + 2)); /* V[-d-1 .. d+1] before step d */
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && V[off + k - 1] < V[off + k + 1]) ? V[off + k + 1] : V[off + k - 1] + 1;
      let y = x - k;
      while (x < N && y < M && A[x] === B[y]) {
        x++;
        y++;
      }
      V[off + k] = x;
      if (x >= N && y >= M) {
        found = d;
        break;
      }
    }
    if (found >= 0) break;
  }
  if (found < 0) {
    const r = [];
    for (let i = 0; i < N; i++) r.push({ op: "del", a: i, b: null, text: A[i] });
    for (let j = 0; j < M; j++) r.push({ op: "add", a: null, b: j, text: B[j] });
    return r;
  }
  const rev = [];
  let x = N,
    y = M;
  for (let d = found; d >= 0; d--) {
    const v = trace[d];
    const at = (k) => v[k + d + 1];
    const k = x - y;
    let prevK;
    if (d === 0) prevK = 0;
    else prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      rev.push({ op: "eq", a: x - 1, b: y - 1, text: A[x - 1] });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) rev.push({ op: "add", a: null, b: prevY, text: B[prevY] });
      else rev.push({ op: "del", a: prevX, b: null, text: A[prevX] });
    }
    x = prevX;
    y = prevY;
  }
  return rev.reverse();
}

/*
 * The edit script cut to what changed plus `context` lines around it: the
 * same entries, with {op: "skip", count} standing for each run of unchanged
 * lines left out.
 */
export function hunks(edits, context = 3) {
  const keep = new Array(edits.length).fill(false);
  edits.forEach((e, i) => {
    if (e.op === "eq") return;
    for (let j = Math.max(0, i - context); j <= Math.min(edits.length - 1, i + context); j++) keep[j] = true;
  });
  const out = [];
  let skipped = 0;
  edits.forEach((e, i) => {
    if (keep[i]) {
      if (skipped) out.push({ op: "skip", count: skipped });
      skipped = 0;
      out.push(e);
    } else skipped++;
  });
  if (skipped) out.push({ op: "skip", count: skipped });
  return out;
}

export function diffStats(edits) {
  let add = 0,
    del = 0;
  for (const e of edits) {
    if (e.op === "add") add++;
    else if (e.op === "del") del++;
  }
  return { add, del };
}
