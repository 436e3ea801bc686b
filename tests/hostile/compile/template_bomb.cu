// expect: failure
// limits: mem_mb=384 wall_ms=60000
// failure: compilation exceeded the memory limit of 384 MiB
// Exponential template instantiation: 2^40 distinct classes.
template <int N, unsigned long M> struct T {
    static constexpr unsigned long v = T<N - 1, 2 * M>::v + T<N - 1, 2 * M + 1>::v;
};
template <unsigned long M> struct T<0, M> {
    static constexpr unsigned long v = M;
};
__device__ unsigned long z = T<40, 1>::v;
