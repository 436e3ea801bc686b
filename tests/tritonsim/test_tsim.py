#!/usr/bin/env python3
"""test_tsim.py - unit tests of the Triton interpreter (tsim), against numpy and Triton's rules.

    /usr/bin/python3 tests/tritonsim/test_tsim.py [-v] [TestCase.test_name ...]

Every test launches small kernels written here (vector add, row softmax, a
matmul, block pointers, atomics, ...) or checks one typing rule. Ends with
"N passed, N failed, N skipped" (tests/cpu/tritonsim.sh runs it under a
deadline).
"""
import os
import sys
import unittest

sys.dont_write_bytecode = True  # tsim is imported from the source tree: leave no __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import triton  # noqa: E402  (the stand-in: tests/tritonsim/triton)
import triton.language as tl  # noqa: E402
import tsim  # noqa: E402
from tsim import core  # noqa: E402
from tsim import dtypes as D  # noqa: E402
from tsim.errors import CompileError, Fault, TimeLimit  # noqa: E402
from triton.language.extra import libdevice  # noqa: E402


# ---- kernels ---------------------------------------------------------------------------------------

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(y_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr, PREC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K),
                    other=0.0)
        b = tl.load(b_ptr + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def block_ptr_copy(x_ptr, y_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, shape=(R, C), strides=(C, 1), offsets=(0, 0),
                            block_shape=(BR, BC), order=(1, 0))
    dst = tl.make_block_ptr(y_ptr, shape=(C, R), strides=(R, 1), offsets=(0, 0),
                            block_shape=(BC, BR), order=(1, 0))
    src = tl.advance(src, (tl.program_id(0) * BR, tl.program_id(1) * BC))
    dst = tl.advance(dst, (tl.program_id(1) * BC, tl.program_id(0) * BR))
    t = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    tl.store(dst, tl.trans(t), boundary_check=(0, 1))


@triton.jit
def block_ptr_padded(x_ptr, out_ptr, n, B: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, shape=(n,), strides=(1,), offsets=(0,), block_shape=(B,),
                          order=(0,))
    tl.store(out_ptr + tl.arange(0, B), tl.load(p, boundary_check=(0,), padding_option="nan"))


@triton.jit
def unary_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, B: tl.constexpr):
    offs = tl.arange(0, B)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if OP == 0:
        y = tl.exp(x)
    elif OP == 1:
        y = tl.log(x)
    elif OP == 2:
        y = tl.sqrt(x)
    elif OP == 3:
        y = tl.sigmoid(x)
    elif OP == 4:
        y = libdevice.tanh(x)
    elif OP == 5:
        y = tl.math.erf(x)
    else:
        y = tl.exp2(x)
    tl.store(out_ptr + offs, y, mask=m)


@triton.jit
def reduce_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, OP: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + r[:, None] * C + c[None, :])
    if OP == 0:
        tl.store(out_ptr + r, tl.sum(x, axis=1))
    elif OP == 1:
        tl.store(out_ptr + c, tl.max(x, axis=0))
    elif OP == 2:
        tl.store(out_ptr + r, tl.argmax(x, axis=1))
    elif OP == 3:
        tl.store(out_ptr + r[:, None] * C + c[None, :], tl.cumsum(x, axis=1))
    else:
        tl.store(out_ptr, tl.min(x))


