// expect: failure
// limits: wall_ms=1000 cpu_s=60
// failure: compilation exceeded the time limit of 1 s
// The same burn under a wall-clock limit below its CPU limit.
__device__ constexpr unsigned long spin(unsigned long n)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += i * i ^ s;
    return s;
}
template <int I> struct Burn {
    static_assert(spin((1UL << 18) + I) != 1, "");
    static constexpr int v = Burn<I - 1>::v + 1;
};
template <> struct Burn<0> {
    static constexpr int v = 0;
};
__device__ int z = Burn<190>::v;
extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1.0f; }
