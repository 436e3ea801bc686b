// @const BLOCK=256
extern "C" __global__ void k(float *x) {}
