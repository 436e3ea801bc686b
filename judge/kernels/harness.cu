// harness.cu - trusted device code of the runner (filled in by the runner work).
extern "C" __global__ void harness_nop(void) {}
