"""memory.py - the simulated GPU memory: buffers with guard bands, checked loads, stores and atomics.

Addresses are int64 byte addresses in a flat space: buffer k's data starts at
(k + 1) << 40 (so it is 256-byte aligned, like the judge's), surrounded by
BW_GUARD_BYTES (4096) of guard band on each side, filled with a per-buffer
pseudo-random pattern (the judge hashes a salt, the band and the byte).

An access is checked lane by lane, where its mask is true:
- inside a buffer's data: done;
- inside a guard band: a store lands in the band (the plan runner then
  reports Memory Violation, as the judge does when it finds a band
  changed); a load reads the band's bytes (garbage, as on the GPU) and is
  noted, since the judge cannot see reads;
- beyond a band but within 2 MiB of the buffer (cuMemAlloc's granularity:
  the GPU's page is still mapped there): a load reads garbage, a store is
  dropped (the judge cannot see it; on the GPU it lands in whatever lies
  there), and both are noted;
- anywhere else (an address far past every buffer, a wild pointer): Fault,
  "an illegal memory access" (Runtime Error), which is what the GPU does
  when the address is unmapped;
- an address not a multiple of the element size: Fault, misaligned.
Lanes run in row-major order, so of two stores to one address the later lane
wins, and atomics are exact: each lane reads, combines and writes in turn.
"""
import numpy as np

from . import core
from . import dtypes as D
from .errors import Fault

GUARD = 4096
SLACK = 2 << 20  # cuMemAlloc's granularity: near a buffer, past its bands, the page is mapped
SHIFT = 40
SPAN = 1 << SHIFT


class Buffer:
    """One device buffer: `count` elements of `dtype` (a dtypes.dtype), named for messages."""

    def __init__(self, memory, index, name, dtype, count, role):
        self.memory = memory
        self.index = index
        self.name = name
        self.dtype = dtype
        self.count = int(count)
        self.role = role
        self.nbytes = self.count * dtype.itemsize
        if self.nbytes + 2 * GUARD >= SPAN:
            raise ValueError("buffer %s is too large for the simulator" % name)
        self.base = (index + 1) << SHIFT
        tail = GUARD + (-(self.nbytes + GUARD) % 8)
        self.raw = np.zeros(GUARD + self.nbytes + tail, dtype=np.uint8)
        rng = np.random.default_rng(0x9E3779B9 + 7919 * index)
        self.pattern = rng.integers(0, 256, size=GUARD + tail, dtype=np.uint8)
        self.raw[:GUARD] = self.pattern[:GUARD]
        self.raw[GUARD + self.nbytes:] = self.pattern[GUARD:]

    @property
    def bytes(self):
        """The data bytes (a writable view)."""
        return self.raw[GUARD:GUARD + self.nbytes]

    def numpy(self):
        """The elements as numpy values (bf16 as float32), a copy."""
        raw = self.bytes.view(self.dtype.mem).copy()
        return core.from_memory(self.dtype, raw)

    def fill(self, values):
        """Sets the elements from numbers (rounded to the dtype like a conversion)."""
        v = np.asarray(values).reshape(-1)
        if v.size != self.count:
            raise ValueError("%s holds %d elements, got %d" % (self.name, self.count, v.size))
        self.bytes[:] = core.to_memory(self.dtype, D.to_register(self.dtype, v)).view(np.uint8)

    def at(self, offset):
        """A pointer `offset` elements into the data (a launcher's view: `judged plan`'s
        {"buffer": NAME, "offset": K})."""
        return View(self, int(offset))

    def guard_damage(self):
        """None if both bands are intact, else (where, byte offset relative to the data's first
        byte) of the written band byte nearest the data, as the judge reports it; a write past
        the end wins over one before the start."""
        after = self.raw[GUARD + self.nbytes:] != self.pattern[GUARD:]
        if after.any():
            return "after", self.nbytes + int(np.argmax(after))
        before = self.raw[:GUARD] != self.pattern[:GUARD]
        if before.any():
            return "before", int(np.nonzero(before)[0][-1]) - GUARD
        return None


class View:
    """A buffer's pointer moved `offset` elements in: what a launcher passes for x[k:]."""

    def __init__(self, buffer, offset):
        self.buffer, self.offset = buffer, offset
        self.memory, self.dtype = buffer.memory, buffer.dtype
        self.base = buffer.base + offset * buffer.dtype.itemsize


