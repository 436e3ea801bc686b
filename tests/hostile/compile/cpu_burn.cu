// expect: failure
// limits: cpu_s=1 wall_ms=60000
// failure: compilation exceeded the CPU time limit of 1 s
// Little memory, much CPU: 190 constant evaluations, each just under EDG's step limit.
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