@triton.jit
def atomic_kernel(out_ptr, counter_ptr, lock_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    m = offs < n
    tl.atomic_add(out_ptr + offs % 3, tl.full((B,), 1.0, tl.float32), mask=m)
    old = tl.atomic_add(counter_ptr, 1)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(counter_ptr + 1, tl.load(counter_ptr + 1) + old)
    tl.atomic_xchg(lock_ptr, 0)
    tl.atomic_max(counter_ptr + 2, tl.program_id(0) * 10)


@triton.jit
def oob_store(out_ptr, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(out_ptr + offs, 1.0)


@triton.jit
def far_load(x_ptr, out_ptr, B: tl.constexpr, OFF: tl.constexpr):
    offs = tl.arange(0, B) + OFF
    tl.store(out_ptr + tl.arange(0, B), tl.load(x_ptr + offs))


@triton.jit
def misaligned(x_ptr, out_ptr):
    p = (x_ptr.to(tl.int64) + 2).to(tl.pointer_type(tl.float32))
    tl.store(out_ptr, tl.load(p))


@triton.jit
def rand_kernel(out_ptr, bits_ptr, seed, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(out_ptr + offs, tl.rand(seed, offs))
    tl.store(bits_ptr + offs, tl.randint(seed, offs).to(tl.int32, bitcast=True))


@triton.jit
def philox_zero(out_ptr):
    z = tl.zeros((2,), dtype=tl.uint32)
    a, b, c, d = tl.philox(0, z, z, z, z)
    tl.store(out_ptr + tl.arange(0, 2), a.to(tl.int32, bitcast=True))
    tl.store(out_ptr + 2 + tl.arange(0, 2), b.to(tl.int32, bitcast=True))
    tl.store(out_ptr + 4 + tl.arange(0, 2), c.to(tl.int32, bitcast=True))
    tl.store(out_ptr + 6 + tl.arange(0, 2), d.to(tl.int32, bitcast=True))


@triton.jit
def loop_types(out_ptr, n, one):
    acc = 0
    for i in range(n):
        acc += i
    tl.store(out_ptr, acc)
    s = 0
    for j in tl.static_range(4):
        s += j
    tl.store(out_ptr + 1, s)
    tl.store(out_ptr + 2, one + 0)


@triton.jit
def types_probe(out_ptr, x_ptr, n):
    tl.static_assert(tl.program_id(0).dtype == tl.int32)
    tl.static_assert(n.dtype == tl.int32)
    x = tl.load(x_ptr)
    tl.static_assert((x * 0.5).dtype == tl.float16)
    tl.static_assert((x / x).dtype == tl.float32)
    tl.static_assert((n * 0.5).dtype == tl.float32)
    tl.static_assert((n + 1).dtype == tl.int32)
    tl.static_assert((n + n.to(tl.int64)).dtype == tl.int64)
    tl.static_assert(tl.max(tl.zeros((4,), tl.float16), axis=0).dtype == tl.float32)
    tl.static_assert(tl.sum(tl.zeros((4,), tl.float16), axis=0).dtype == tl.float16)
    tl.static_assert(tl.sum(tl.zeros((4,), tl.int8), axis=0).dtype == tl.int32)
    tl.store(out_ptr, (-7 + n * 0) // 2)
    tl.store(out_ptr + 1, (-7 + n * 0) % 2)
    tl.store(out_ptr + 2, (n * 0 + 2147483647) + 1)
    tl.store(out_ptr + 3, (n * 0 + 1) << 40)


@triton.jit
def shapes_kernel(out_ptr):
    a = tl.arange(0, 4)
    b = tl.arange(0, 8)
    m = a[:, None] * 8 + b[None, :]
    t = tl.trans(m)
    tl.store(out_ptr + tl.arange(0, 32), tl.reshape(t, (32,)))
    p = tl.permute(tl.reshape(m, (2, 2, 8)), (2, 0, 1))
    tl.store(out_ptr + 32 + tl.arange(0, 32), tl.reshape(p, (32,)))
    j = tl.join(a, a + 100)
    tl.store(out_ptr + 64 + tl.arange(0, 8), tl.reshape(j, (8,)))
    x, y = tl.split(j)
    tl.store(out_ptr + 72 + tl.arange(0, 4), y - x)
    e = tl.expand_dims(a, 1)
    tl.store(out_ptr + 76 + tl.arange(0, 4), tl.sum(tl.broadcast_to(e, (4, 4)), axis=1))
    w = tl.where((a % 2 == 0) and (a < 3), a, -1)
    tl.store(out_ptr + 80 + tl.arange(0, 4), w)


@triton.jit
def bad_arange(out_ptr, n):
    tl.store(out_ptr + tl.arange(0, n), 1)


@triton.jit
def bad_dot(a_ptr, out_ptr):
    a = tl.load(a_ptr + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(out_ptr + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :], tl.dot(a, a))


@triton.jit
def exp_fp16(x_ptr):
    tl.exp(tl.load(x_ptr))


@triton.jit
def big_scalar(out_ptr, n):
    tl.store(out_ptr, n + 2**40)


@triton.jit
def step_zero(out_ptr, n):
    for i in range(0, n, 0):
        tl.store(out_ptr, i)


@triton.jit
def spin(out_ptr):
    while tl.load(out_ptr) == 0:
        pass


@triton.jit
def descriptor_kernel(x_ptr, out_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, shape=[R, C], strides=[C, 1], block_shape=[BR, BC])
    o = tl.make_tensor_descriptor(out_ptr, shape=[R, C], strides=[C, 1], block_shape=[BR, BC])
    t = d.load([tl.program_id(0) * BR, 0])
    o.store([tl.program_id(0) * BR, 0], t * 2)


@triton.jit
def carried(out_ptr, n):
    s = 0
    for i in range(n):
        s += 0.5
    tl.store(out_ptr, s)


@triton.jit
def carried_static(out_ptr):
    s = 0
    for i in tl.static_range(3):
        s = s + 0.5
    tl.store(out_ptr, s)


@triton.jit
def if_types_kernel(out_ptr, n, FLAG: tl.constexpr):
    x = 0
    if FLAG:
        x = 0.5  # a constexpr condition: one branch is compiled, the type may change
    y = 0
    if n > 2:
        y = 1.5  # a runtime condition: Triton refuses int32 before, fp32 after
    tl.store(out_ptr, x + y)


@triton.jit
def chained_compare(out_ptr, n):
    tl.store(out_ptr, 0 < n < 10)


@triton.jit
def one_to(out_ptr, n):
    tl.store(out_ptr, n.to(tl.float32))


@triton.jit(do_not_specialize=["n"])
def one_to_kept(out_ptr, n):
    tl.store(out_ptr, n.to(tl.float32))


@triton.jit
def annotated(out_ptr, n: tl.int64, f: "fp32"):
    tl.static_assert(n.dtype == tl.int64)
    tl.static_assert(f.dtype == tl.float32)
    tl.store(out_ptr, n.to(tl.float32) + f)


def run(kernel, grid, *args, **kwargs):
    kernel[grid](*args, **kwargs)


class Kernels(unittest.TestCase):
    def test_vector_add(self):
        mem = tsim.Memory()
        for n in (1, 127, 129, 1000):
            x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
            y = np.random.default_rng(n + 1).standard_normal(n).astype(np.float32)
            X, Y, O = mem.array(x, "fp32"), mem.array(y, "fp32"), mem.empty(n, "fp32")
            run(add_kernel, (triton.cdiv(n, 128),), X, Y, O, n, BLOCK=128)
            np.testing.assert_array_equal(O.numpy(), x + y)
            self.assertIsNone(O.guard_damage())

    def test_row_softmax(self):
        mem = tsim.Memory()
        M, N = 5, 100
        x = np.random.default_rng(3).uniform(-20, 20, (M, N)).astype(np.float32)
        X, Y = mem.array(x, "fp32"), mem.empty(M * N, "fp32")
        run(softmax_kernel, (M,), X, Y, N, N, BLOCK=triton.next_power_of_2(N))
        ref = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
        ref /= ref.sum(1, keepdims=True)
        got = Y.numpy().reshape(M, N)
        self.assertLess(np.max(np.abs(got - ref) / (1e-30 + ref)), 1e-5)

    def test_matmul_fp16(self):
        mem = tsim.Memory()
        M, N, K = 70, 40, 90
        rng = np.random.default_rng(4)
        a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
        b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
        A, B, C = mem.array(a, "fp16"), mem.array(b, "fp16"), mem.empty(M * N, "fp32")
        run(matmul_kernel, (3, 2), A, B, C, M, N, K, BM=32, BN=32, BK=32, PREC="ieee")
        ref = a.astype(np.float64) @ b.astype(np.float64)
        np.testing.assert_allclose(C.numpy().reshape(M, N), ref, atol=1e-4, rtol=1e-5)

    def test_matmul_fp32_tf32(self):
        mem = tsim.Memory()
        M, N, K = 32, 32, 64
        rng = np.random.default_rng(5)
        a = rng.uniform(-1, 1, (M, K)).astype(np.float32)
        b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        errs = {}
        for prec in ("ieee", "tf32", "tf32x3"):
            A, B, C = mem.array(a, "fp32"), mem.array(b, "fp32"), mem.empty(M * N, "fp32")
            run(matmul_kernel, (1, 1), A, B, C, M, N, K, BM=32, BN=32, BK=32, PREC=prec)
            errs[prec] = np.max(np.abs(C.numpy().reshape(M, N) - ref))
        self.assertLess(errs["ieee"], 1e-5)
        self.assertLess(errs["tf32x3"], 1e-5)
        self.assertGreater(errs["tf32"], 1e-4)  # 10 mantissa bits per input
        self.assertLess(errs["tf32"], 1e-1)

    def test_block_pointer_transpose(self):
        mem = tsim.Memory()
        R, C = 37, 21
        x = np.arange(R * C, dtype=np.float32).reshape(R, C)
        X, Y = mem.array(x, "fp32"), mem.empty(R * C, "fp32")
        run(block_ptr_copy, (triton.cdiv(R, 16), triton.cdiv(C, 16)), X, Y, R, C, BR=16, BC=16)
        np.testing.assert_array_equal(Y.numpy().reshape(C, R), x.T)
        self.assertIsNone(Y.guard_damage())

    def test_block_pointer_padding(self):
        mem = tsim.Memory()
        X, O = mem.array(np.arange(5, dtype=np.float32), "fp32"), mem.empty(8, "fp32")
        run(block_ptr_padded, (1,), X, O, 5, B=8)
        got = O.numpy()
        np.testing.assert_array_equal(got[:5], np.arange(5))
        self.assertTrue(np.isnan(got[5:]).all())

    def test_tensor_descriptor(self):
        mem = tsim.Memory()
        R, C = 20, 8
        x = np.arange(R * C, dtype=np.float32)
        X, O = mem.array(x, "fp32"), mem.empty(R * C, "fp32")
        run(descriptor_kernel, (triton.cdiv(R, 16),), X, O, R, C, BR=16, BC=8)
        np.testing.assert_array_equal(O.numpy(), 2 * x)
        self.assertIsNone(O.guard_damage())  # the rows past R were dropped, not written


class Ops(unittest.TestCase):
    def unary(self, op, x, t="fp32"):
        mem = tsim.Memory()
        X, O = mem.array(x, t), mem.empty(len(x), t)
        run(unary_kernel, (1,), X, O, len(x), OP=op, B=triton.next_power_of_2(len(x)))
        return O.numpy()

    def test_math_against_numpy(self):
        x = np.linspace(0.01, 5, 100).astype(np.float32)
        x64 = x.astype(np.float64)
        cases = [(0, np.exp(x64)), (1, np.log(x64)), (2, np.sqrt(x64)),
                 (3, 1 / (1 + np.exp(-x64))), (4, np.tanh(x64)), (6, np.exp2(x64))]
        for op, ref in cases:
            got = self.unary(op, x)
            np.testing.assert_allclose(got, ref, rtol=2e-6, err_msg="op %d" % op)
        import math
        got = self.unary(5, x)
        np.testing.assert_allclose(got, [math.erf(v) for v in x64], rtol=2e-7)

    def test_exp_models_the_argument_rounding(self):
        x = np.array([80.0, -80.0, 0.5], dtype=np.float32)
        t = (x * np.float32(1.4426950408889634)).astype(np.float32).astype(np.float64)
        np.testing.assert_array_equal(self.unary(0, x), np.exp2(t).astype(np.float32))

    def test_reductions(self):
        mem = tsim.Memory()
        x = np.random.default_rng(6).standard_normal((4, 8)).astype(np.float32)
        x[1, 2] = x[1, 6] = 100.0  # a tie: argmax takes the leftmost
        X = mem.array(x, "fp32")
        O = mem.empty(4, "fp32")
        run(reduce_kernel, (1,), X, O, R=4, C=8, OP=0)
        np.testing.assert_allclose(O.numpy(), x.sum(1), rtol=1e-6)
        O = mem.empty(8, "fp32")
        run(reduce_kernel, (1,), X, O, R=4, C=8, OP=1)
        np.testing.assert_array_equal(O.numpy(), x.max(0))
        O = mem.empty(4, "int32")
        run(reduce_kernel, (1,), X, O, R=4, C=8, OP=2)
        np.testing.assert_array_equal(O.numpy(), x.argmax(1))
        self.assertEqual(O.numpy()[1], 2)
        O = mem.empty(32, "fp32")
        run(reduce_kernel, (1,), X, O, R=4, C=8, OP=3)
        np.testing.assert_allclose(O.numpy().reshape(4, 8), np.cumsum(x, 1), rtol=1e-5)
        O = mem.empty(1, "fp32")
        run(reduce_kernel, (1,), X, O, R=4, C=8, OP=4)
        self.assertEqual(O.numpy()[0], x.min())

    def test_max_ignores_nan(self):
        mem = tsim.Memory()
        x = np.ones((2, 4), np.float32)
        x[0, 1] = np.nan
        O = mem.empty(4, "fp32")
        run(reduce_kernel, (1,), mem.array(x, "fp32"), O, R=2, C=4, OP=1)
        np.testing.assert_array_equal(O.numpy(), [1, 1, 1, 1])  # max.f32 drops a NaN

    def test_shapes(self):
        mem = tsim.Memory()
        O = mem.empty(84, "int32")
        run(shapes_kernel, (1,), O)
        got = O.numpy()
        m = np.arange(4)[:, None] * 8 + np.arange(8)[None, :]
        np.testing.assert_array_equal(got[:32], m.T.reshape(-1))
        np.testing.assert_array_equal(got[32:64], np.transpose(m.reshape(2, 2, 8), (2, 0, 1))
                                      .reshape(-1))
        np.testing.assert_array_equal(got[64:72], [0, 100, 1, 101, 2, 102, 3, 103])
        np.testing.assert_array_equal(got[72:76], [100] * 4)
        np.testing.assert_array_equal(got[76:80], 4 * np.arange(4))
        np.testing.assert_array_equal(got[80:84], [0, -1, 2, -1])

    def test_atomics_are_sequential(self):
        mem = tsim.Memory()
        out = mem.array(np.zeros(3), "fp32")
        ctr = mem.array(np.zeros(3), "int32")
        lock = mem.array(np.zeros(1), "int32")
        n, B = 100, 16
        run(atomic_kernel, (triton.cdiv(n, B),), out, ctr, lock, n, B=B)
        np.testing.assert_array_equal(out.numpy(), [34, 33, 33])
        g = triton.cdiv(n, B)
        np.testing.assert_array_equal(ctr.numpy(), [g, sum(range(g)), 10 * (g - 1)])
        self.assertEqual(lock.numpy()[0], 0)

    def test_random_matches_the_statement(self):
        mem = tsim.Memory()
        O, bits = mem.empty(8, "fp32"), mem.empty(8, "int32")
        run(rand_kernel, (1,), O, bits, 42, B=8)
        want = [0.774080157, 0.024562696, 0.348266304, 0.540801406, 0.652836204, 0.629694879]
        np.testing.assert_allclose(O.numpy()[:6], want, rtol=1e-8)
        run(rand_kernel, (1,), O, bits, 4294967303, B=8)
        np.testing.assert_allclose(O.numpy()[:2], [0.701255918, 0.108485416], rtol=1e-8)
        P = mem.empty(8, "int32")
        run(philox_zero, (1,), P)
        words = P.numpy().astype(np.uint32)
        np.testing.assert_array_equal(words[::2], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8])

    def test_loops_and_specialisation(self):
        mem = tsim.Memory()
        O = mem.empty(3, "int32")
        run(loop_types, (1,), O, 10, 1)
        np.testing.assert_array_equal(O.numpy(), [45, 6, 1])


class Typing(unittest.TestCase):
    def test_promotion_and_integer_semantics(self):
        mem = tsim.Memory()
        O = mem.empty(4, "int32")
        run(types_probe, (1,), O, mem.array([1.5], "fp16"), 5)
        # C division and remainder; int32 wraps; a shift by the width or more gives 0
        np.testing.assert_array_equal(O.numpy(), [-3, -1, -2147483648, 0])

    def test_python_scalar_out_of_range(self):
        with self.assertRaisesRegex(CompileError, "out of range for type int32"):
            run(big_scalar, (1,), tsim.Memory().empty(1, "int64"), 5)

    def test_bf16_rounding(self):
        v = np.array([1.0 + 2**-8, 1.0 + 3 * 2**-8, 3.4e38, -0.0, 2**-133, 2**-134 * 1.5])
        got = D.round_bf16(v)
        np.testing.assert_array_equal(got[:2], [1.0, 1.0 + 2**-6])  # ties to even
        self.assertTrue(np.isinf(got[2]))
        self.assertTrue(np.signbit(got[3]))
        self.assertEqual(got[4], 2**-133)
        self.assertEqual(got[5], 2**-133)
        bits = D.bf16_bits(D.round_bf16(np.array([1.0, -2.0])))
        np.testing.assert_array_equal(bits, [0x3F80, 0xC000])

    def test_casts(self):
        x = core.Tensor(np.array([1e10, -1e10, np.nan, 2.7, -2.7, 0, np.inf, -0.5], np.float32),
                        D.float32)
        np.testing.assert_array_equal(core.cast(x, D.int32).data,
                                      [2**31 - 1, -2**31, 0, 2, -2, 0, 2**31 - 1, 0])
        u = core.cast(core.Tensor(np.array([-1], np.int32), D.int32), D.uint64)
        self.assertEqual(int(u.data[0]), 2**64 - 1)
        h = core.bitcast(core.Tensor(np.array([1.0], np.float32), D.float32), D.int32)
        self.assertEqual(int(h.data[0]), 0x3F800000)
        z = core.cast(core.Tensor(np.array([1.0 + 3 * 2**-12], np.float32), D.float32), D.float16,
                      fp_downcast_rounding="rtz")
        self.assertEqual(float(z.data[0]), 1.0)
        n = core.cast(core.Tensor(np.array([1.0 + 3 * 2**-12], np.float32), D.float32), D.float16)
        self.assertEqual(float(n.data[0]), 1.0 + 2**-10)

    def test_compile_errors(self):
        mem = tsim.Memory()
        with self.assertRaisesRegex(CompileError, "constexpr"):
            run(bad_arange, (1,), mem.empty(4, "int32"), 4)
        with self.assertRaisesRegex(CompileError, "K >= 16"):
            run(bad_dot, (1,), mem.array(np.zeros(64), "fp16"), mem.empty(64, "fp32"))
        with self.assertRaisesRegex(CompileError, "Expected dtype"):
            run(exp_fp16, (1,), mem.array([1.0], "fp16"))
        with self.assertRaisesRegex(CompileError, "power of 2"):
            tl.zeros((3, 4), tl.float32)
        with self.assertRaisesRegex(CompileError, "incompatible dimensions"):
            core.add(core.Tensor(np.zeros(4, np.int32), D.int32),
                     core.Tensor(np.zeros(8, np.int32), D.int32))


    def test_loop_carried_type(self):
        mem = tsim.Memory()
        with self.assertRaisesRegex(CompileError, "Loop-carried variable s has initial type "
                                    "int32 but is re-assigned to fp32"):
            run(carried, (1,), mem.empty(1, "fp32"), 3)
        O = mem.empty(1, "fp32")
        run(carried_static, (1,), O)  # unrolled: the type may change
        self.assertEqual(O.numpy()[0], 1.5)

    def test_if_types(self):
        mem = tsim.Memory()
        O = mem.empty(1, "fp32")
        run(if_types_kernel, (1,), O, 2, FLAG=True)
        self.assertEqual(O.numpy()[0], 0.5)
        with self.assertRaisesRegex(CompileError, "Mismatched type for y"):
            run(if_types_kernel, (1,), O, 3, FLAG=True)

    def test_rewritten_syntax(self):
        with self.assertRaisesRegex(CompileError, "simultaneous multiple comparison"):
            run(chained_compare, (1,), tsim.Memory().empty(1, "int32"), 3)

    def test_specialised_one(self):
        mem = tsim.Memory()
        O = mem.empty(1, "fp32")
        run(one_to, (1,), O, 2)
        self.assertEqual(O.numpy()[0], 2.0)
        with self.assertRaisesRegex(CompileError, "specialises it into the constant 1"):
            run(one_to, (1,), O, 1)
        run(one_to_kept, (1,), O, 1)
        self.assertEqual(O.numpy()[0], 1.0)
        run(annotated, (1,), O, 1, 0.5)  # an annotated integer is not folded
        self.assertEqual(O.numpy()[0], 1.5)


class Memory(unittest.TestCase):
    def test_out_of_bounds_store_lands_in_the_guard(self):
        mem = tsim.Memory()
        O = mem.empty(5, "fp32")
        run(oob_store, (1,), O, 5, B=8)
        self.assertEqual(O.guard_damage(), ("after", 20))

    def test_far_access_faults(self):
        mem = tsim.Memory()
        X, O = mem.array(np.zeros(16), "fp32"), mem.empty(16, "fp32")
        run(far_load, (1,), X, O, B=16, OFF=100000)  # 400 KB past: a mapped page, garbage
        self.assertTrue(any("beyond the guard band" in n for n in mem.notes))
        with self.assertRaisesRegex(Fault, "illegal memory access"):
            run(far_load, (1,), X, O, B=16, OFF=1 << 20)  # 4 MiB past: unmapped
        O = mem.empty(1, "fp32")
        run(oob_store, (1,), O, 1, B=2048)  # 8 KB: through the band and past it
        self.assertEqual(O.guard_damage(), ("after", 4))
        self.assertTrue(any("a store" in n and "beyond the guard band" in n for n in mem.notes))

    def test_guard_read_is_noted(self):
        mem = tsim.Memory()
        X, O = mem.array(np.zeros(5), "fp32"), mem.empty(8, "fp32")
        run(add_kernel, (1,), X, X, O, 8, BLOCK=8)
        self.assertTrue(any("past the end of" in n for n in mem.notes))

    def test_misaligned(self):
        mem = tsim.Memory()
        with self.assertRaisesRegex(Fault, "misaligned"):
            run(misaligned, (1,), mem.array(np.zeros(4), "fp32"), mem.empty(1, "fp32"))

    def test_time_limits(self):
        mem = tsim.Memory()
        with self.assertRaisesRegex(TimeLimit, "step 0"):
            run(step_zero, (1,), mem.empty(1, "int32"), 4)
        O = mem.array(np.zeros(1), "int32")
        with self.assertRaises(TimeLimit):
            tsim.launch(spin, (1,), [O], {}, time_limit=0.5)


class Summary(unittest.TextTestResult):
    pass


if __name__ == "__main__":
    verbosity = 2 if "-v" in sys.argv else 1
    names = [a for a in sys.argv[1:] if not a.startswith("-")]
    loader = unittest.defaultTestLoader
    suite = loader.loadTestsFromNames(names, sys.modules[__name__]) if names else \
        loader.loadTestsFromModule(sys.modules[__name__])
    res = unittest.TextTestRunner(verbosity=verbosity, resultclass=Summary).run(suite)
    bad = len(res.failures) + len(res.errors)
    print("%d passed, %d failed, %d skipped" % (res.testsRun - bad - len(res.skipped), bad,
                                                 len(res.skipped)))
    sys.exit(1 if bad else 0)