class Memory:
    """The buffers of one run, and what the accesses noticed (reads of guard bands)."""

    def __init__(self):
        self.buffers = []
        self.notes = []

    def alloc(self, name, dtype, count, role="scratch"):
        if isinstance(dtype, str):
            dtype = D.BY_NAME[dtype]
        b = Buffer(self, len(self.buffers), name, dtype, count, role)
        self.buffers.append(b)
        return b

    def array(self, values, dtype, name=None, role="inout"):
        """A buffer holding `values` (for tests: a stand-in for a torch tensor)."""
        v = np.asarray(values).reshape(-1)
        b = self.alloc(name or "buf%d" % len(self.buffers), dtype, v.size, role)
        b.fill(v)
        return b

    def empty(self, count, dtype, name=None, poison=True):
        b = self.alloc(name or "buf%d" % len(self.buffers), dtype, count, "out")
        b.bytes[:] = 0xFF if poison else 0
        return b

    # ---- address checks -------------------------------------------------------------------
    def _locate(self, addrs, itemsize, what, near_ok=False):
        """addrs: 1-d int64 of the active lanes -> (buffer index per lane, or one int when all
        lanes are in one buffer's data and bands; raw byte index per lane; the lanes beyond the
        bands but within SLACK of the buffer, or None: allowed when near_ok, else a Fault).
        Anything else outside every buffer and its bands, or misaligned, is a Fault."""
        if itemsize > 1 and (addrs & (itemsize - 1)).any():
            i = int(np.argmax(addrs & (itemsize - 1) != 0))
            raise Fault(self._describe(int(addrs[i]), what) + ": misaligned address "
                        "(CUDA_ERROR_MISALIGNED_ADDRESS): not a multiple of %d bytes" % itemsize)
        lo, hi = int(addrs.min()), int(addrs.max())
        k_lo = ((lo + SLACK) >> SHIFT) - 1
        k_hi = ((hi + SLACK) >> SHIFT) - 1
        if k_lo == k_hi and 0 <= k_lo < len(self.buffers):
            b = self.buffers[k_lo]
            if lo - b.base >= -GUARD and hi - b.base + itemsize <= b.nbytes + GUARD:
                return k_lo, addrs - (b.base - GUARD), None
        k = ((addrs + SLACK) >> SHIFT) - 1
        n = len(self.buffers)
        ok = (k >= 0) & (k < n)
        kk = np.where(ok, k, 0)
        if n:
            bases = np.array([b.base for b in self.buffers], dtype=np.int64)[kk]
            sizes = np.array([b.nbytes for b in self.buffers], dtype=np.int64)[kk]
        else:
            bases = sizes = np.zeros(addrs.shape, dtype=np.int64)
        off = addrs - bases
        inside = ok & (off >= -GUARD) & (off + itemsize <= sizes + GUARD)
        near = ok & ~inside & (off >= -SLACK) & (off + itemsize <= sizes + SLACK)
        bad = ~inside & ~near if near_ok else ~inside
        if bad.any():
            i = int(np.argmax(bad))
            raise Fault(self._describe(int(addrs[i]), what) + ": an illegal memory access "
                        "(CUDA_ERROR_ILLEGAL_ADDRESS: on the GPU an address this far from "
                        "every buffer is unmapped)")
        return kk, np.where(inside, off + GUARD, 0), (near if near.any() else None)

    def _describe(self, addr, what):
        k = ((addr + SLACK) >> SHIFT) - 1
        if 0 <= k < len(self.buffers):
            b = self.buffers[k]
            off = addr - b.base
            if off < 0:
                return "%s %d bytes before the start of %s" % (what, -off, b.name)
            if off >= b.nbytes:
                return "%s at byte %d of %s, %d bytes past its end (size %d bytes)" % (
                    what, off, b.name, off - b.nbytes, b.nbytes)
            return "%s at byte %d of %s" % (what, off, b.name)
        return "%s at address 0x%x, in no buffer" % (what, addr)

    def _note(self, note):
        if note not in self.notes and len(self.notes) < 20:
            self.notes.append(note)

    def _note_band_reads(self, b, raw, itemsize):
        bad = (raw < GUARD) | (raw + itemsize > GUARD + b.nbytes)
        if bad.any():
            off = int(raw[np.argmax(bad)]) - GUARD
            where = "before the start" if off < 0 else "past the end"
            self._note("a load read %s of %s (byte %d, in an unmasked lane): the GPU reads "
                       "garbage there, and the judge cannot see reads" % (where, b.name, off))

    def _parts(self, k, raw):
        """(buffer, selection or None, raw indices) per buffer the lanes touch."""
        if isinstance(k, int):
            yield self.buffers[k], None, raw
            return
        for kb in np.unique(k):
            sel = k == kb
            yield self.buffers[int(kb)], sel, raw[sel]

    # ---- accesses ---------------------------------------------------------------------------
    def load(self, addrs, mask, t):
        """Values of type t at int64 addresses `addrs` where `mask` (bool, same shape); 0 in
        masked-out lanes (what Triton's masked load without `other` gives). A lane beyond a
        guard band (but near the buffer, where the GPU's page is still mapped) reads garbage."""
        a = addrs[mask] if mask is not None else addrs.reshape(-1)
        if not a.size:
            return core.from_memory(t, np.zeros(addrs.shape, dtype=t.mem))
        k, raw, near = self._locate(a, t.itemsize, "load of %s" % t, near_ok=True)
        vals = np.empty(a.shape, dtype=t.mem)
        if near is not None:
            i = int(np.argmax(near))
            self._note(self._describe(int(a[i]), "a load") + ", beyond the guard band: the GPU "
                       "reads whatever lies there (garbage here)")
            vals[near] = _garbage(a[near], t)
            keep = ~near
            for b, sel, r in self._parts(k[keep], raw[keep]):
                self._note_band_reads(b, r, t.itemsize)
                got = b.raw.view(t.mem)[r // t.itemsize]
                idx = np.nonzero(keep)[0]
                vals[idx if sel is None else idx[sel]] = got
        else:
            for b, sel, r in self._parts(k, raw):
                self._note_band_reads(b, r, t.itemsize)
                got = b.raw.view(t.mem)[r // t.itemsize]
                if sel is None:
                    vals = got
                else:
                    vals[sel] = got
        if mask is not None:
            out = np.zeros(addrs.shape, dtype=t.mem)
            out[mask] = vals
        else:
            out = vals.reshape(addrs.shape)
        return core.from_memory(t, out)

    def store(self, addrs, values, mask, t):
        """Writes register values of type t (already broadcast to addrs' shape)."""
        a = addrs[mask] if mask is not None else addrs.reshape(-1)
        if not a.size:
            return
        v = core.to_memory(t, values)
        v = v[mask] if mask is not None else v.reshape(-1)
        k, raw, near = self._locate(a, t.itemsize, "store of %s" % t, near_ok=True)
        if near is not None:
            i = int(np.argmax(near))
            self._note(self._describe(int(a[i]), "a store") + ", beyond the guard band: the "
                       "judge cannot see it (dropped here; on the GPU it lands in whatever lies "
                       "there)")
            keep = ~near
            k, raw, v = k[keep], raw[keep], v[keep]
            if not v.size:
                return
        for b, sel, r in self._parts(k, raw):
            b.raw.view(t.mem)[r // t.itemsize] = v if sel is None else v[sel]

    def atomic(self, op, addrs, values, mask, t, cmp=None):
        """Atomic read-modify-write, lane after lane in row-major order; returns the old values
        (0 in masked-out lanes). op: add, max, min, and, or, xor, xchg, cas."""
        flat_a = addrs.reshape(-1)
        flat_m = mask.reshape(-1) if mask is not None else np.ones(flat_a.shape, bool)
        vals = np.asarray(values).reshape(-1)
        cmps = np.asarray(cmp).reshape(-1) if cmp is not None else None
        old = np.zeros(flat_a.shape, dtype=t.reg)
        idx = np.nonzero(flat_m)[0]
        if idx.size:
            k, raw, _ = self._locate(flat_a[idx], t.itemsize, "atomic %s of %s" % (op, t))
            if isinstance(k, int):
                k = np.full(idx.shape, k)
            for j, lane in enumerate(idx):
                view = self.buffers[int(k[j])].raw.view(t.mem)
                pos = int(raw[j]) // t.itemsize
                cur = core.from_memory(t, view[pos:pos + 1])[0]
                old[lane] = cur
                new = _combine(op, t, cur, vals[lane], None if cmps is None else cmps[lane])
                view[pos:pos + 1] = core.to_memory(t, np.array([new], dtype=t.reg))
        return old.reshape(addrs.shape)


def _garbage(addrs, t):
    """Deterministic junk of type t's memory representation for each address (splitmix64)."""
    z = addrs.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z.astype(np.dtype("uint%d" % (8 * t.itemsize))).view(t.mem)


def _combine(op, t, cur, val, cmp):
    if op == "add":
        if t.is_floating():
            return D.to_register(t, np.float64(cur) + np.float64(val)) if \
                (t.is_fp16() or t.is_bf16()) else (np.asarray(cur, t.reg) + np.asarray(val, t.reg))
        return np.asarray(cur, t.reg) + np.asarray(val, t.reg)
    if op == "max":
        return np.maximum(cur, val)
    if op == "min":
        return np.minimum(cur, val)
    if op == "and":
        return np.bitwise_and(cur, val)
    if op == "or":
        return np.bitwise_or(cur, val)
    if op == "xor":
        return np.bitwise_xor(cur, val)
    if op == "xchg":
        return val
    if op == "cas":
        return val if cur == cmp else cur
    raise ValueError(op)
